"""Cells and outputs of the notebooks the grader writes, built as ``nbformat.v4``'s ``new_*`` build them.

nbformat's ``new_output`` and ``new_*_cell`` check each node against the schema with jsonschema as
they make it (about 1 ms a node: a fifth of writing a class's autograded notebooks). The grader
checks each notebook once, whole, as it writes it (:func:`checked_text`, with nbformat's fast
validator), so its nodes are made here without the per-node check; their fields are nbformat's.
"""

from __future__ import annotations

from typing import Any

import nbformat
from nbformat.corpus.words import generate_corpus_id
from nbformat.notebooknode import NotebookNode, from_dict

#: The fields ``nbformat.v4.new_output`` gives each kind of output before its keyword arguments.
_OUTPUT_DEFAULTS: dict[str, dict[str, Any]] = {
    "stream": {"name": "stdout", "text": ""},
    "display_data": {"metadata": {}, "data": {}},
    "execute_result": {"metadata": {}, "data": {}, "execution_count": None},
    "error": {"ename": "NotImplementedError", "evalue": "", "traceback": []},
}


def new_output(output_type: str, **fields: Any) -> NotebookNode:
    """An output as ``nbformat.v4.new_output(output_type, **fields)`` makes it, unchecked."""
    return from_dict({"output_type": output_type, **_OUTPUT_DEFAULTS.get(output_type, {}), **fields})


def new_cell(cell_type: str, source: str, **fields: Any) -> NotebookNode:
    """A ``code``, ``markdown`` or ``raw`` cell as ``nbformat.v4.new_<type>_cell(source, **fields)`` makes it."""
    extra: dict[str, Any] = {"execution_count": None, "outputs": []} if cell_type == "code" else {}
    return from_dict({"id": generate_corpus_id(), "cell_type": cell_type, "metadata": {}, **extra,
                      "source": source, **fields})


def checked_text(notebook: NotebookNode) -> str:
    """``notebook`` as nbformat writes it; :class:`ValueError` naming the problem if it breaks the schema.

    ``nbformat.writes`` only logs a notebook that breaks the schema, and writes it anyway.
    """
    problem: dict[str, Exception] = {}
    text = nbformat.writes(notebook, capture_validation_error=problem)
    if problem:
        raise ValueError(f"the notebook breaks nbformat's schema: {problem['ValidationError']}")
    return text
