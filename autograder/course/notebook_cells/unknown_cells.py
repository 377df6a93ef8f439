"""A student cell claiming an nbgrader id the release does not have is an ordinary student cell.

nbgrader's ``OverwriteCells`` prints such a cell's ``grade_id`` raw ("Cell '…' does not exist in
the database": an ESC sequence or a carriage return in it forges a log line), and a grade or
solution cell nbgrader cannot find stops the student's grading (``KeyError: 'grade_id'``, 0 points)
while the batch command grades the cell as the student's own code (it skips only the release's
read-only cells, :func:`~autograder.grading.reading.notebook.student_code`). :class:`ForgetUnknownCells`,
the first of the course's ``c.Autograde.sanitize_preprocessors``, takes the batch's reading on
nbgrader's path: the nbgrader metadata of every cell whose ``grade_id`` is not one of the release
notebook's is removed before any of nbgrader's steps sees it, with one log line naming the ids
escaped; both paths then give the same score.

A cell that carries a release's ``grade_id`` gets the release cell's nbgrader metadata, whatever
the student's says: nbgrader's ``OverwriteCells`` puts back the cell type, ``locked`` and the
points but not ``grade``, ``solution`` or ``task``, and reads what it leaves. The red team's third
round changed one flag or value each in eight notebooks (``grade: true`` on the ``dcg`` answer cell,
on the helper cell or on a markdown cell; ``points: "abc"`` or ``null`` on a test; ``grade: false``
on a test; ``task: true`` on the answer cell; ``schema_version: 99``): the batch graded each 15/15,
nbgrader's path stopped each student with a traceback (``MissingEntry``, ``ValueError``,
``TypeError``, ``RuntimeError``, ``ValidationError``, ``SchemaTooNewError``) and no score. Which
cell is a test, an answer or a task is the release's word, as in the batch (which never reads the
student's flags); the log line names the cells whose metadata were put back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode

from ...exercises import EXERCISES
from ...nbgrader_adapter import CourseDirectory, NbGraderPreprocessor
from ...output.safe_text import first_few, printable
from .generated_cells import grade_id
from .retyped_cells import quiet_retyped_answers, release_cells

#: How many unknown ids the log line names (a notebook may hold thousands of cells).
NAMED_IDS = 5
#: How many characters of each id it shows (escaped).
SHOWN_CHARS = 64


def release_metadata(release: NotebookNode) -> dict[str, dict[str, Any]]:
    """The nbgrader metadata of the released notebook's cells, by ``grade_id`` (the first cell of each id)."""
    return {cell_id: metadata for cell_id, (_, metadata) in release_cells(release).items()}


def _quoted(cell_id: str) -> str:
    """An id as the log names it: quoted, escaped, at most :data:`SHOWN_CHARS` characters (a student's may be long)."""
    return f"'{printable(cell_id[:SHOWN_CHARS])}'"


def forget_unknown_cells(notebook: NotebookNode, known: Mapping[str, dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Give each cell the release's nbgrader metadata for its ``grade_id``, or none, in place.

    Parameters
    ----------
    notebook : NotebookNode
        The student's notebook.
    known : mapping of str to dict
        The release notebook's nbgrader metadata by grade id (:func:`release_metadata`).

    Returns
    -------
    forgotten : list of str
        What each cell whose id the release lacks carried as its ``grade_id`` (``repr`` of a value
        that is no string), raw; its nbgrader metadata is removed.
    restored : list of str
        The release's ids whose cell carried other nbgrader metadata than the release's; put back.
    """
    forgotten: list[str] = []
    restored: list[str] = []
    for cell in notebook.cells:
        metadata = cell.get("metadata")
        if not isinstance(metadata, dict) or "nbgrader" not in metadata:
            continue
        cell_id = grade_id(cell)
        if cell_id is not None and cell_id in known:
            if metadata["nbgrader"] != known[cell_id]:
                restored.append(cell_id)
                metadata["nbgrader"] = copy.deepcopy(known[cell_id])
            continue
        value = metadata["nbgrader"].get("grade_id") if isinstance(metadata["nbgrader"], dict) else None
        forgotten.append(value if isinstance(value, str) else repr(value))
        del metadata["nbgrader"]
    return forgotten, restored


class ForgetUnknownCells(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader ships no type information
    """Treat a cell whose nbgrader ``grade_id`` is not the release's as the student's own (see the module)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=self.config)
        path = Path(coursedir.root) / coursedir.release_directory / info["assignment"] / f"{info['notebook']}.ipynb"
        if not path.is_file():  # nothing to compare with: nbgrader's own steps judge against the gradebook
            return nb, resources
        release = nbformat.read(path, as_version=4)
        forgotten, restored = forget_unknown_cells(nb, release_metadata(release))
        exercise = EXERCISES.get(info["assignment"])  # another assignment: nbgrader's own steps judge it
        answered = exercise.answered if exercise else None
        retyped = quiet_retyped_answers(nb, release_cells(release), answered.cell_ids if answered else frozenset())
        student = printable(info["student"])
        if retyped:
            self.log.warning("%s: answer cell(s) %s are not code cells in the submitted notebook: not run, as in "
                             "the batch", student, first_few(retyped, NAMED_IDS, _quoted))
        if restored:
            self.log.warning("%s: the nbgrader metadata of %d cell(s) differ from the release's (%s): the release's "
                             "put back", student, len(restored), first_few(restored, NAMED_IDS, _quoted))
        if forgotten:
            self.log.warning("%s: %d cell(s) carry an nbgrader id the release does not have (%s): graded as the "
                             "student's own cells", student, len(forgotten), first_few(forgotten, NAMED_IDS, _quoted))
        return nb, resources
