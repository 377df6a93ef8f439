"""A student cell claiming an nbgrader id the release does not have is an ordinary student cell.

nbgrader's ``OverwriteCells`` prints such a cell's ``grade_id`` raw ("Cell '…' does not exist in
the database": an ESC sequence or a carriage return in it forges a log line), and a grade or
solution cell nbgrader cannot find stops the student's grading (``KeyError: 'grade_id'``, 0 points)
while the batch command grades the cell as the student's own code (it skips only the release's
read-only cells, :func:`~autograder.grading.notebook.student_code`). :class:`ForgetUnknownCells`,
the first of the course's ``c.Autograde.sanitize_preprocessors``, takes the batch's reading on
nbgrader's path: the nbgrader metadata of every cell whose ``grade_id`` is not one of the release
notebook's is removed before any of nbgrader's steps sees it, with one log line naming the ids
escaped; both paths then give the same score.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode

from ..nbgrader_adapter import CourseDirectory, NbGraderPreprocessor
from ..output.safe_text import printable
from .generated_cells import grade_id

#: How many unknown ids the log line names (a notebook may hold thousands of cells).
NAMED_IDS = 5
#: How many characters of each id it shows (escaped).
SHOWN_CHARS = 64


def release_ids(release: NotebookNode) -> frozenset[str]:
    """The ``grade_id`` of every cell of the released notebook."""
    return frozenset(cell_id for cell in release.cells if (cell_id := grade_id(cell)) is not None)


def forget_unknown_cells(notebook: NotebookNode, known: frozenset[str]) -> list[str]:
    """Remove the nbgrader metadata of every cell whose ``grade_id`` is not in ``known``, in place.

    Parameters
    ----------
    notebook : NotebookNode
        The student's notebook.
    known : frozenset of str
        The release notebook's grade ids.

    Returns
    -------
    list of str
        What each such cell carried as its ``grade_id`` (``repr`` of a value that is no string), raw.
    """
    forgotten = []
    for cell in notebook.cells:
        metadata = cell.get("metadata")
        if not isinstance(metadata, dict) or "nbgrader" not in metadata:
            continue
        cell_id = grade_id(cell)
        if cell_id in known:
            continue
        value = metadata["nbgrader"].get("grade_id") if isinstance(metadata["nbgrader"], dict) else None
        forgotten.append(value if isinstance(value, str) else repr(value))
        del metadata["nbgrader"]
    return forgotten


class ForgetUnknownCells(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader ships no type information
    """Treat a cell whose nbgrader ``grade_id`` is not the release's as the student's own (see the module)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=self.config)
        path = Path(coursedir.root) / coursedir.release_directory / info["assignment"] / f"{info['notebook']}.ipynb"
        if not path.is_file():  # nothing to compare with: nbgrader's own steps judge against the gradebook
            return nb, resources
        forgotten = forget_unknown_cells(nb, release_ids(nbformat.read(path, as_version=4)))
        if forgotten:
            more = f" and {len(forgotten) - NAMED_IDS} more" if len(forgotten) > NAMED_IDS else ""
            self.log.warning(
                "%s: %d cell(s) carry an nbgrader id the release does not have (%s%s): graded as the "
                "student's own cells", printable(info["student"]), len(forgotten),
                ", ".join(f"'{printable(cell_id[:SHOWN_CHARS])}'" for cell_id in forgotten[:NAMED_IDS]), more,
            )
        return nb, resources
