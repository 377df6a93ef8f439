"""A student folder's name is untrusted: the gradebook step records every valid student id and refuses only the rest.

The rule is the kit's one (autograder/grading/reading/student_ids.py): a name it refuses, or a look-alike of a
name the gradebook holds, is never recorded. Names are generated (any bytes a file system allows, as ``os.fsdecode`` gives them, and any text);
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
from autograder.gradebook.scores import record_scores, student_id_problem
from autograder.grading.reading.student_ids import check_ids

from records import batch_of, graded_result
from strategies import folder_names


@pytest.fixture(scope="module")
def gradebook_url(tmp_path_factory):
    """One gradebook for all examples (nbgrader creates its schema once, which takes a while)."""
    return f"sqlite:///{tmp_path_factory.mktemp('gradebook') / 'gradebook.db'}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(folder_names, min_size=1, max_size=4, unique=True), st.integers(0, len(EXERCISE.graded_groups)))
def test_every_storable_name_is_recorded_and_the_others_refused(gradebook_url, names, passed):
    honest = [graded_result("honest-a", len(EXERCISE.graded_groups)), graded_result("honest-b", passed)]
    others = [graded_result(name, passed) for name in names if not name.startswith("honest-")]
    batch = batch_of(honest + others)
    roster = []  # earlier examples' students (the first example creates the gradebook)
    if os.path.exists(gradebook_url.removeprefix("sqlite:///")):
        with warnings.catch_warnings(), Gradebook(gradebook_url) as gradebook:
            warnings.simplefilter("ignore")
            roster = [student.id for student in gradebook.students]
    recorded = record_scores(gradebook_url, EXERCISE, batch)

    valid = [s.student_id for s in batch.students if student_id_problem(s.student_id) is None]
    unambiguous = set(check_ids(valid, roster).accepted)
    storable = [s for s in batch.students if s.student_id in unambiguous]
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
    recorded = record_scores(gradebook_url, EXERCISE, batch_of([graded_result(latin1, 1), graded_result("alice", 2)]))
    assert recorded.refused == {latin1: "its name is not valid UTF-8 (rename the folder)"}
    with warnings.catch_warnings(), Gradebook(gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        expected = sum(g.points for g in EXERCISE.graded_groups[:2])
        assert gradebook.find_submission(EXERCISE.assignment, "alice").score == pytest.approx(expected)
        with pytest.raises(MissingEntry):
            gradebook.find_student("caf\\xe9")


@pytest.mark.parametrize("name", ['<svg onload="alert(1)">', "*", "a,b\nbob", "=1+1", "x\x1b[2J\r", "bob\u200b",
                                  "\u0430lice", "x" * 65, "-rf"])
def test_a_name_the_rule_refuses_is_never_recorded(gradebook_url, name):
    recorded = record_scores(gradebook_url, EXERCISE, batch_of([graded_result(name, 1), graded_result("dora", 2)]))
    assert list(recorded.refused) == [name] and recorded.refused[name].startswith("its name ")
    with warnings.catch_warnings(), Gradebook(gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        assert name not in {student.id for student in gradebook.students}
        assert gradebook.find_submission(EXERCISE.assignment, "dora").score == pytest.approx(
            sum(g.points for g in EXERCISE.graded_groups[:2]))


def test_a_look_alike_of_a_recorded_student_is_refused_naming_them(gradebook_url):
    record_scores(gradebook_url, EXERCISE, batch_of([graded_result("erin", 1)]))
    recorded = record_scores(gradebook_url, EXERCISE, batch_of([graded_result("Erin", 2), graded_result("erin", 2)]))
    assert list(recorded.refused) == ["Erin"] and "erin" in recorded.refused["Erin"]
