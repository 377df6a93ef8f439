"""The by-hand steps: each hand mistake named and costing only its steps, with follow-through."""

from __future__ import annotations

import math

import pytest
from byhand_answers import LOST, answer_cell
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from autograder.exercises.ndcg.byhand.answers import Answers, read_answers
from autograder.exercises.ndcg.byhand.cells import step_source
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS, follows_through, mark, step_passes
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE
from autograder.exercises.ndcg.byhand.steps import HAND_MISTAKES, TOLERANCE, Steps, answer_matches, every_steps

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
    # the grading page gives the tutor the key of every step lost: the value worked out from the list here
    ideal = sorted(rels, reverse=True)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(rels[:CUTOFF]))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:CUTOFF]))
    key = {"byhand_ideal": f"[{', '.join(str(g) for g in ideal)}]", "byhand_dcg": f"{dcg:.4f}",
           "byhand_idcg": f"{idcg:.4f}", "byhand_ndcg": f"{dcg / idcg:.4f}"}
    for test in result.tests:
        if not test.passed:
            assert test.message.endswith(f"; the value for your list is {key[test.name]}"), test.message


def test_another_students_list_is_not_right_for_this_one():
    ada, bob = student_list("ada", "test", POOL), student_list("bob", "test", POOL)
    assert ada != bob
    result = mark("bob", read_answers(answer_cell(every_steps(ada, CUTOFF)["right"])), bob, CUTOFF)
    assert result.score < MAX_SCORE


