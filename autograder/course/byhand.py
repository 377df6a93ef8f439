"""The by-hand assignment in the course directory: its source notebook, its release, its grading.

The assignment ``byhand`` (Task 1.2, nDCG by hand) is graded without running anything the student
wrote: the answers are read as numbers (:mod:`..exercises.ndcg.byhand.answers`) and compared with
the values of the student's own list, which is derived again from the folder the submission is
filed under (``submitted/<student_id>/byhand/``) and the salt and pool *the release* publishes;
whatever the submitted notebook's cells say about them is ignored. The batch command
(:func:`grade_folder`) and nbgrader's own autograde (:class:`.preprocessor.SandboxedExecute`) both
grade through :func:`grade_notebook`, so they give the same points.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode

from ..errors import CourseError
from ..exercises.ndcg.byhand import cells
from ..exercises.ndcg.byhand.answers import read_answers
from ..exercises.ndcg.byhand.derive import CUTOFF, student_list
from ..exercises.ndcg.byhand.exercise import ASSIGNMENT as ASSIGNMENT  # re-exported: the course speaks of them
from ..exercises.ndcg.byhand.exercise import NOTEBOOK as NOTEBOOK
from ..exercises.ndcg.byhand.marking import MAX_SCORE, STEPS, mark
from ..grading import Status, StudentResult, student_folders
from ..grading.notebook import SubmissionProblem
from .submission_folder import read_submitted_notebook, require_submissions

#: The salt of a course that has not chosen one (``python -m autograder variants`` chooses one per roster).
DEFAULT_SALT = "ir-ranking-evaluation-byhand-0"
POOL_FILE = Path(__file__).resolve().parents[1] / "exercises" / "ndcg" / "byhand" / "pool.b64"


def _meta(grade_id: str, *, grade: bool = False, solution: bool = False, points: float | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
                  "solution": solution}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def source_notebook(salt: str, pool: str) -> NotebookNode:
    """The by-hand source notebook: task, derivation cell, answer cell, one grade cell per step."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.cells = [
        nbformat.v4.new_markdown_cell(cells.task_markdown(), metadata=_meta(cells.TASK_ID)),
        nbformat.v4.new_code_cell(cells.derivation_source(salt, pool), metadata={
            **_meta(cells.DERIVATION_ID), "jupyter": {"source_hidden": True}}),
        nbformat.v4.new_code_cell(cells.answers_source(), metadata=_meta(cells.ANSWERS_ID, solution=True)),
        *(nbformat.v4.new_code_cell(cells.step_source(step.grade_id),
                                    metadata=_meta(step.grade_id, grade=True, points=step.points)) for step in STEPS),
    ]
    for cell in notebook.cells:  # ids from the grade ids: the same notebook every time it is written
        cell.id = cell.metadata["nbgrader"]["grade_id"].replace("_", "-")
    return notebook


def current_salt(path: Path) -> str:
    """The salt the notebook at ``path`` publishes (the default where there is no notebook yet)."""
    if not path.is_file():
        return DEFAULT_SALT
    return published_variant(nbformat.read(path, as_version=4))[0]


