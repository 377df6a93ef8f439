"""The batch command's ``autograded/`` notebooks: what ``nbgrader autograde`` with the sandbox leaves.

For each graded submission: the student's notebook with the release's read-only cells put back
(as nbgrader's ``OverwriteCells`` does, and with the release's outputs, never the student's), every
test cell's outcome as its output, hidden test cells showing only what they check, everything of
the student's made inert (:mod:`..notebook_cells.sanitise`), and nbgrader's ``timestamp.txt`` and the grader's result
(:mod:`..handback.feedback_page`) beside it, in ``autograded/<student>/<assignment>/`` where the formgrader looks.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path

import nbformat

from ...files import write_changed
from ...grading import BatchResult, Exercise, Status, StudentResult
from ...grading.reading.notebook import NotebookFile, notebook_node, read_notebook
from ..handback.feedback_page import result_document, result_name
from ..notebook_cells.generated_cells import grade_id, skipped_cell_ids, student_code_cells
from ..notebook_cells.notebook_nodes import checked_text
from ..notebook_cells.sanitise import sanitise_notebook
from .preprocessor import write_outcomes


def autograded_notebook(
    file: NotebookFile, release: nbformat.NotebookNode, exercise: Exercise, result: StudentResult, timeout: float,
    skip: frozenset[str],
) -> nbformat.NotebookNode:
    """The autograded version of a submitted notebook (``file``) for ``result``.

    Raises
    ------
    SubmissionProblem
        For a notebook outside the reader's bounds (:func:`~autograder.grading.reading.notebook.notebook_node`).
    """
    notebook = notebook_node(file)
    locked = {grade_id(cell): cell for cell in release.cells if grade_id(cell) in skip}
    for cell in notebook.cells:
        original = locked.get(grade_id(cell))
        if original is not None and cell.cell_type == "code":  # whatever the student did to a test or helper cell
            cell.source, cell.outputs = original.source, copy.deepcopy(original.outputs)
    write_outcomes(notebook, exercise, result, student_code_cells(notebook, skip), timeout)
    return sanitise_notebook(notebook, release)


def write_autograded(
    root: Path, submitted: Path, exercise: Exercise, batch: BatchResult, timeout: float,
    collected: dict[str, dict[str, bytes]], max_bytes: int, *, show_solution: bool = False,
    students: Iterable[StudentResult] | None = None,
) -> int:
    """Write ``root/autograded/<student>/<assignment>/`` for every graded student; return how many.

    ``students`` (default ``batch.students``) is read once, one at a time.
    """
    release_path = root / "release" / exercise.assignment / exercise.notebook
    if not release_path.is_file():
        return 0
    release = nbformat.read(release_path, as_version=4)
    skip = skipped_cell_ids(exercise, release_path)
    written = 0
    for student in batch.students if students is None else students:
        if not student.tests and student.status is not Status.NOT_ATTEMPTED:
            continue  # not graded: nbgrader leaves no autograded folder either (a stub is graded: 0 points)
        try:
            file = read_notebook(
                submitted, student.student_id, exercise.assignment, exercise.notebook, max_bytes=max_bytes
            )
            text = checked_text(autograded_notebook(file, release, exercise, student, timeout, skip))
        except Exception:
            # notebook: no autograded notebook for this student (as nbgrader leaves none), the others are written
            continue
        folder = root / "autograded" / student.student_id / exercise.assignment
        # a file whose bytes are already there is left alone: a re-run touches only what changed
        write_changed(folder / exercise.notebook, text)
        # the result the student's page is written from, whichever command writes it (.feedback_page)
        write_changed(folder / result_name(exercise.notebook),
                     result_document(student, show_solution=show_solution).decode("utf-8"))
        for name, content in collected.get(student.student_id, {}).items():
            write_changed(folder / name, content.decode("utf-8", "replace"))
        written += 1
    return written
