"""The by-hand steps of one list: the right values (from ``ndcg_ref``) and each hand mistake's.

A student computing nDCG@k by hand writes down four things: the ideal ranking, DCG@k, iDCG@k and
nDCG@k. :func:`right_steps` gives them as the definition says (the values from ``ndcg_ref``, the
single source of truth); :data:`HAND_MISTAKES` are the catalogue's mistakes a hand calculation
makes, each one part of a diagnosis model (:mod:`..diagnosis.variants`) swapped for its mistake,
and :func:`mistaken_steps` what a student making it writes down. :func:`is_fair` decides whether a
list tells them apart at the tolerance the notebook states.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import ndcg_ref

from ..diagnosis.models import DcgModel
from ..diagnosis.variants import CUTOFFS, CUTS, GAINS, ORDERS, RATIOS, SCOPES, WEIGHTS, Variant, ideal_list

#: An answer counts when it is this close to the value (absolute): two decimals, rounded intermediate
#: terms included. Stated in the notebook.
TOLERANCE = 0.01


def answer_matches(answer: float | None, value: float) -> bool:
    """Whether a written-down ``answer`` counts as ``value``: within :data:`TOLERANCE` (None: no answer)."""
    return answer is not None and abs(answer - value) <= TOLERANCE + 1e-12
#: The numbered steps, as the grade cells and the feedback name them.
STEP_NAMES = ("ideal", "dcg", "idcg", "ndcg")


@dataclass(frozen=True)
class Steps:
    """What a hand calculation writes down for one list at cut-off k."""

    #: The ideal ranking: the grades sorted best first (the whole list, or what the calculation used).
    ideal: tuple[float, ...]
    dcg: float
    idcg: float
    ndcg: float

    def number(self, step: str) -> float:
        """The value of ``step`` ("dcg", "idcg" or "ndcg")."""
        if step not in ("dcg", "idcg", "ndcg"):
            raise ValueError(f"no value for the step {step!r}")
        return float(getattr(self, step))


@dataclass(frozen=True)
class HandMistake:
    """One mistake of the catalogue as made by hand: which part of the computation it changes."""

    #: Short name, unique here (the catalogue ID is shared by ln and log10).
    name: str
    gain: Variant[object] = GAINS[0]
    weight: Variant[object] = WEIGHTS[0]
    order: Variant[object] = ORDERS[0]
    scope: Variant[object] = SCOPES[0]
    cut: Variant[Callable[[int, int], int]] = CUTS[0]
    ratio: Variant[Callable[[float, float], float | None]] = RATIOS[0]

    @property
    def wrong_steps(self) -> frozenset[str]:
        """The steps this mistake makes wrong on a fair list (nDCG follows through from the student's own values).

        A wrong gain or discount changes DCG@k and iDCG@k; a wrong ideal ranking changes the ranking
        and iDCG@k; an ideal not cut at k only iDCG@k; an inverted ratio only nDCG@k. An ideal not
        sorted at all gives iDCG@k = DCG@k, so nDCG@k = 1, which no follow-through credits
        (:func:`.marking.follows_through`): it costs nDCG@k too.
        """
        steps: set[str] = set()
        if self.gain is not GAINS[0] or self.weight is not WEIGHTS[0]:
            steps |= {"dcg", "idcg"}
        if self.order is not ORDERS[0] or self.scope is not SCOPES[0]:
            steps |= {"ideal", "idcg"}
        if self.order.name == "none":
            steps.add("ndcg")
        if self.cut is not CUTS[0]:
            steps.add("idcg")
        if self.ratio is not RATIOS[0]:
            steps.add("ndcg")
        return frozenset(steps)

    @property
    def mistake(self) -> str:
        """The catalogue ID of the mistake."""
        parts = (self.gain, self.weight, self.order, self.scope, self.cut, self.ratio)
        return next(mistake for part in parts for mistake in part.mistakes)


_Rule = TypeVar("_Rule")


def _variant(table: tuple[Variant[_Rule], ...], name: str) -> Variant[_Rule]:
    return next(v for v in table if v.name == name)


#: The mistakes the exams' by-hand tasks are marked for, each with one part changed.
HAND_MISTAKES: tuple[HandMistake, ...] = (
    HandMistake("natural log", weight=_variant(WEIGHTS, "ln(i+1)")),
    HandMistake("log10", weight=_variant(WEIGHTS, "log10(i+1)")),
    HandMistake("gain 2^rel - 1", gain=_variant(GAINS, "exponential")),
    HandMistake("Järvelin–Kekäläinen discount", weight=_variant(WEIGHTS, "jk log2(i)")),
    HandMistake("ideal not sorted", order=_variant(ORDERS, "none")),
    HandMistake("ideal from the top k only", scope=_variant(SCOPES, "top-k")),
    HandMistake("ideal not cut at k", cut=_variant(CUTS, "len")),
    HandMistake("ratio inverted", ratio=_variant(RATIOS, "inverted")),
)


def right_steps(rels: tuple[int, ...], k: int) -> Steps:
    """The four steps as the definition gives them, every value from ``ndcg_ref``."""
    return Steps(
        tuple(float(g) for g in sorted(rels, reverse=True)),
        ndcg_ref.dcg(rels, k), ndcg_ref.idcg(rels, k), ndcg_ref.ndcg(rels, k),
    )


def mistaken_steps(rels: tuple[int, ...], k: int, mistake: HandMistake) -> Steps:
    """What a student making ``mistake`` (and no other) writes down, with the diagnosis models' parts."""
    grades = tuple(float(g) for g in rels)
    model = DcgModel(mistake.gain, mistake.weight, CUTOFFS[0])  # type: ignore[arg-type]
    ideal = ideal_list(grades, k, mistake.order, mistake.scope)  # type: ignore[arg-type]
    dcg = model.value(grades, k)
    idcg = model.value(ideal, mistake.cut.rule(k, len(ideal)))
    ratio = mistake.ratio.rule(dcg, idcg)  # None: a zero division, written down as 0
    return Steps(ideal, dcg, idcg, 0.0 if ratio is None else ratio)


def every_steps(rels: tuple[int, ...], k: int) -> dict[str, Steps]:
    """The right steps (under "right") and each hand mistake's, by name."""
    steps = {"right": right_steps(rels, k)}
    steps.update({m.name: mistaken_steps(rels, k, m) for m in HAND_MISTAKES})
    return steps


def _apart(a: float, b: float) -> bool:
    """Equal (the same arithmetic), or too far apart for one answer to count as both."""
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9) or abs(a - b) > 2 * TOLERANCE


