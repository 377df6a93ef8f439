"""nbformat's schema, asked where the notebook is read: both grading paths take the same notebooks."""

from __future__ import annotations

import nbformat


def schema_problem(node: nbformat.NotebookNode) -> str | None:
    """What breaks nbformat's schema in ``node`` (where, and which rule), in one phrase; None: nothing.

    nbgrader's path validates the notebook after every preprocessor (nbconvert's exporter, with
    ``relax_add_props``) and fails the student on the first problem: a cell ``id`` with other
    characters than nbformat allows, or an ``execution_count`` that is text, was 15/15 in the batch
    and an nbgrader traceback, no score, on nbgrader's path. So the reader asks the same question
    with the same settings, and both paths refuse such a notebook (about 5 ms for an honest one).
    The student's value is not quoted (it is their text): only where it is and the rule's name.
    A notebook that nbformat's strict validation (``nbformat.reads``) took, the relaxed one takes
    too: the reader asks only when that one failed, so an honest notebook is validated once.

    Examples
    --------
    >>> from nbformat.v4 import new_code_cell, new_notebook
    >>> schema_problem(new_notebook(cells=[new_code_cell("x = 1")])) is None
    True
    >>> notebook = new_notebook(cells=[new_code_cell("x = 1")])
    >>> notebook.cells[0].id = "a b"
    >>> schema_problem(notebook)
    "is not a valid Jupyter notebook: cell 1's id breaks nbformat's rule (pattern); the file was edited outside Jupyter"
    """
    try:
        nbformat.validate(node, relax_add_props=True)
    except nbformat.ValidationError as error:
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "cells" and isinstance(path[1], int):
            where = f"cell {path[1] + 1}'s " + (".".join(str(part) for part in path[2:3]) or "content")
        else:
            where = "the notebook's " + (".".join(str(part) for part in path[:1]) or "structure")
        return (f"is not a valid Jupyter notebook: {where} breaks nbformat's rule ({error.validator}); "
                "the file was edited outside Jupyter")
    return None
