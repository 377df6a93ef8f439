"""The grader's scores as nbgrader's gradebook rows: written in bulk, whole students per transaction.

nbgrader's ``add_submission`` commits a submission with empty grades, and its ``SaveAutoGrades``
fills them in later: in between (or for ever, after a ``kill -9``) an export shows that student
at 0 points. Here a new student's rows (the student, the submission, a submitted notebook per
notebook of the assignment, a grade or comment per cell, as ``add_submission`` makes them) are
inserted with the scores already in them, and a transaction holds only whole students: after any
interruption each student is in the gradebook with their scores, or not at all.

Rows are written with SQLAlchemy's bulk statements on nbgrader's own tables, a few hundred
students per statement; a student the database refuses (a name too long for PostgreSQL, say) is
found by writing that batch again one student at a time, and costs no one else. A re-record
reads the grades of a chunk of students in one query and writes only the grades and times that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

#: Students per transaction: big enough for bulk statements, small enough to lose little to a kill.
CHUNK = 500


@dataclass(frozen=True)
class NotebookCells:
    """One notebook of the assignment, as ``add_submission`` mirrors it in each submission."""

    notebook_id: str
    #: Grade cells and task cells: cell name -> cell id (each gets a grade row).
    graded: dict[str, str]
    #: Solution cells and task cells: their ids (each gets a comment row).
    commented: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    """The assignment's ids in the gradebook, read once per recording."""

    assignment_id: str
    #: The graded notebook's id.
    notebook_id: str
    notebooks: tuple[NotebookCells, ...]


@dataclass(frozen=True)
class StudentScores:
    """What to record for one student: the grader's points per grade cell and the submission's time."""

    student_id: str
    #: grade id -> points, for every grade cell the grader scores (others keep nbgrader's defaults).
    points: dict[str, float]
    #: UTC without a zone, as nbgrader stores it; None: unknown (an existing time is kept).
    timestamp: datetime | None


def read_layout(gradebook: Any, assignment: str, notebook_id: str) -> Layout:
    """The ids of ``assignment``, its notebooks and cells (the graded one is ``notebook_id``)."""
    found = gradebook.find_assignment(assignment)
    notebooks = []
    graded_id = ""
    for notebook in found.notebooks:
        if notebook.name == notebook_id:
            graded_id = notebook.id
        graded = {cell.name: cell.id for cell in [*notebook.grade_cells, *notebook.task_cells]}
        commented = tuple(cell.id for cell in [*notebook.solution_cells, *notebook.task_cells])
        notebooks.append(NotebookCells(notebook.id, graded, commented))
    return Layout(found.id, graded_id, tuple(notebooks))


def _chunks(items: Iterable[StudentScores], size: int) -> Iterator[list[StudentScores]]:
    part: list[StudentScores] = []
    for item in items:
        part.append(item)
        if len(part) == size:
            yield part
            part = []
    if part:
        yield part


def _committed(db: Any, write: Callable[[Sequence[StudentScores]], None], part: Sequence[StudentScores],
               refused: dict[str, str]) -> None:
    """``write(part)`` in one transaction; if the database refuses it, each student alone (the culprit is refused)."""
    try:
        write(part)
        db.commit()
        return
    except Exception as error:
        db.rollback()
        if len(part) == 1:
            refused[part[0].student_id] = f"the gradebook refused it ({type(error).__name__})"
            return
    for student in part:
        _committed(db, write, [student], refused)


def _insert_new(db: Any, layout: Layout, part: Sequence[StudentScores]) -> None:
    from sqlalchemy import select

    from ..nbgrader_adapter import Comment, Grade, Student, SubmittedAssignment, SubmittedNotebook, new_uuid

    ids = [student.student_id for student in part]
    known = set(db.scalars(select(Student.id).where(Student.id.in_(ids))))
    students = [{"id": i, "first_name": None, "last_name": None, "email": None, "lms_user_id": None}
                for i in ids if i not in known]
    submissions, notebooks, grades, comments = [], [], [], []
    for student in part:
        submission = new_uuid()
        submissions.append({"id": submission, "assignment_id": layout.assignment_id,
                            "student_id": student.student_id, "timestamp": student.timestamp, "extension": None})
        for notebook in layout.notebooks:
            submitted = new_uuid()
            notebooks.append({"id": submitted, "assignment_id": submission, "notebook_id": notebook.notebook_id,
                              "flagged": False, "late_submission_penalty": None})
            scored = student.points if notebook.notebook_id == layout.notebook_id else {}
            for name, cell in notebook.graded.items():
                # as SaveAutoGrades leaves it: the grader's score, no manual grading asked for
                grades.append({"id": new_uuid(), "notebook_id": submitted, "cell_id": cell,
                               "auto_score": scored.get(name), "manual_score": None, "extra_credit": None,
                               "needs_manual_grade": name not in scored})
            comments += [{"id": new_uuid(), "notebook_id": submitted, "cell_id": cell, "auto_comment": None,
                          "manual_comment": None} for cell in notebook.commented]
    for table, rows in ((Student, students), (SubmittedAssignment, submissions), (SubmittedNotebook, notebooks),
                        (Grade, grades), (Comment, comments)):
        if rows:
            db.execute(table.__table__.insert(), rows)


