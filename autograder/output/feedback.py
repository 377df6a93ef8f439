"""One self-contained HTML feedback page per student (template ``templates/feedback.html.j2``).

It shows the final score (the tutors' marks and the late penalty included, as the gradebook has
them), the score per test with what went wrong, every manual mark and comment, the recognised mistakes (with their
explanation from the exercise's catalogue and a counterexample on a probe input), and the
exercise's definition, so that a student who missed the tutorial can read it alone (the parts
of the definition marked as the solution only when the tutor asks for them: ``show_solution``).
It never shows a hidden test's input or expected value: the messages come from
:mod:`autograder.grading.scoring`, which writes hidden cases by their property only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..files import write_changed
from ..grading import BatchResult, Exercise, Finding, Mistake, Status, StudentResult
from .late_words import due_text, duration, utc
from .mark_words import how_checked, mark_rows, score_breakdown, test_rows
from .markup import without_solution
from .templating import render

STATUS_TEXT = {
    Status.GRADED: "Your notebook was graded.",
    Status.TIMEOUT: "Your notebook was graded, but some of your code did not finish in time (see below).",
    Status.ERROR: "Your notebook could not be graded.",
    Status.MISSING: "No notebook was found for you.",
    Status.NOT_ATTEMPTED: "Your notebook's code is the released notebook's, unchanged: there was nothing to grade.",
    Status.NOT_GRADED: "Your notebook has not been graded yet (the grading machine was too busy); it will be.",
    Status.REFUSED: "This folder was not graded: its name is not a valid student id.",
}


@dataclass(frozen=True)
class _Explained:
    """A finding with its catalogue entry, as the template shows it."""

    finding: Finding
    mistake: Mistake


def feedback_path(batch: BatchResult, student: StudentResult) -> Path:
    """Where a student's page goes, relative to the output folder: ``feedback/<student>/<notebook>.html``."""
    return Path("feedback") / student.student_id / f"{Path(batch.notebook).stem}.html"


def render_feedback(exercise: Exercise, student: StudentResult, *, show_solution: bool = False) -> str:
    """The feedback page for one student's result.

    Parameters
    ----------
    exercise : Exercise
    student : StudentResult
    show_solution : bool
        Show the parts of the exercise's definition marked ``class="solution"`` (a tutor's choice,
        after the deadline); by default they are left out.
    """
    definition = exercise.definition_html if show_solution else without_solution(exercise.definition_html)
    explained = [_Explained(f, exercise.mistake(f.id)) for f in student.diagnosis.findings]
    return render(
        "feedback.html.j2",
        assignment=exercise.assignment,
        title=exercise.title,
        student=student,
        status_text=STATUS_TEXT[student.status],
        notes=student.message or "",
        explained=explained,
        late=student.late,
        breakdown=score_breakdown(student),
        marks=mark_rows(exercise, student),
        tests=test_rows(student),
        checked={test.name: how_checked(exercise, test.name, test.visible) for test in student.tests},
        late_by="" if student.late is None or not student.late.seconds_late else duration(student.late.seconds_late),
        due=due_text(student.late) if student.late is not None else "",
        submitted="" if student.late is None or student.late.submitted is None else utc(student.late.submitted),
        unexplained=sorted(student.diagnosis.unexplained.items()),
        # written by the course author, not by a student: shown as HTML
        definition=Markup(definition),
    )


def write_feedback(
    out: Path, exercise: Exercise, batch: BatchResult, student: StudentResult, *, show_solution: bool = False
) -> Path:
    """Write the student's page under ``out`` (see :func:`render_feedback`); return its path relative to ``out``."""
    relative = feedback_path(batch, student)
    write_changed(out / relative, render_feedback(exercise, student, show_solution=show_solution))
    return relative
