"""The by-hand variants: fair lists (every hand mistake shows, each differently), distinct per roster."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import nbformat
import pytest
from byhand_answers import LOST
from hypothesis import given, settings
from hypothesis import strategies as st

import ndcg_ref
from autograder.exercises.ndcg.byhand import cells
from autograder.exercises.ndcg.byhand.derive import (
    CUTOFF,
    LENGTH,
    RELEVANT,
    current_student,
    fair_indices,
    student_list,
)
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE, published_variant, sync_by_hand
from autograder.exercises.ndcg.byhand.pool import choose_salt, collisions, compute_pool, list_for
from autograder.exercises.ndcg.byhand.steps import HAND_MISTAKES, TOLERANCE, every_steps, is_fair, right_steps

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "release" / "ndcg" / "ndcg.ipynb"
POOL = POOL_FILE.read_text(encoding="ascii").strip()
student_ids = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FFF), min_size=1, max_size=20)


def _two_decimals(steps) -> tuple:
    return (tuple(steps.ideal[:CUTOFF]), round(steps.dcg, 2), round(steps.idcg, 2), round(steps.ndcg, 2))


@settings(max_examples=100, deadline=None)
@given(student=student_ids | st.just("caf\udce9"), salt=st.text(max_size=30))
def test_the_grader_derives_the_list_the_cell_derives(student, salt):
    # the grader decodes the pool once per process; the cell (and student_list) on every call
    assert list_for(student, salt, POOL) == student_list(student, salt, POOL)


def test_lecture_example_from_the_formula():
    # lecture slide 25: rels 1, 0, 2, 1, 0; the by-hand steps take their values from ndcg_ref
    steps = right_steps((1, 0, 2, 1, 0), 5)
    assert steps.dcg == pytest.approx(1 + 2 / math.log2(4) + 1 / math.log2(5))
    assert steps.idcg == pytest.approx(2 + 1 / math.log2(3) + 1 / math.log2(4))
    assert steps.ndcg == pytest.approx(steps.dcg / steps.idcg)
    assert steps.ideal == (2, 1, 1, 0, 0)


@settings(max_examples=150, deadline=None)
@given(student=student_ids, salt=st.text(max_size=30))
def test_every_list_is_fair(student, salt):
    rels = student_list(student, salt, POOL)
    assert len(rels) == LENGTH and sum(1 for g in rels if g) == RELEVANT and set(rels) <= {0, 1, 2, 3}
    steps = every_steps(rels, CUTOFF)
    right = steps.pop("right")
    assert right.dcg == ndcg_ref.dcg(rels, CUTOFF) and right.ndcg == ndcg_ref.ndcg(rels, CUTOFF)
    answers = {"right": _two_decimals(right)} | {name: _two_decimals(s) for name, s in steps.items()}
    # each mistake gives a different two-decimal answer from the right one and from each other
    assert len(set(answers.values())) == len(answers), answers
    for name, theirs in steps.items():
        changed = [s for s in ("dcg", "idcg", "ndcg") if not math.isclose(theirs.number(s), right.number(s))]
        # and where it changes a value, no answer within the tolerance counts for both
        assert all(abs(theirs.number(s) - right.number(s)) > 2 * TOLERANCE for s in changed), (name, rels)
        # every step a mistake makes wrong shows at two decimals on every list (2^rel - 1 on a top k of
        # grades 0 and 1 only would leave DCG@k right and cost one step less than on another list)
        wrong = {step.removeprefix("byhand_") for step in LOST[name]}
        assert wrong - {"ideal"} <= set(changed), (name, rels)
        assert "ideal" not in wrong or theirs.ideal[:CUTOFF] != right.ideal[:CUTOFF], (name, rels)
    for (a, sa), (b, sb) in itertools.combinations(steps.items(), 2):
        for s in ("dcg", "idcg", "ndcg"):
            gap = abs(sa.number(s) - sb.number(s))
            assert gap < 1e-9 or gap > 2 * TOLERANCE, (a, b, s, rels)


def test_no_list_keeps_dcg_right_under_the_exponential_gain():
    # the list student "0" once drew: a top k of grades 0 and 1 only, where 2^rel - 1 = rel
    rels = (0, 1, 1, 1, 1, 0, 1, 3, 2)
    gain = every_steps(rels, CUTOFF)["gain 2^rel - 1"]
    assert gain.dcg == pytest.approx(ndcg_ref.dcg(rels, CUTOFF))  # the mistake does not show in DCG@k here
    assert not is_fair(rels, CUTOFF)


def test_each_mistake_is_said_to_cost_what_the_tests_expect():
    assert {m.name: {f"byhand_{s}" for s in m.wrong_steps} for m in HAND_MISTAKES} == LOST


def test_every_catalogue_mistake_is_made():
    assert {m.mistake for m in HAND_MISTAKES} == {
        "log-base", "exponential-gain", "discount-offset", "ideal-not-sorted", "ideal-from-top-k", "ideal-not-cut",
        "ratio-inverted"}


@pytest.mark.parametrize("size", [200, 500])
def test_a_roster_gets_distinct_lists(size):
    roster = [f"student{n:03d}" for n in range(size)]
    salt = choose_salt(roster, POOL, "test")
    lists = {student_list(student, salt, POOL) for student in roster}
    assert len(lists) == size and not collisions(roster, salt, POOL)


def test_a_roster_too_large_for_the_pool_is_refused_in_one_line():
    from autograder.errors import UsageError

    with pytest.raises(UsageError, match="too large"):
        choose_salt([f"s{n}" for n in range(len(fair_indices(POOL)) + 1)], POOL, "test", tries=3)


def test_the_release_publishes_the_generators_own_cell():
    release = nbformat.read(RELEASE, as_version=4)
    salt, pool = published_variant(release)
    assert pool == POOL
    cell = next(c for c in release.cells if c.metadata["nbgrader"]["grade_id"] == cells.DERIVATION_ID)
    assert cell.source == cells.derivation_source(salt, pool) and cell.metadata["nbgrader"]["locked"]


@pytest.mark.slow
def test_the_published_pool_is_the_fair_lists():
    """Golden file: the pool in the package (and so in the release) is what the generator computes."""
    assert compute_pool() == POOL


def test_the_source_notebook_s_by_hand_cells_are_the_generated_ones(tmp_path):
    """Golden file: Task 1.2's cells in source/ndcg/ are what the kit writes from the generator (`make sync` if not)."""
    copy = tmp_path / "ndcg.ipynb"
    copy.write_bytes((ROOT / "source" / "ndcg" / "ndcg.ipynb").read_bytes())
    assert sync_by_hand(copy) == [], "source/ndcg/ndcg.ipynb's by-hand cells are stale: run `make release`"


def test_the_by_hand_part_comes_before_the_implementation():
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(RELEASE, as_version=4).cells]
    assert ids.index(cells.TASK_ID) < ids.index(cells.DERIVATION_ID) < ids.index(cells.ANSWERS_ID) < ids.index("dcg")


def test_under_nbgrader_s_autograde_the_id_is_the_autograded_folder_s_not_the_tutor_s(tmp_path, monkeypatch):
    # nbgrader's autograde runs the kernel as the tutor in autograded/<student_id>/<assignment>
    folder = tmp_path / "autograded" / "ada" / "ndcg"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    tutor = current_student()
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert current_student() == "ada" != tutor
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")  # the student's own Validate: their login name
    assert current_student() == tutor
