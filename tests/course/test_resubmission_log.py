"""A student who handed in again is graded again with a line that says so, not a warning of a broken run.

``nbgrader autograde`` grades a re-submission again (the gradebook holds the earlier one's grading); the
kit told the tutor "left by a grading that did not finish" for every such student (a tutor's walk-through).
The killed run keeps its warning: tests/sandbox/test_threat_nbgrader_first_conversion.py.
"""

from __future__ import annotations

import pytest

from autograder.course.materials.nbgrader_commands import run_nbgrader
from autograder.exercises.ndcg import EXERCISE

from grading_run import add_student, generated_course, notebook_path

pytestmark = pytest.mark.slow


def _hand_in(course, student: str, when: str) -> None:
    add_student(course, student)
    notebook_path(course, student).with_name("timestamp.txt").write_text(f"{when}.000000 UTC", encoding="utf-8")


def test_a_resubmission_is_graded_again_and_said_to_be_one(tmp_path):
    course = generated_course(tmp_path / "course")
    _hand_in(course, "ada", "2026-12-01 10:00:00")
    first = run_nbgrader(course, "autograde", EXERCISE.assignment)
    assert "ada" in first and "handed in again" not in first
    _hand_in(course, "ada", "2026-12-02 10:00:00")  # a newer submission, collected
    again = run_nbgrader(course, "autograde", EXERCISE.assignment)
    assert "ada: handed in again since it was graded; graded again" in again
    assert "did not finish" not in again
