"""A student folder's name is untrusted: the gradebook step records everyone it can and refuses only the rest.

Names are generated (any bytes a file system allows, as ``os.fsdecode`` gives them, and any text);
each batch also holds honest students. Read back through nbgrader's own ``Gradebook``.
"""

from __future__ import annotations

import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbgrader.api import Gradebook, MissingEntry

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import BatchResult, GroupInfo, Status, StudentResult, TestResult
from autograder.output.gradebook import record_scores, student_id_problem

from strategies import folder_names


def _result(student_id: str, passed: int) -> StudentResult:
    """A graded result that passes the first ``passed`` test groups."""
    tests = [
        TestResult(name=g.grade_id, description=g.description, points=g.points if i < passed else 0.0,
                   max_points=g.points, passed=i < passed, message="", visible=g.visible, cases_passed=1, cases=1)
        for i, g in enumerate(EXERCISE.groups)
    ]
    return StudentResult(student_id=student_id, status=Status.GRADED, score=sum(t.points for t in tests),
                         max_score=EXERCISE.max_score, tests=tests)


def _batch(students: list[StudentResult]) -> BatchResult:
    return BatchResult(
        EXERCISE.assignment, EXERCISE.notebook, EXERCISE.title, EXERCISE.max_score, "none",
        [GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in EXERCISE.groups], students,
    )


@pytest.fixture(scope="module")
def gradebook_url(tmp_path_factory):
    """One gradebook for all examples (nbgrader creates its schema once, which takes a while)."""
    return f"sqlite:///{tmp_path_factory.mktemp('gradebook') / 'gradebook.db'}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(folder_names, min_size=1, max_size=4, unique=True), st.integers(0, len(EXERCISE.groups)))
def test_every_storable_name_is_recorded_and_the_others_refused(gradebook_url, names, passed):
    honest = [_result("honest-a", len(EXERCISE.groups)), _result("honest-b", passed)]
    others = [_result(name, passed) for name in names if not name.startswith("honest-")]
    batch = _batch(honest + others)
    recorded = record_scores(gradebook_url, EXERCISE, batch)

    storable = [s for s in batch.students if student_id_problem(s.student_id) is None]
    assert set(recorded.refused) == {s.student_id for s in batch.students} - {s.student_id for s in storable}
    assert recorded.count == len(storable)
    assert all(reason.strip() for reason in recorded.refused.values())
    with warnings.catch_warnings(), Gradebook(gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        for student in storable:
            assert gradebook.find_submission(EXERCISE.assignment, student.student_id).score == pytest.approx(
                student.score
            ), repr(student.student_id)


def test_a_name_that_is_not_utf8_is_refused_with_its_reason(gradebook_url):
    latin1 = os.fsdecode(b"caf\xe9")
    recorded = record_scores(gradebook_url, EXERCISE, _batch([_result(latin1, 1), _result("alice", 2)]))
    assert recorded.refused == {latin1: "its name is not valid UTF-8 (rename the folder)"}
    with warnings.catch_warnings(), Gradebook(gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        expected = sum(g.points for g in EXERCISE.groups[:2])
        assert gradebook.find_submission(EXERCISE.assignment, "alice").score == pytest.approx(expected)
        with pytest.raises(MissingEntry):
            gradebook.find_student("caf\\xe9")
