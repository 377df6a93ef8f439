"""An answer cell the student turned into markdown (or raw) is not run on nbgrader's path either.

The batch command runs the student's code cells only (:func:`~autograder.grading.reading.notebook.student_code`):
an answer cell that the student made a markdown cell (one key press in Jupyter, ``M``) is text,
and a function defined only there is missing. nbgrader's ``OverwriteCells`` instead puts back the
release's cell type for every cell of a release id, so the same text ran as code on nbgrader's
path: the red team's third round measured 5/15 on the batch and 15/15 on nbgrader's path for the
right code in a markdown ``dcg`` cell, and the reverse (15 and 5) for right code in a plain cell
above a markdown ``dcg`` cell holding ``dcg = None``. What the student saw when running their
notebook is the batch's reading (the function was undefined there, and ``validate`` said so), so
nbgrader's path takes it: before ``OverwriteCells``, such a cell becomes a code cell whose every
line is commented out, so that it runs nothing while the tutor still reads what was written.

Cells read as data, not run (an answered part's cells, :attr:`~autograder.grading.AnsweredPart.cell_ids`),
and the release's read-only cells (nbgrader restores their source) are left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nbformat.notebooknode import NotebookNode

from .generated_cells import grade_id


def release_cells(release: NotebookNode) -> dict[str, tuple[str, dict[str, Any]]]:
    """The release's cell type and nbgrader metadata by grade id (the first cell of each id)."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for cell in release.cells:
        cell_id = grade_id(cell)
        if cell_id is not None and cell_id not in found:
            found[cell_id] = (cell.cell_type, cell.metadata["nbgrader"])
    return found


def commented(source: str, was: str) -> str:
    """``source`` as Python comments, under a line saying why (the cell was ``was`` in the notebook)."""
    lines = [f"# (a {was} cell in the submitted notebook: not run, as the batch command does not run it)"]
    lines += [f"# {line}" if line else "#" for line in source.splitlines()]
    return "\n".join(lines)


def quiet_retyped_answers(notebook: NotebookNode, release: Mapping[str, tuple[str, dict[str, Any]]],
                          data_ids: frozenset[str]) -> list[str]:
    """Make each answer cell whose type the student changed a code cell that runs nothing, in place.

    Parameters
    ----------
    notebook : NotebookNode
        The student's notebook, its nbgrader metadata already the release's (:mod:`.notebook_cells.unknown_cells`).
    release : mapping of str to (str, dict)
        The release's cell type and nbgrader metadata by grade id.
    data_ids : frozenset of str
        Grade ids of cells read as data, never run (left alone).

    Returns
    -------
    list of str
        The grade ids of the cells changed (release ids only: safe to log).
    """
    changed = []
    for cell in notebook.cells:
        cell_id = grade_id(cell)
        if cell_id is None or cell_id not in release or cell_id in data_ids:
            continue
        cell_type, metadata = release[cell_id]
        if cell_type != "code" or metadata.get("locked") or cell.get("cell_type") == "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        was = cell.get("cell_type") if cell.get("cell_type") in ("markdown", "raw") else "non-code"
        cell["cell_type"] = "code"
        cell["source"] = commented(source if isinstance(source, str) else "", str(was))
        cell["outputs"], cell["execution_count"] = [], None
        cell.pop("attachments", None)  # a markdown cell's; a code cell has none (nbformat's schema)
        changed.append(cell_id)
    return changed
