"""``grade-by-hand``'s results where ``nbgrader autograde byhand`` leaves them, for the formgrader and the feedback.

nbgrader's own autograde of the by-hand assignment (the command, the formgrader's button) records
each step's score in the course's gradebook, applies the course's late penalties, and stores the
notebook with each step's outcome in ``autograded/<student>/byhand/`` with the grader's result
beside it. :func:`record_by_hand` does the same for the batch command, with the code part's own
steps: the gradebook step of ``python -m autograder grade`` (:func:`.gradebook_step.update_gradebook`,
nbgrader's API, whole students per transaction, nbgrader's late-penalty step), the step outputs of
the nbgrader path (:func:`.byhand.write_step_outputs`) and the sanitiser (:mod:`.sanitise`), and the
one feedback page (:mod:`.feedback_page`). So whichever path graded last, the formgrader, ``nbgrader
export``, ``generate_feedback`` and ``release_feedback`` show the same points.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat

from ..exercises.ndcg.byhand.exercise import ASSIGNMENT, BY_HAND, NOTEBOOK
from ..files import write_atomic
from ..grading import Status, StudentResult
from ..grading.notebook import SubmissionProblem
from ..grading.store import ResultStore
from ..output.feedback import render_feedback
from .byhand import write_step_outputs
from .feedback_page import page_path, result_document, result_name
from .gradebook_step import update_gradebook
from .sanitise import sanitise_notebook
from .submission_folder import Collected, read_collected, read_submitted_notebook, shipped_files


def write_autograded_by_hand(root: Path, result: StudentResult, files: dict[str, bytes]) -> bool:
    """Write ``autograded/<student>/byhand/`` for ``result``, as the course's ``nbgrader autograde`` does.

    The submitted notebook (read again, as safely as for grading) with each step's outcome as its
    output, the release's read-only cells put back and everything of the student's made inert; the
    grader's result and what ``nbgrader collect`` left (``timestamp.txt``) beside it. Returns
    whether it was written (an unreadable notebook gets no folder, as in nbgrader).
    """
    submitted = root / "submitted"
    try:
        notebook = read_submitted_notebook(submitted, result.student_id, ASSIGNMENT, NOTEBOOK)
    except SubmissionProblem:
        return False
    release_path = root / "release" / ASSIGNMENT / NOTEBOOK
    release = nbformat.read(release_path, as_version=4) if release_path.is_file() else None
    sanitise_notebook(write_step_outputs(notebook, result), release)
    folder = root / "autograded" / result.student_id / ASSIGNMENT
    write_atomic(folder / NOTEBOOK, nbformat.writes(notebook))
    write_atomic(folder / result_name(NOTEBOOK), result_document(result).decode("utf-8"))
    for name, content in files.items():
        write_atomic(folder / name, content.decode("utf-8", "replace"))
    return True


def record_by_hand(root: Path, results: list[StudentResult], gradebook: str | None = None) -> tuple[
        list[StudentResult], str, bool]:
    """Record the batch's by-hand ``results`` in the course: gradebook, late penalties, autograded/, feedback/.

    Parameters
    ----------
    root : Path
        The course directory.
    results : list of StudentResult
        :func:`.byhand.grade_folder`'s results.
    gradebook : str or None
        ``--gradebook``: None for the course's (``c.CourseDirectory.db_url``), ``"none"`` to skip, or a URL.

    Returns
    -------
    tuple
        The results with the gradebook's lateness and marks, the gradebook's one-line note, and
        whether the gradebook could not be updated (the files on disk stand).
    """
    submitted = root / "submitted"
    keep = shipped_files(root, ASSIGNMENT) | {NOTEBOOK}
    collected: dict[str, Collected] = {}
    for result in results:
        found = read_collected(submitted, result.student_id, ASSIGNMENT, keep)
        result.warnings.extend(found.warnings)
        collected[result.student_id] = found
    written = {result.student_id for result in results
               if write_autograded_by_hand(root, result, collected[result.student_id].files)}
    # a class's by-hand results are small (no outputs of code): the store is only the gradebook step's interface
    with tempfile.TemporaryDirectory(prefix="byhand-") as folder:
        store = ResultStore.of(Path(folder), results)
        try:
            note, failed = update_gradebook(root, gradebook, BY_HAND, store, collected)
            results = list(store)
        finally:
            store.close()
    for result in results:  # the one page, where generate_feedback and release_feedback find it
        if result.student_id in written and result.status not in (Status.MISSING, Status.NOT_GRADED):
            page = page_path(root, BY_HAND, result.student_id)
            write_atomic(page, render_feedback(BY_HAND, result))
            # release_feedback names the released page by submission_secret.txt beside it
            for name, content in collected[result.student_id].files.items():
                write_atomic(page.parent / name, content.decode("utf-8", "replace"))
    return results, note, failed
