"""Every pair of catalogue mistakes loses exactly the union of the two mistakes' groups, and is named.

Or what the catalogue declares for it, with the reason (``PAIR_COSTS``, printed in
docs/misconceptions.md). In this process, with the real scoring, on the fixed cases and whole draws
of fresh instances and witnesses; the same pairs graded in the sandbox: test_mutation_pairs.py.
"""

from __future__ import annotations

import contextlib
import io
import random
import warnings

import pytest
from pairs import ALL_PAIRS, Pair

from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.catalogue import BY_ID
from autograder.exercises.ndcg.diagnosis import diagnose
from autograder.exercises.ndcg.pairs import PAIR_COSTS

from solutions import functions_of, instance_passes, lost_groups, probe_records

SEEDS = (b"\0" * 32, b"\x5a" * 32)


@pytest.fixture(autouse=True)
def _quiet():
    # numpy's 0/0 warnings, and the printing mutant's output
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def test_every_mistake_is_in_a_pair_with_every_other_it_can_meet():
    in_pairs = {mistake for pair in ALL_PAIRS for mistake in pair.ids}
    assert in_pairs == set(BY_ID)
    assert len(ALL_PAIRS) >= 200  # the dcg x ndcg pairs alone are 14 x 13, less two that are one mistake


def test_every_declared_pair_is_graded_and_says_something():
    pairs = {pair.ids: pair for pair in ALL_PAIRS}
    for ids, cost in PAIR_COSTS.items():
        assert ids in pairs, f"{cost.pair}: no such pair is built (tests/pairs.py)"
        assert cost.why and (cost.lost is not None or cost.named is not None), cost.pair
        if cost.lost is not None:
            assert frozenset(cost.lost) != pairs[ids].union, f"{cost.pair}: declares the union"
        for grade_id in cost.lost or ():
            assert grade_id.startswith("test_"), grade_id


@pytest.mark.parametrize("pair", ALL_PAIRS, ids=lambda p: p.name)
def test_each_pair_loses_exactly_its_groups_on_every_draw(pair: Pair):
    for seed in SEEDS:
        assert lost_groups(pair.dcg, pair.ndcg, seed) == pair.loses(), seed


@pytest.mark.parametrize("pair", ALL_PAIRS, ids=lambda p: p.name)
def test_each_pair_is_named(pair: Pair):
    found = diagnose(probe_records(pair.dcg, pair.ndcg))
    assert set(found.ids) == pair.named()
    if pair.named() == pair.ids:
        assert not found.unexplained


#: Instances of each hidden template every pair is held to: a pair that divides by 0 on a few draws
#: only (an ideal built wrongly, without the zero check) would cost some students a group at random.
INSTANCES_PER_TEMPLATE = 40
TEMPLATES = [(group, number, template) for group in EXERCISE.groups for number, template in enumerate(group.templates)]


@pytest.mark.parametrize("pair", ALL_PAIRS, ids=lambda p: p.name)
def test_each_pair_passes_every_instance_of_the_groups_it_keeps(pair: Pair):
    functions = functions_of(pair.dcg, pair.ndcg)
    for group, number, template in TEMPLATES:
        if group.grade_id in pair.loses():
            continue
        rng = random.Random(f"{group.grade_id}/{number}")
        for case in (template.instance(rng) for _ in range(INSTANCES_PER_TEMPLATE)):
            assert instance_passes(functions, case), (group.grade_id, case.call.text)
