"""The by-hand steps: each hand mistake named and costing only its steps, with follow-through."""

from __future__ import annotations

import pytest
from byhand_answers import LOST, answer_cell
from hypothesis import example, given, settings
from hypothesis import strategies as st

from autograder.course.byhand import POOL_FILE
from autograder.exercises.ndcg.byhand.answers import read_answers
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS, mark
from autograder.exercises.ndcg.byhand.steps import HAND_MISTAKES, every_steps

POOL = POOL_FILE.read_text(encoding="ascii").strip()
ids = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=12)


def test_every_mistake_has_its_expected_steps():
    assert set(LOST) == {m.name for m in HAND_MISTAKES}


@settings(max_examples=25, deadline=None)
@given(student=ids)
def test_right_answers_earn_every_point(student):
    rels = student_list(student, "test", POOL)
    result = mark(student, read_answers(answer_cell(every_steps(rels, CUTOFF)["right"])), rels, CUTOFF)
    assert result.score == MAX_SCORE and not result.diagnosis.findings
    assert str(list(rels)) in result.message  # the feedback works the student's own list through


@settings(max_examples=25, deadline=None)
@given(student=ids, mistake=st.sampled_from(HAND_MISTAKES))
# student 0 once drew a list whose top k had grades 0 and 1 only, where 2^rel - 1 kept DCG@k right
# and the mistake cost one step less; the pool no longer holds such lists (test_byhand_generator)
@example(student="0", mistake=next(m for m in HAND_MISTAKES if m.name == "gain 2^rel - 1"))
def test_each_hand_mistake_is_named_and_costs_only_its_steps(student, mistake):
    rels = student_list(student, "test", POOL)
    result = mark(student, read_answers(answer_cell(every_steps(rels, CUTOFF)[mistake.name])), rels, CUTOFF)
    lost = {t.name for t in result.tests if not t.passed}
    # the same steps on every student's list: a mistake costs what it is, not what the draw allows
    assert lost == LOST[mistake.name], (rels, [t.message for t in result.tests])
    assert result.score == MAX_SCORE - sum(s.points for s in STEPS if s.grade_id in lost)
    assert {f.title for f in result.diagnosis.findings} == {mistake.name}
    assert mistake.mistake in result.diagnosis.ids


def test_another_students_list_is_not_right_for_this_one():
    ada, bob = student_list("ada", "test", POOL), student_list("bob", "test", POOL)
    assert ada != bob
    result = mark("bob", read_answers(answer_cell(every_steps(ada, CUTOFF)["right"])), bob, CUTOFF)
    assert result.score < MAX_SCORE


@pytest.mark.parametrize("source, problem", [
    ("DCG_AT_K = dcg(RELS, K)", "DCG_AT_K write a number (found call code, not a number)"),
    ("IDEAL_RANKING = sorted(RELS)", "IDEAL_RANKING write the ideal ranking as a list of grades"),
    ("DCG_AT_K = 1 / 0", "DCG_AT_K divides by zero"),
    ("DCG_AT_K = (", "the answer cell is not valid Python"),
])
def test_code_in_the_answer_cell_is_never_run_and_named_in_one_line(source, problem):
    answers = read_answers(source)
    assert answers.dcg is None and answers.ideal is None
    assert any(message.startswith(problem) for message in answers.problems.values())
    result = mark("ada", answers, student_list("ada", "test", POOL), CUTOFF)
    assert result.score == 0.0 and all("\n" not in t.message for t in result.tests)


def test_unanswered_stub_scores_nothing():
    release_stub = "# YOUR CODE HERE\nraise NotImplementedError()"
    result = mark("ada", read_answers(release_stub), student_list("ada", "test", POOL), CUTOFF)
    assert result.score == 0.0 and all("not answered" in t.message for t in result.tests)

