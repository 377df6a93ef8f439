"""What the gradebook holds for a graded submission: the tutors' marks and comments, the lateness, the total.

The gradebook is the single source of truth for final scores: formgrader's manual grading writes a
test's ``manual_score`` (which wins over the grader's ``auto_score``), ``extra_credit`` and a
cell's ``manual_comment`` there, and the late-penalty step writes the penalty. Every output of the
kit that shows a final score (the table, ``results.json``, ``grades.csv``, the report, the
student's page) reads them here, after the grader's scores were recorded, with nbgrader's own
models.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..grading import CellMark, Exercise, Lateness, ManualMarks, StudentResult
from .database import open_gradebook
from .late_penalties import lateness_of


@dataclass(frozen=True)
class GradebookView:
    """One submission as the gradebook holds it (None: not in the gradebook)."""

    manual: ManualMarks | None
    late: Lateness | None

    def applied_to(self, result: StudentResult) -> StudentResult:
        """``result`` with these marks and this lateness (the grader's own fields unchanged)."""
        return replace(result, manual=self.manual, late=self.late, warnings=list(result.warnings))


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def manual_marks_of(notebook: Any, order: Sequence[str] = ()) -> ManualMarks:
    """The tutors' marks on nbgrader's ``SubmittedNotebook`` (its grades and comments loaded).

    Parameters
    ----------
    notebook : nbgrader.api.SubmittedNotebook
    order : sequence of str
        The notebook's cell ids in the notebook's order; the marks follow it (others come last, by name).
    """
    scores = {grade.name: grade for grade in notebook.grades}
    comments = {comment.name: comment.manual_comment for comment in notebook.comments if comment.manual_comment}
    marks = []
    for name in sorted(set(scores) | set(comments), key=lambda name: (_position(order, name), name)):
        grade = scores.get(name)
        manual = None if grade is None else _number(grade.manual_score)
        extra = 0.0 if grade is None else float(grade.extra_credit or 0.0)
        comment = comments.get(name)
        if manual is None and not extra and not comment:
            continue  # the grader's score alone: nothing a tutor did
        marks.append(CellMark(cell=name, auto_score=None if grade is None else _number(grade.auto_score),
                              manual_score=manual, extra_credit=extra, comment=comment))
    # nbgrader's own rule per grade (``Grade.score``, loaded with the row), summed as its
    # ``SubmittedNotebook.score`` does (that one is deferred: a query per student)
    return ManualMarks(tuple(marks), sum(float(grade.score) for grade in notebook.grades))


def _position(order: Sequence[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


#: Students read per query set: the ORM objects of one chunk are held at a time, not the class's.
CHUNK = 500


def iter_gradebook_views(db_url: str, assignment: str, notebook_id: str, students: Sequence[str],
                         order: Sequence[str] = (), chunk: int | None = None) -> Iterator[tuple[str, GradebookView]]:
    """Each of ``students``' marks and lateness, as (student id, view), ``chunk`` (default :data:`CHUNK`)
    students per query set.

    A student without a submission in the gradebook is left out. The session forgets each chunk's
    rows before the next (nbgrader's models of every grade and comment took about 28 KB per student
    when the class was read at once). Raises whatever nbgrader and SQLAlchemy raise for a gradebook
    that cannot be read; callers wrap it (:func:`autograder.gradebook.scores.gradebook_errors`).
    """
    chunk = chunk or CHUNK
    with open_gradebook(db_url) as gradebook:
        for start in range(0, len(students), chunk):
            views = _chunk_views(gradebook.db, assignment, notebook_id, students[start : start + chunk], order)
            gradebook.db.expunge_all()
            gradebook.db.rollback()  # ends the read transaction: the next chunk starts clean
            yield from views


def _chunk_views(db: Any, assignment: str, notebook_id: str, students: Sequence[str],
                 order: Sequence[str]) -> list[tuple[str, GradebookView]]:
    """The views of ``students`` (a chunk) in three queries, not a few per student (nbgrader's find_*
    would cost ~30 ms each)."""
    from sqlalchemy.orm import joinedload, selectinload

    from ..nbgrader_adapter import Assignment, Comment, Grade, SubmittedAssignment, SubmittedNotebook

    submissions = (
        db.query(SubmittedAssignment)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .filter(Assignment.name == assignment, SubmittedAssignment.student_id.in_(students))
        .options(
            joinedload(SubmittedAssignment.assignment),
            selectinload(SubmittedAssignment.notebooks).options(
                joinedload(SubmittedNotebook.notebook),
                selectinload(SubmittedNotebook.grades).joinedload(Grade.cell),
                selectinload(SubmittedNotebook.comments).joinedload(Comment.cell),
            ),
        )
    )
    views = []
    for submission in submissions:
        notebook = next((nb for nb in submission.notebooks if nb.notebook.name == notebook_id), None)
        if notebook is not None:
            views.append((submission.student_id,
                          GradebookView(manual_marks_of(notebook, order), lateness_of(submission, notebook))))
    return views


def read_gradebook_views(db_url: str, assignment: str, notebook_id: str, students: Sequence[str],
                         order: Sequence[str] = ()) -> dict[str, GradebookView]:
    """Each student's marks and lateness (:func:`iter_gradebook_views`, as a dict for a few students)."""
    return dict(iter_gradebook_views(db_url, assignment, notebook_id, students, order))


def notebook_order(root: Path, exercise: Exercise) -> list[str]:
    """The release notebook's cell ids in order (the order of the marks on a page); empty if it is missing."""
    import nbformat

    path = root / "release" / exercise.assignment / exercise.notebook
    if not path.is_file():
        return []
    cells = nbformat.read(path, as_version=4).cells
    return [cell.metadata.get("nbgrader", {}).get("grade_id", "") for cell in cells]