def write_source(root: Path, salt: str | None = None) -> Path:
    """Write ``source/byhand/byhand.ipynb`` (keeping its salt unless ``salt`` is given); return its path."""
    path = root / "source" / ASSIGNMENT / NOTEBOOK
    salt = salt if salt is not None else current_salt(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(source_notebook(salt, POOL_FILE.read_text(encoding="ascii").strip()), path)
    return path


def published_variant(release: NotebookNode) -> tuple[str, str]:
    """The salt and pool of a (released) notebook's derivation cell.

    Raises
    ------
    CourseError
        If the notebook has no derivation cell publishing them.
    """
    for cell in release.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == cells.DERIVATION_ID:
            try:
                return cells.published(cell.source)
            except (ValueError, SyntaxError) as error:
                raise CourseError(f"the release's derivation cell is damaged: {error}") from None
    raise CourseError(f"the notebook has no cell {cells.DERIVATION_ID!r}: regenerate the release (make release)")


def release_variant(root: Path) -> tuple[str, str]:
    """The salt and pool of ``release/byhand/byhand.ipynb``: what every student's list came from."""
    path = root / "release" / ASSIGNMENT / NOTEBOOK
    if not path.is_file():
        raise CourseError(f"no released by-hand notebook at {path}: run `python -m autograder release` first")
    return published_variant(nbformat.read(path, as_version=4))


def _grade_id(cell: NotebookNode) -> object:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if isinstance(meta, dict) else None


def grade_notebook(student_id: str, notebook: NotebookNode, salt: str, pool: str) -> StudentResult:
    """Grade one submitted by-hand notebook for ``student_id`` (from the folder it is filed under)."""
    answer = [c for c in notebook.cells if _grade_id(c) == cells.ANSWERS_ID]
    if not answer:
        return StudentResult.without_grading(student_id, Status.ERROR, "the notebook has no answer cell "
                                             f"({cells.ANSWERS_ID}): download the assignment again", MAX_SCORE)
    source = answer[0].source if isinstance(answer[0].source, str) else ""
    return mark(student_id, read_answers(source), student_list(student_id, salt, pool), CUTOFF)


def grade_folder(root: Path) -> list[StudentResult]:
    """The batch command: grade every ``submitted/<id>/byhand/byhand.ipynb``; a bad notebook costs only its student."""
    salt, pool = release_variant(root)
    submitted = root / "submitted"
    require_submissions(submitted, ASSIGNMENT, NOTEBOOK)
    results = []
    for student in student_folders(submitted):
        if not os.path.lexists(submitted / student / ASSIGNMENT):
            continue  # a student of the other assignment only
        try:
            notebook = read_submitted_notebook(submitted, student, ASSIGNMENT, NOTEBOOK)
        except SubmissionProblem as problem:
            results.append(StudentResult.without_grading(student, problem.status, problem.message, MAX_SCORE))
            continue
        results.append(grade_notebook(student, notebook, salt, pool))
    return results


def release_by_hand(root: Path) -> Path:
    """Write the by-hand source notebook and release it with ``nbgrader generate_assignment``; return the release."""
    from ..output.gradebook import check_gradebook
    from .nbgrader import run_nbgrader

    check_gradebook(root / "gradebook.db")
    write_source(root)
    run_nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    return root / "release" / ASSIGNMENT / NOTEBOOK


def write_step_outputs(nb: NotebookNode, result: StudentResult) -> NotebookNode:
    """Each step's grade cell gets its outcome as output, the last one also the student's list worked through.

    An error output scores 0 in nbgrader's ``SaveAutoGrades``, anything else full points; every
    other code cell's outputs are cleared (what the student's own kernel printed is not believed).
    """
    outcomes = {test.name: test for test in result.tests}
    for cell in nb.cells:
        cell_id = _grade_id(cell)
        if cell.cell_type != "code":
            continue
        if cell_id not in {step.grade_id for step in STEPS}:
            cell.outputs = []
        elif (test := outcomes.get(str(cell_id))) is not None and test.passed:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"passed: {test.message}\n")]
        else:
            message = test.message if test is not None else result.message
            cell.outputs = [nbformat.v4.new_output("error", ename="StepWrong", evalue=message,
                                                   traceback=[f"StepWrong: {message}"])]
        if cell_id == STEPS[-1].grade_id:  # after the last step: the student's list worked through
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=f"\n{result.message}\n"))
    return nb


def grade_by_hand(nb: NotebookNode, student: str, log: logging.Logger) -> StudentResult:
    """nbgrader's autograde of a by-hand notebook (from :class:`.preprocessor.SandboxedExecute`).

    The same :func:`grade_notebook` as the batch command, for the student nbgrader files the
    submission under, with the release's salt and pool (nbgrader runs from the course directory);
    the outcomes are written into ``nb`` by :func:`write_step_outputs`. Returns the result.
    """
    try:
        result = grade_notebook(student, nb, *release_variant(Path.cwd()))
    except CourseError as error:  # no release: every step scores 0, with the reason
        result = StudentResult.without_grading(student, Status.ERROR, str(error), MAX_SCORE)
    log.info("%s: by hand, %g of %g points", student, result.score, result.max_score)
    write_step_outputs(nb, result)
    return result