@pytest.mark.parametrize("source, problem", [
    ("DCG_AT_K = dcg(RELS, K)", "`DCG_AT_K` must be a number such as 2.43 (+ - * / are fine), not a function call"),
    ("IDEAL_RANKING = sorted(RELS)", "`IDEAL_RANKING` must be a list of grades such as [3, 2, 2, 1, 0]"),
    ("DCG_AT_K = 1 / 0", "`DCG_AT_K` divides by zero"),
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



# ----- follow-through: a division of the student's own values, only where they are their work ------

#: Mistakes whose nDCG is the student's own DCG / iDCG, both sorted ideals: follow-through keeps the step.
FOLLOWED = [m for m in HAND_MISTAKES if m.name not in ("ratio inverted", "ideal not sorted")]
positive = st.floats(min_value=0.05, max_value=20.0, allow_nan=False)


def _answers(dcg: float | None, idcg: float | None, ndcg: float | None) -> Answers:
    return Answers(ideal=None, dcg=dcg, idcg=idcg, ndcg=ndcg)


def _worked(value: float, step: str, ways: dict[str, Steps]) -> bool:
    return any(answer_matches(value, way.number(step)) for way in ways.values())


@st.composite
def degenerate_answer_sets(draw) -> tuple[str, Answers]:
    """A student and an answer set whose nDCG divides values that are not the student's work on their list."""
    student = draw(ids)
    rels = student_list(student, "test", POOL)
    ways = every_steps(rels, CUTOFF)
    right = ways["right"]
    kind = draw(st.sampled_from(["equal", "zero or negative", "dcg above idcg", "made up", "a classmate's"]))
    if kind == "equal":  # DCG = IDCG = NDCG = 1 and its kin: x / x on a list that is not ideal
        value = draw(st.one_of(positive, st.sampled_from([1.0, right.dcg, right.idcg])))
        dcg, idcg = value, value + draw(st.floats(-TOLERANCE, TOLERANCE))
    elif kind == "zero or negative":
        dcg, idcg = draw(st.floats(-20.0, 0.0)), draw(st.one_of(positive, st.just(right.idcg)))
    elif kind == "dcg above idcg":
        idcg = draw(st.one_of(positive, st.just(right.idcg)))
        dcg = idcg + draw(st.floats(2 * TOLERANCE, 10.0))
    elif kind == "made up":  # 1 / 2 = 0.5: numbers no way of working the list out gives
        dcg, idcg = sorted(draw(st.lists(positive, min_size=2, max_size=2, unique=True)))
    else:  # another student's right numbers
        theirs = every_steps(student_list(draw(ids), "test", POOL), CUTOFF)["right"]
        dcg, idcg = theirs.dcg, theirs.idcg
    if kind in ("made up", "a classmate's"):
        assume(not _worked(dcg, "dcg", ways) and not _worked(idcg, "idcg", ways))
    assume(right.dcg < right.idcg - 2 * TOLERANCE)  # the list is not ideal (no pool list is)
    return student, _answers(dcg, idcg, dcg / idcg if idcg else 1.0)


@settings(max_examples=300, deadline=None)
@given(case=degenerate_answer_sets())
def test_no_degenerate_answer_set_gains_follow_through_credit(case):
    student, answers = case
    ways = every_steps(student_list(student, "test", POOL), CUTOFF)
    assert not follows_through(answers, ways)
    # the nDCG step then passes only where the number is the right nDCG itself
    assert step_passes("ndcg", answers, ways, CUTOFF) == answer_matches(answers.ndcg, ways["right"].ndcg)


@settings(max_examples=100, deadline=None)
@given(student=ids, mistake=st.sampled_from(FOLLOWED), keep_idcg=st.booleans(), decimals=st.sampled_from([2, 3, 6]))
def test_honest_follow_through_keeps_the_step(student, mistake, keep_idcg, decimals):
    """A wrong DCG (or iDCG) from a known mistake, divided correctly, earns the nDCG step."""
    rels = student_list(student, "test", POOL)
    ways = every_steps(rels, CUTOFF)
    theirs = ways[mistake.name]
    dcg = round(theirs.dcg, decimals)
    idcg = round(ways["right"].idcg if keep_idcg and "idcg" not in mistake.wrong_steps else theirs.idcg, decimals)
    answers = _answers(dcg, idcg, round(dcg / idcg, decimals))
    assert follows_through(answers, ways) and step_passes("ndcg", answers, ways, CUTOFF)


@settings(max_examples=50, deadline=None)
@given(student=ids, slip=st.floats(3 * TOLERANCE, 2.0), which=st.sampled_from(["dcg", "idcg"]))
def test_a_slip_in_one_value_divided_correctly_keeps_the_step(student, slip, which):
    ways = every_steps(student_list(student, "test", POOL), CUTOFF)
    right = ways["right"]
    dcg, idcg = (right.dcg - slip, right.idcg) if which == "dcg" else (right.dcg, right.idcg + slip)
    assume(dcg > 0)
    assert follows_through(_answers(dcg, idcg, dcg / idcg), ways)


def _plain_nbgrader_passes(student: str, answers: Answers) -> bool:
    """The nDCG step cell as plain nbgrader runs it (its hidden lines), on these answers."""
    namespace = {"student_list": student_list, "current_student": lambda: student, "SALT": "test", "POOL": POOL,
                 "CUTOFF": CUTOFF, "DCG_AT_K": answers.dcg, "IDCG_AT_K": answers.idcg, "NDCG_AT_K": answers.ndcg,
                 "print": lambda *args: None}
    try:
        exec(step_source("byhand_ndcg"), namespace)  # the kit's own generated cell
    except AssertionError:
        return False
    return True


def _mistaken_answers(student: str, name: str) -> tuple[str, Answers]:
    theirs = every_steps(student_list(student, "test", POOL), CUTOFF)[name]
    return student, _answers(theirs.dcg, theirs.idcg, theirs.ndcg)


@settings(max_examples=60, deadline=None)
@given(case=st.one_of(
    degenerate_answer_sets(),
    st.builds(_mistaken_answers, ids, st.sampled_from(["right", *(m.name for m in HAND_MISTAKES)])),
))
def test_plain_nbgrader_s_step_cell_follows_through_as_the_kit_marks(case):
    """Plain nbgrader runs the step cell's hidden lines: they credit exactly what :func:`step_passes` does."""
    student, answers = case
    ways = every_steps(student_list(student, "test", POOL), CUTOFF)
    assert _plain_nbgrader_passes(student, answers) == step_passes("ndcg", answers, ways, CUTOFF), answers


@settings(max_examples=25, deadline=None)
@given(student=ids)
def test_the_ideal_sorted_from_the_printed_list_and_ones_earn_only_the_ideal_step(student):
    """The issue's attack: IDEAL_RANKING sorted from the printed list, DCG = IDCG = NDCG = 1 (2 of 5 before)."""
    rels = student_list(student, "test", POOL)
    cell = f"IDEAL_RANKING = {sorted(rels, reverse=True)}\nDCG_AT_K = 1\nIDCG_AT_K = 1\nNDCG_AT_K = 1"
    result = mark(student, read_answers(cell), rels, CUTOFF)
    assert {t.name for t in result.tests if t.passed} == {"byhand_ideal"}
    assert result.score == next(step.points for step in STEPS if step.grade_id == "byhand_ideal")
    assert "counts only when DCG_AT_K is below IDCG_AT_K" in result.tests[-1].message


@settings(max_examples=40, deadline=None)
@given(student=ids, mistake=st.sampled_from(FOLLOWED))
def test_a_follow_through_ndcg_is_called_consistent_never_right(student, mistake):
    """Issue 33.5: a point for dividing one's own values says so, with the list's own nDCG beside it."""
    rels = student_list(student, "test", POOL)
    ways = every_steps(rels, CUTOFF)
    theirs, right = ways[mistake.name], ways["right"]
    result = mark(student, read_answers(answer_cell(theirs)), rels, CUTOFF)
    (row,) = [test for test in result.tests if test.name == "byhand_ndcg"]
    assert row.passed
    if answer_matches(theirs.ndcg, right.ndcg):  # the mistake cancels in the ratio (a log base): right indeed
        assert row.message.endswith(": right")
    else:
        assert ": right" not in row.message
        assert (f"consistent with your own DCG and iDCG ({round(theirs.dcg, 2):g} / {round(theirs.idcg, 2):g}); "
                f"the value for your list is {right.ndcg:.4f}") in row.message
