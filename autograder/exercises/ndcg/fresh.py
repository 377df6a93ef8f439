"""Templates of fresh hidden cases: one per edge case a hidden group checks, drawn per submission.

Each template draws a case of the same kind as the group's fixed cases (:mod:`.cases`), with the
same care that one mistake costs only the groups about it: the discount's lists are ones from
rank 1 down, then zeros (the gain's mistakes agree there, and with k at the list's end so do the
cut-off's), the ideal ranking's values do not depend on the discount, no group but the cut-off's
has k beyond the list, only the grade and ideal groups hold grades above 2, and only the contract
groups hold one-document lists. ``tests/exercises/test_fresh_instances.py`` draws
many instances of every template and checks that each catalogue mutant and each correct solution
loses exactly the groups it loses on the fixed cases.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping

from ...grading import Call, Case, CaseTemplate
from .cases import _contract, _dcg, _ndcg, _same, _zero
from .diagnosis.variants import CUTS, ORDERS, SCOPES, ideal_list

Draw = Callable[[random.Random], Case]
#: Grades of the cut-off, zero and contract instances: 0-2 (grade 3 is the grade group's business).
GRADES = (1, 2)
FRACTIONS = (0.5, 1, 1.5, 2)


def _grades(rng: random.Random, n: int) -> list[float]:
    """``n`` grades 0..2 with at least one relevant document."""
    rels: list[float] = [rng.randint(0, 2) for _ in range(n)]
    rels[rng.randrange(n)] = rng.choice(GRADES)
    return rels


# ----- dcg: the discount ----------------------------------------------------------------------------
def _ones_then_zeros(relevant: int, n: int) -> list[int]:
    """Grade 1 at ranks 1..relevant, then 0: a cut at the number of relevant documents agrees here."""
    return [1] * relevant + [0] * (n - relevant)


def _one_at_a_rank(rng: random.Random) -> Case:
    rank = rng.randint(2, 12)
    rels = _ones_then_zeros(rank, rank + rng.randint(1, 4))
    return _dcg(rels, len(rels), "")


def _binary(rng: random.Random, n: int) -> list[int]:
    """Two relevant documents or more from rank 1 down, ending in an irrelevant one."""
    return _ones_then_zeros(rng.randint(2, n - 1), n)


def _several_relevant(rng: random.Random) -> Case:
    rels = _binary(rng, rng.randint(4, 10))
    return _dcg(rels, len(rels), "")


def _long_list(rng: random.Random) -> Case:
    rels = _binary(rng, rng.randint(20, 60))
    return _dcg(rels, len(rels), "")


# ----- dcg: the cut-off -----------------------------------------------------------------------------
def _below_k(rng: random.Random) -> Case:
    n = rng.randint(5, 9)
    k = rng.randint(1, n - 2)
    rels = _grades(rng, n)
    rels[k - 1], rels[k] = rng.choice(GRADES), rng.choice(GRADES)  # one too few or too many shows
    return _same("dcg", rels, k, rels[:k] + [0] * (n - k), n, "")


def _dcg_k_beyond(rng: random.Random) -> Case:
    rels = _grades(rng, rng.randint(2, 6))
    return _same("dcg", rels, len(rels) + rng.randint(1, 5), rels, len(rels), "")


def _just_below(rng: random.Random) -> Case:
    k = rng.randint(1, 5)
    return _dcg([0] * k + [rng.choice(GRADES)] + [0] * rng.randint(0, 3), k, "")


# ----- dcg: the grades ------------------------------------------------------------------------------
def _dcg_nothing_relevant(rng: random.Random) -> Case:
    n = rng.randint(2, 8)
    return _dcg([0] * n, rng.randint(1, n), "")


def _scaled(rng: random.Random) -> Case:
    n = rng.randint(3, 7)
    k = rng.randint(1, n)
    base: list[float] = [rng.choice((0, *FRACTIONS)) for _ in range(n)]
    base[rng.randrange(k)] = rng.choice(FRACTIONS)  # something relevant in the top k
    factor = rng.choice((0.5, 2, 2.5, 3, 4))  # every product is exact in binary
    return _same("dcg", [factor * b for b in base], k, base, k, "", factor=factor)


# ----- ndcg: the ideal ranking ----------------------------------------------------------------------
def _best_below(rng: random.Random) -> Case:
    """The ranking's top k is sorted; the ideal's is ``c`` times it: nDCG@k = 1 / c for any discount."""
    k = rng.randint(2, 3)  # at k = 1 a dcg that skips rank 1 or sums k - 1 ranks divides 0 by 0
    c = rng.choice((2, 3))
    top = sorted((rng.choice((1, 1.5, 2)) for _ in range(k)), reverse=True)  # max <= c * min
    tail = [c * x for x in top] + [0] * rng.randint(0, 2)
    rng.shuffle(tail)
    return _ndcg(top + tail, k, "")


def _perfect(rng: random.Random) -> Case:
    rels = _grades(rng, rng.randint(2, 8))
    rels[:2] = rng.choice(GRADES), rng.choice(GRADES)  # ranks 1 and 2 relevant (as above: no 0 / 0)
    rels.sort(reverse=True)
    return _ndcg(rels, rng.randint(2, len(rels)), "")


# ----- ndcg: the cut-off ----------------------------------------------------------------------------
def _ndcg_k1(rng: random.Random) -> Case:
    rels = _grades(rng, rng.randint(3, 6))
    rels[0] = rng.choice(GRADES)
    rest = rels[1:]
    rng.shuffle(rest)
    return _same("ndcg", rels, 1, [rels[0], *rest], 1, "")


def _ndcg_k_beyond(rng: random.Random) -> Case:
    rels = _grades(rng, rng.randint(2, 6))
    return _same("ndcg", rels, len(rels) + rng.randint(1, 5), rels, len(rels), "")


def _only_below(rng: random.Random) -> Case:
    k = rng.randint(1, 4)
    return _ndcg([0] * k + [rng.choice(GRADES)] + [0] * rng.randint(0, 2), k, "")


# ----- ndcg: nothing relevant, and the contracts ----------------------------------------------------
def _ndcg_nothing_relevant(rng: random.Random) -> Case:
    n = rng.randint(2, 8)
    return _zero([rng.choice((0, 0.0))] * n, rng.randint(1, n), "")


def _contract_of(function: str) -> Draw:
    def draw(rng: random.Random) -> Case:
        n = rng.randint(1, 7)  # a single document too
        k = rng.randint(1, n)
        # fewer than k irrelevant documents: the top k, and the k least relevant, hold a relevant one.
        # A list whose top k are all 0 is the zero and cut-off groups' business; here an ideal built
        # wrongly (unsorted, ascending, from the top k) would divide by 0 in the contract group too.
        zeros = set(rng.sample(range(n), rng.randint(0, k - 1)))
        rels: list[float] = [0 if rank in zeros else rng.choice(GRADES) for rank in range(n)]
        return _contract(function, rels, k)
    return draw


def _templates(*pairs: tuple[str, Draw]) -> tuple[CaseTemplate, ...]:
    return tuple(CaseTemplate(provenance=f"drawn for this submission: {what}", draw=draw) for what, draw in pairs)


#: The templates of every hidden group, by grade id.
TEMPLATES: Mapping[str, tuple[CaseTemplate, ...]] = {
    "test_dcg_discount": _templates(
        ("one relevant document at a rank from 2 to 12", _one_at_a_rank),
        ("several relevant documents", _several_relevant),
        ("a long list", _long_list),
    ),
    "test_dcg_cutoff": _templates(
        ("ranks below k do not count", _below_k),
        ("k larger than the list length", _dcg_k_beyond),
        ("a relevant document just below the cut-off adds nothing", _just_below),
    ),
    "test_dcg_grades": _templates(
        ("nothing relevant", _dcg_nothing_relevant),
        ("scaled and fractional grades", _scaled),
    ),
    "test_dcg_contract": _templates(("a number, input list unchanged", _contract_of("dcg"))),
    "test_ndcg_ideal": _templates(
        ("the best documents sit below the cut-off", _best_below),
        ("a perfect ranking with ties scores 1", _perfect),
    ),
    "test_ndcg_cutoff": _templates(
        ("k=1, only rank 1 counts", _ndcg_k1),
        ("k larger than the list length", _ndcg_k_beyond),
        ("the only relevant document below the cut-off gives 0", _only_below),
    ),
    "test_ndcg_zero": _templates(("nothing relevant, iDCG = 0", _ndcg_nothing_relevant)),
    "test_ndcg_contract": _templates(("a number, input list unchanged", _contract_of("ndcg"))),
}


# ----- witnesses: ordinary rankings on which every way of computing a DCG shows its shape ------------
#: How many rankings each function is called on, per submission.
WITNESSES_PER_FUNCTION = 6


#: Grades of the witnesses drawn first: code written for the usual grades 0, 1, 2 (a table of three
#: gains, three buckets) shows its shape there even where it cannot handle 2.5 or 3.
USUAL = (0, 1, 2)
ANY = (0, 1, 2, 3, 0.5, 1.5, 2.5)


def _ordinary(rng: random.Random, grades: tuple[float, ...]) -> tuple[tuple[float, ...], int]:
    """A ranking of 4 to 10 documents, two relevant ones at least, k inside it."""
    n = rng.randint(4, 10)
    rels: list[float] = [rng.choice((0, *grades)) for _ in range(n)]
    for index in rng.sample(range(n), 2):
        rels[index] = rng.choice([g for g in grades if g])
    return tuple(rels), rng.randint(2, n)


def _mostly_relevant(rng: random.Random, grades: tuple[float, ...]) -> tuple[tuple[float, ...], int]:
    """A ranking with at most two irrelevant documents and k beyond them and beyond rank 1: every ideal
    ranking a known mistake builds (ascending ones too) has a DCG that is not 0, so every model can be
    checked, and so can a DCG that drops the last document (at k = 1 its ideal would be empty)."""
    n = rng.randint(4, 10)
    zeros = rng.randint(0, 2)
    rels: list[float] = [0] * zeros + [rng.choice([g for g in grades if g]) for _ in range(n - zeros)]
    rng.shuffle(rels)
    return tuple(rels), rng.randint(max(zeros + 1, 2), n)


def witnesses(rng: random.Random) -> tuple[Call, ...]:
    """The witness calls of one submission (:attr:`autograder.grading.Exercise.witnesses`).

    dcg on ordinary rankings; ndcg on others, with the student's dcg on every list an ndcg may
    divide (each ideal ranking a known mistake builds), so that an ndcg dividing the student's own
    dcg can be told from one that computes nothing.
    """
    half = WITNESSES_PER_FUNCTION // 2
    calls = [Call("dcg", _ordinary(rng, USUAL if i < half else ANY)) for i in range(WITNESSES_PER_FUNCTION)]
    for i in range(WITNESSES_PER_FUNCTION):
        rels, k = _mostly_relevant(rng, USUAL if i < half else ANY)
        calls += [Call("ndcg", (rels, k)), Call("dcg", (rels, k))]
        for order, scope, cut in itertools.product(ORDERS, SCOPES, CUTS):
            ideal = ideal_list(rels, k, order, scope)
            calls.append(Call("dcg", (ideal, cut.rule(k, len(ideal)))))
    return tuple(dict.fromkeys(calls))
