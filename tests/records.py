"""Graded results built directly, for the tests of what is written from them (gradebook, outputs)."""

from __future__ import annotations

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import BatchResult, GroupInfo, Status, StudentResult, TestResult


def graded_result(student_id: str, passed: int) -> StudentResult:
    """A graded result of the nDCG exercise that passes its first ``passed`` graded groups.

    The groups are the whole notebook's (:attr:`~autograder.grading.Exercise.graded_groups`: Task 1.2's
    steps, then the code's), as the engine's results have them.
    """
    tests = [
        TestResult(name=g.grade_id, description=g.description, points=g.points if i < passed else 0.0,
                   max_points=g.points, passed=i < passed, message="", visible=g.visible, cases_passed=1, cases=1)
        for i, g in enumerate(EXERCISE.graded_groups)
    ]
    return StudentResult(student_id=student_id, status=Status.GRADED, score=sum(t.points for t in tests),
                         max_score=EXERCISE.max_score, tests=tests)


def batch_of(students: list[StudentResult]) -> BatchResult:
    """The nDCG exercise's batch of ``students``, graded without a sandbox."""
    return BatchResult(EXERCISE.assignment, EXERCISE.notebook, EXERCISE.title, EXERCISE.max_score, "none",
                       [GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in EXERCISE.graded_groups], students)
