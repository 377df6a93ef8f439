"""The gradebook step after grading, for every batch command: record, late penalties, marks read back.

``python -m autograder grade`` (the whole notebook: the by-hand part and the code) ends
here, so its scores reach nbgrader's gradebook as ``nbgrader autograde`` leaves them: the
notebook's cells recorded as ``generate_assignment`` does (if the gradebook lacks them), each grade
cell's score with whole students per transaction (:func:`.scores.try_record_scores`), the
course's late penalties by nbgrader's own step (:func:`.late_penalties.apply_late_penalties`), and the tutors'
marks and lateness read back into each result (:mod:`.read_back`) for the pages written next.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from ..errors import GradebookError
from ..grading import BatchResult, Exercise, GroupInfo, Lateness, ManualMarks, Status
from ..grading.store import ResultStore
from .assignment_cells import MissingSource, record_assignment_cells
from .late_penalties import apply_late_penalties
from .read_back import iter_gradebook_views, notebook_order
from .scores import check_gradebook, gradebook_errors, gradebook_path, tool_environment, try_record_scores
from .url import course_gradebook


def record_cells(root: Path, url: str, exercise: Exercise) -> str:
    """Record the notebook's cells as generate_assignment does, if the gradebook lacks them; a note or ""."""
    path = gradebook_path(url)
    with gradebook_errors(path):
        if path is not None:
            check_gradebook(path)
        os.environ["PATH"] = tool_environment()["PATH"]  # nbgrader runs `alembic` to create a gradebook
        try:
            record_assignment_cells(root, url, exercise.assignment, exercise.notebook)
        except MissingSource as missing:
            return f" ({missing})"
    return ""


def _set_view(store: ResultStore, student_id: str, late: Lateness | None, manual: ManualMarks | None) -> None:
    student = store.get(student_id)
    student.late, student.manual = late, manual
    store.put(student)


def update_gradebook(
    root: Path | None, option: str | None, exercise: Exercise, store: ResultStore,
    timestamps: dict[str, datetime],
) -> tuple[str, bool]:
    """Record the scores, apply the course's late penalties, read back the marks; the note and whether it failed.

    Parameters
    ----------
    root : Path or None
        The course directory (None: outside a course, only ``option``'s gradebook).
    option : str or None
        ``--gradebook``: None for the course's, ``"none"`` to skip, or a URL.
    exercise : Exercise
        What was graded: its assignment, notebook and grade cells.
    store : ResultStore
        The students' results, in the batch's order.
    timestamps : dict
        Each student's submission time, where ``nbgrader collect`` left a readable ``timestamp.txt``.

    Each student's ``late`` and ``manual`` then hold what the gradebook says (the tutors' marks from
    formgrader included), so every output shows the final score. A failure leaves the results on
    disk as graded (without lateness or marks): it is the note's to say.
    """
    batch = BatchResult(
        assignment=exercise.assignment, notebook=exercise.notebook, title=exercise.title,
        max_score=exercise.max_score, sandbox="", students=store,
        groups=[GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in exercise.graded_groups],
    )
    try:  # the gradebook nbgrader's configuration names, as `nbgrader export` and the formgrader read it
        with gradebook_errors():
            target = course_gradebook(root, option)
    except GradebookError as error:
        return f"gradebook: {error}", True
    if target is None:
        return "gradebook: skipped", False
    url = target.url
    try:
        # the cells generate_assignment records, if the gradebook lacks them
        cells_note = record_cells(root, url, exercise) if root is not None else ""
        note, refused = try_record_scores(url, exercise, batch, timestamps, course_id=target.course_id)
        recorded = [  # ids only: the records stay in the store
            student for student, status in zip(store.student_ids, store.statuses(), strict=True)
            if status not in (Status.MISSING, Status.NOT_GRADED, Status.REFUSED) and student not in refused
        ]
    except GradebookError as error:
        return f"gradebook: {error}", True
    try:  # nbgrader's own late-penalty step, as `nbgrader autograde` runs it after recording the scores
        with gradebook_errors():
            apply_late_penalties(
                root, url, exercise.assignment, Path(exercise.notebook).stem, recorded
            )
    except GradebookError as error:  # the scores are recorded; the penalties are not: say which
        note, failed = f"{note}; late penalties {str(error).replace('NOT updated', 'NOT applied')}", True
    else:
        failed = False
    read: list[str] = []
    try:  # what every output shows: the gradebook's marks (formgrader's manual grading) and lateness
        with gradebook_errors():
            order = notebook_order(root, exercise) if root is not None else []
            # a chunk of views at a time, each put in the store as it comes: a record read from the
            # store is a copy, put back with what changed
            for student_id, view in iter_gradebook_views(url, exercise.assignment, Path(exercise.notebook).stem,
                                                         recorded, order):
                _set_view(store, student_id, view.late, view.manual)
                read.append(student_id)
    except GradebookError as error:
        note, failed = f"{note}; manual marks {str(error).replace('NOT updated', 'NOT read')}", True
        for student_id in read:  # all or none: the results stay as graded, as the note says
            _set_view(store, student_id, None, None)
    for student_id, reason in refused.items():  # that student's problem, shown with their result
        student = store.get(student_id)
        student.warnings.append(f"not recorded in the gradebook: {reason}")
        store.put(student)
    return note + cells_note, failed
