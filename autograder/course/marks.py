"""What the gradebook holds for a graded submission: the tutors' marks and comments, the lateness, the total.

The gradebook is the single source of truth for final scores: formgrader's manual grading writes a
test's ``manual_score`` (which wins over the grader's ``auto_score``), ``extra_credit`` and a
cell's ``manual_comment`` there, and the late-penalty step writes the penalty. Every output of the
kit that shows a final score (the table, ``results.json``, ``grades.csv``, the report, the
student's page) reads them here, after the grader's scores were recorded, with nbgrader's own
models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..grading import CellMark, Lateness, ManualMarks, StudentResult
from ..output.gradebook_db import open_gradebook
from .late import read_lateness


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


def read_manual_marks(gradebook: Any, assignment: str, notebook_id: str, student_id: str,
                      order: Sequence[str] = ()) -> ManualMarks | None:
    """The tutors' marks on one submitted notebook; None when the gradebook has no such submission.

    Parameters
    ----------
    gradebook : nbgrader.api.Gradebook
        The course's open gradebook.
    assignment, notebook_id, student_id : str
    order : sequence of str
        The notebook's cell ids in the notebook's order; the marks follow it (others come last, by name).
    """
    from nbgrader.api import MissingEntry

    try:
        notebook = gradebook.find_submission_notebook(notebook_id, assignment, student_id)
    except MissingEntry:
        return None
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
    return ManualMarks(tuple(marks), float(notebook.score))


def _position(order: Sequence[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


def read_gradebook_views(db_url: str, assignment: str, notebook_id: str, students: Sequence[str],
                         order: Sequence[str] = ()) -> dict[str, GradebookView]:
    """Each student's marks and lateness, read in one gradebook session.

    Raises whatever nbgrader and SQLAlchemy raise for a gradebook that cannot be read; callers
    wrap it (:func:`autograder.output.gradebook.gradebook_errors`).
    """
    with open_gradebook(db_url) as gradebook:
        return {
            student_id: GradebookView(
                read_manual_marks(gradebook, assignment, notebook_id, student_id, order),
                read_lateness(gradebook, assignment, notebook_id, student_id),
            )
            for student_id in students
        }
