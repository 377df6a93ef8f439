"""The tutors' marks as every output shows them: a one-line note, and the rows of the student's page.

The marks come from the gradebook (:class:`~autograder.grading.ManualMarks`, read by
:mod:`autograder.gradebook.read_back`); here they only get words.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..grading import CellMark, Exercise, ManualMarks, StudentResult, TestResult

#: How a test is shown beside its name: what the student could check before handing in.
VISIBLE, HIDDEN = "visible", "hidden"
#: An answer worked out by hand: the notebook checks only that it is a number (``validate`` passes a wrong
#: value), its value is checked when graded; "visible" would promise more.
BY_HAND = "answer checked when graded"


def how_checked(exercise: Exercise, grade_id: str, visible: bool) -> str:
    """``visible``, ``hidden`` or, for an answer of the exercise's answered part, :data:`BY_HAND`.

    Parameters
    ----------
    exercise : Exercise
    grade_id : str
        A test group's grade id.
    visible : bool
        Whether the group (or the test result) is visible.

    Returns
    -------
    str
        The label the report and the feedback page show beside the test.
    """
    answered = exercise.answered.groups if exercise.answered is not None else ()
    if any(group.grade_id == grade_id for group in answered):
        return BY_HAND
    return VISIBLE if visible else HIDDEN


@dataclass(frozen=True)
class MarkRow:
    """One tutor's mark as the student's page lists it."""

    #: Where in the notebook, in the student's terms: a test by what it checks, or an answer cell.
    where: str
    mark: CellMark
    #: The test's points (None for a cell without points, such as an answer cell).
    max_points: float | None

    @property
    def score_text(self) -> str:
        """"1.5 of 2 points (the grader gave 1)", "+0.5 extra credit", or "" for a comment alone."""
        parts = []
        if self.mark.manual_score is not None:
            of = f" of {self.max_points:g}" if self.max_points is not None else ""
            grader = "" if self.mark.auto_score is None else f" (the grader gave {self.mark.auto_score:g})"
            parts.append(f"{self.mark.manual_score:g}{of} points{grader}")
        if self.mark.extra_credit:
            parts.append(f"{self.mark.extra_credit:+g} extra credit")
        return ", ".join(parts)


def mark_rows(exercise: Exercise, student: StudentResult) -> list[MarkRow]:
    """The rows of the page's "from your tutor" section, in the notebook's order; empty without marks."""
    if student.manual is None:
        return []
    groups = {group.grade_id: group for group in exercise.graded_groups}
    rows = []
    for mark in student.manual.marks:
        group = groups.get(mark.cell)
        if group is not None:
            rows.append(MarkRow(f"test: {group.description}", mark, group.points))
        else:
            rows.append(MarkRow(f"your cell `{mark.cell}`", mark, None))
    return rows


def manual_note(manual: ManualMarks | None, score: float) -> str:
    """A short note for tables where a tutor changed the score or commented; empty otherwise.

    Examples: "manual marks: 7.5 (grader 6)", "tutor's comment".
    """
    if manual is None or not manual.marks:
        return ""
    if manual.overridden:
        return f"manual marks: {manual.score:g} (grader {score:g})"
    return "tutor's comment"


def score_breakdown(student: StudentResult) -> str:
    """How the final score came about, where it is not simply the grader's; empty otherwise.

    For example "the grader gave 6; with your tutor's marks 7.5; late penalty 2 points".
    """
    parts = []
    manual = student.manual
    if manual is not None and manual.overridden:
        parts.append(f"with your tutor's marks {manual.score:g}")
    if student.late is not None and student.late.penalty:
        parts.append(f"late penalty {student.late.penalty:g} points")
    return "; ".join([f"the grader gave {student.score:g}", *parts]) if parts else ""


def overrides(student: StudentResult) -> dict[str, float]:
    """The tests whose points a tutor set by hand: grade id to the tutor's points."""
    if student.manual is None:
        return {}
    return {mark.cell: mark.manual_score for mark in student.manual.marks if mark.manual_score is not None}


@dataclass(frozen=True)
class TestRow:
    """One test as every output shows it: the tutor's result where a tutor set its points, else the grader's."""

    __test__ = False  # not a pytest test class, whatever its name

    test: TestResult
    #: The points that count: the tutor's where they gave some, else the grader's.
    points: float
    #: Whether it earned all its points, by whoever had the last word.
    passed: bool
    #: Whether a tutor set its points (the grader's result is then shown only labelled as such).
    by_tutor: bool

    @property
    def result(self) -> str:
        """``passed``, ``failed`` or, for a tutor's part of the points, ``partly``."""
        if self.passed:
            return "passed"
        return "partly" if self.by_tutor and self.points > 0 else "failed"


def test_rows(student: StudentResult) -> list[TestRow]:
    """The student's tests with the tutors' points in (:func:`overrides`), in the grader's order."""
    tutor = overrides(student)
    rows = []
    for test in student.tests:
        if test.name in tutor:
            points = tutor[test.name]
            rows.append(TestRow(test, points, points >= test.max_points, by_tutor=True))
        else:
            rows.append(TestRow(test, test.points, test.passed, by_tutor=False))
    return rows