def is_fair(rels: tuple[int, ...], k: int) -> bool:
    """Whether every hand mistake shows on this list, and each differently.

    Fair means: every mistake changes every one of its :attr:`HandMistake.wrong_steps`, a value by
    more than twice the tolerance (so each mistake costs the same steps on every student's list: a
    gain of 2^rel - 1 is the grade itself for grades 0 and 1, and would leave DCG@k of a top k of
    such grades right); in every step, any two of the right calculation and the mistakes give the
    same value or values more than twice the tolerance apart (no answer can count for both); and
    any two of them differ in some step; and every calculation that sorts its ideal ranking gives a
    DCG@k below its iDCG@k by more than twice the tolerance (so nDCG@k's follow-through,
    :func:`.marking.follows_through`, is the same for a mistake on every list; an ideal not sorted
    gives iDCG@k = DCG@k on every list).
    """
    steps = every_steps(rels, k)
    right = steps["right"]
    for mistake in HAND_MISTAKES:
        theirs = steps[mistake.name]
        if mistake.order is ORDERS[0] and not 0 < theirs.dcg < theirs.idcg - 2 * TOLERANCE:
            return False
        for step in mistake.wrong_steps:
            if step == "ideal" and theirs.ideal[:k] == right.ideal[:k]:
                return False
            if step != "ideal" and abs(theirs.number(step) - right.number(step)) <= 2 * TOLERANCE:
                return False
    # the values read once per calculation: the pool's generator asks this of every list of the shape
    written = [((s.dcg, s.idcg, s.ndcg), s.ideal[:k]) for s in steps.values()]
    for (a, a_ideal), (b, b_ideal) in itertools.combinations(written, 2):
        if not all(_apart(x, y) for x, y in zip(a, b, strict=True)):
            return False
        if a_ideal == b_ideal and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b, strict=True)):
            return False
    return True