def _current(db: Any, layout: Layout, students: Sequence[str]
             ) -> tuple[dict[tuple[str, str], tuple[str, Any, Any, bool]], dict[str, str]]:
    """Every grade of the graded notebook of ``students`` (a chunk): (student, cell name) -> (grade id, auto,
    manual, needs); and each one's submitted notebook id. Two queries per chunk."""
    from sqlalchemy import select

    from ..nbgrader_adapter import Grade, SubmittedAssignment, SubmittedNotebook

    names = {cell: name for notebook in layout.notebooks for name, cell in notebook.graded.items()
             if notebook.notebook_id == layout.notebook_id}
    of_notebook = (SubmittedNotebook.notebook_id == layout.notebook_id,
                   SubmittedAssignment.assignment_id == layout.assignment_id,
                   SubmittedAssignment.student_id.in_(students))
    submitted = {student: notebook for student, notebook in db.execute(
        select(SubmittedAssignment.student_id, SubmittedNotebook.id)
        .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
        .where(*of_notebook)
    ).tuples()}
    rows = db.execute(
        select(SubmittedAssignment.student_id, Grade.cell_id, Grade.id, Grade.auto_score, Grade.manual_score,
               Grade.needs_manual_grade)
        .join(SubmittedNotebook, SubmittedNotebook.id == Grade.notebook_id)
        .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
        .where(*of_notebook)
    ).tuples()
    grades = {(student, names[cell]): (grade, auto, manual, needs)
              for student, cell, grade, auto, manual, needs in rows if cell in names}
    return grades, submitted


def _update_existing(db: Any, layout: Layout, part: Sequence[StudentScores],
                     grades: dict[tuple[str, str], tuple[str, Any, Any, bool]], submitted: dict[str, str],
                     times: dict[str, tuple[str, datetime | None]]) -> None:
    from sqlalchemy import bindparam, update

    from ..nbgrader_adapter import Grade, SubmittedAssignment, new_uuid

    cells = next(n.graded for n in layout.notebooks if n.notebook_id == layout.notebook_id)
    changed, added, moved = [], [], []
    for student in part:
        for name, points in student.points.items():
            found = grades.get((student.student_id, name))
            if found is None:  # a grade cell added after this submission was recorded
                added.append({"id": new_uuid(), "notebook_id": submitted[student.student_id], "cell_id": cells[name],
                              "auto_score": points, "manual_score": None, "extra_credit": None,
                              "needs_manual_grade": False})
                continue
            grade, auto, manual, needs = found
            # a score a tutor set by hand (manual_score) still wins; as in nbgrader it asks for a look
            # again when the grader's score under it changed, but not when a re-run only reads it
            # back (else every `grade` after manual grading would undo the tutor's review)
            wanted = (manual is not None) if (auto != points or manual is None) else needs
            if auto != points or needs != wanted:
                changed.append({"grade": grade, "auto": points, "needs": wanted})
        submission, before = times[student.student_id]
        if student.timestamp is not None and student.timestamp != before:
            moved.append({"submission": submission, "time": student.timestamp})
    table = Grade.__table__
    if changed:
        db.execute(update(table).where(table.c.id == bindparam("grade"))
                   .values(auto_score=bindparam("auto"), needs_manual_grade=bindparam("needs")), changed)
    if added:
        db.execute(table.insert(), added)
    if moved:
        submissions = SubmittedAssignment.__table__
        db.execute(update(submissions).where(submissions.c.id == bindparam("submission"))
                   .values(timestamp=bindparam("time")), moved)


def write_scores(gradebook: Any, layout: Layout, scores: Iterable[StudentScores], chunk: int | None = None,
                 ) -> dict[str, str]:
    """Record ``scores`` in ``gradebook`` (nbgrader's, open); return the students it refused, with why.

    ``scores`` are read ``chunk`` (default :data:`CHUNK`) students at a time, and only that
    chunk's rows are asked of the database: the memory is a chunk's, whatever the class's size.
    New students get their whole submission with the scores in one transaction per chunk;
    students already there get only what changed (a re-run that changed nothing writes nothing).
    Nothing is half-written for anyone.
    """
    from sqlalchemy import select, text

    from ..nbgrader_adapter import SubmittedAssignment

    db = gradebook.db
    chunk = chunk or CHUNK
    refused: dict[str, str] = {}
    inserted = 0
    for part in _chunks(scores, chunk):
        times = {student: (submission, time) for student, submission, time in db.execute(
            select(SubmittedAssignment.student_id, SubmittedAssignment.id, SubmittedAssignment.timestamp)
            .where(SubmittedAssignment.assignment_id == layout.assignment_id,
                   SubmittedAssignment.student_id.in_([student.student_id for student in part]))
        ).tuples()}
        db.commit()  # the read's transaction: each write below is a transaction of its own
        new = [student for student in part if student.student_id not in times]
        if new:
            _committed(db, partial(_insert_new, db, layout), new, refused)
            inserted += len(new)
        old = [student for student in part if student.student_id in times]
        if old:
            grades, submitted = _current(db, layout, [student.student_id for student in old])
            db.commit()
            update = partial(_update_existing, db, layout, grades=grades, submitted=submitted, times=times)
            _committed(db, update, old, refused)
    if inserted > chunk and db.get_bind().dialect.name == "postgresql":
        # fresh statistics, or PostgreSQL plans the next run's joins for the empty tables it last saw
        db.execute(text("ANALYZE submitted_assignment, submitted_notebook, grade"))
        db.commit()
    return refused
