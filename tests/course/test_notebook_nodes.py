"""The grader's notebook nodes are nbformat's own (:mod:`autograder.course.notebook_cells.notebook_nodes`), checked whole."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell
from nbformat.v4 import new_output as nbformat_output

from autograder.course.notebook_cells.notebook_nodes import checked_text, new_cell, new_output

OUTPUTS = [
    ("stream", {"name": "stderr", "text": "x\n"}),
    ("stream", {}),
    ("error", {"ename": "ValueError", "evalue": "bad", "traceback": ["ValueError: bad"]}),
    ("error", {}),
    ("display_data", {"data": {"text/plain": "1"}, "metadata": {"image/png": {"width": 10}}}),
    ("execute_result", {"data": {"text/plain": "1"}, "execution_count": 3}),
]


@pytest.mark.parametrize(("kind", "fields"), OUTPUTS)
def test_an_output_is_the_one_nbformat_makes(kind, fields):
    assert new_output(kind, **fields) == nbformat_output(kind, **fields)


@pytest.mark.parametrize(("kind", "made_by_nbformat"), [
    ("code", new_code_cell), ("markdown", new_markdown_cell), ("raw", new_raw_cell),
])
def test_a_cell_is_the_one_nbformat_makes_but_for_its_random_id(kind, made_by_nbformat):
    fields = {"metadata": {"nbgrader": {"grade": False}}}
    if kind == "code":
        fields["outputs"] = [new_output("stream", text="hi")]
    ours, theirs = new_cell(kind, "x = 1", **fields), made_by_nbformat("x = 1", **fields)
    assert isinstance(ours.pop("id"), str) and isinstance(theirs.pop("id"), str)  # random words, each
    assert ours == theirs
    assert isinstance(ours.metadata.nbgrader, nbformat.NotebookNode)  # attribute access, as nbformat's


def test_a_notebook_breaking_the_schema_is_refused_by_name():
    notebook = new_notebook()
    notebook.cells.append(new_cell("code", "x = 1", outputs=[new_output("stream", name=3)]))  # made unchecked
    with pytest.raises(ValueError, match="schema"):
        checked_text(notebook)
    good = new_notebook(cells=[new_cell("code", "x = 1", outputs=[new_output("stream", text="x")])])
    assert nbformat.reads(checked_text(good), as_version=4) == good
