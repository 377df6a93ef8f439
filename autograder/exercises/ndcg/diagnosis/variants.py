"""The ways a DCG or nDCG can be computed, each declared once with the mistake it is (if any).

A diagnosis model (:mod:`.models`) is one choice from every table below. A variant whose
``mistake`` is ``None`` is the lecture's definition; any other names its entry in the
catalogue (:mod:`..catalogue`), so a model's mistakes are the mistakes of its parts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

F = TypeVar("F", covariant=True)

#: The catalogue ID of a result rounded to some decimals (a choice of every model).
ROUNDED = "rounded"
#: Decimals a rounding model rounds to (None: not rounded): round(x, n) and float(f"{x:.{n}f}") alike.
#: Rounding to 9 or more decimals changes a value by less than the grader's tolerance: not a mistake.
ROUNDINGS: tuple[int | None, ...] = (None, *range(9))


@dataclass(frozen=True)
class Variant(Generic[F]):
    """One way of doing one part of the computation."""

    name: str
    rule: F
    #: The catalogue ID of this mistake; None for the lecture's definition.
    mistake: str | None = None
    #: Further catalogue IDs, for a variant that makes two mistakes in one expression (a discount
    #: in ln i with rank 1 left undiscounted is a wrong base *and* a wrong offset).
    also: tuple[str, ...] = ()

    @property
    def mistakes(self) -> tuple[str, ...]:
        """Every catalogue ID this variant is (none for the lecture's definition)."""
        return ((self.mistake,) if self.mistake is not None else ()) + self.also


# ----- parts of a DCG -----------------------------------------------------------------------

GAINS: tuple[Variant[Callable[[float], float]], ...] = (
    Variant("linear", lambda r: r),
    Variant("exponential", lambda r: 2.0**r - 1.0, "exponential-gain"),
    # int(rel): fractional grades lose their fraction; a grade below 1 counted as "not relevant"
    Variant("int(rel)", lambda r: float(math.floor(r)), "grades-truncated"),
    Variant("below 1 dropped", lambda r: r if r >= 1 else 0.0, "grades-truncated"),
    Variant("binary", lambda r: 1.0 if r > 0 else 0.0, "binary-relevance"),
)
#: Weight of the document at 1-based rank i (the factor its gain is multiplied with).
WEIGHTS: tuple[Variant[Callable[[int], float]], ...] = (
    Variant("log2(i+1)", lambda i: 1 / math.log2(i + 1)),
    Variant("ln(i+1)", lambda i: 1 / math.log(i + 1), "log-base"),
    Variant("log10(i+1)", lambda i: 1 / math.log10(i + 1), "log-base"),
    Variant("jk log2(i)", lambda i: 1.0 if i == 1 else 1 / math.log2(i), "discount-offset"),
    Variant("log2(i+2)", lambda i: 1 / math.log2(i + 2), "discount-offset"),
    # the loop started at index 1: rank 1 adds nothing (with log2(i + 1) over 0-based i after it)
    Variant("first skipped", lambda i: 0.0 if i == 1 else 1 / math.log2(i), "first-rank-skipped"),
    # the sum started at rank 2, the lecture's discount for the others
    Variant("rank 1 skipped", lambda i: 0.0 if i == 1 else 1 / math.log2(i + 1), "first-rank-skipped"),
    # rank 1 undiscounted, then one more than the Järvelin–Kekäläinen log2(i) from rank 2 on
    Variant("jk log2(i+2)", lambda i: 1.0 if i == 1 else 1 / math.log2(i + 2), "discount-offset"),
    Variant("jk ln(i)", lambda i: 1.0 if i == 1 else 1 / math.log(i), "discount-offset", ("log-base",)),
    Variant("none", lambda i: 1.0, "no-discount"),
    Variant("multiplied", lambda i: math.log2(i + 1), "discount-multiplied"),
)
#: How many documents are summed, given k and the ranking.
CUTOFFS: tuple[Variant[Callable[[int, tuple[float, ...]], int]], ...] = (
    Variant("k", lambda k, rels: min(k, len(rels))),
    Variant("all", lambda k, rels: len(rels), "cutoff-ignored"),
    Variant("k-1", lambda k, rels: max(min(k, len(rels)) - 1, 0), "cutoff-off-by-one"),
    Variant("k+1", lambda k, rels: min(k + 1, len(rels)), "cutoff-off-by-one"),
    # recommender code's k = min(k, number of relevant items)
    Variant("relevant", lambda k, rels: min(k, sum(1 for r in rels if r > 0)), "cutoff-at-relevant"),
)

# ----- parts of an nDCG ---------------------------------------------------------------------

#: The ideal ranking's order.
ORDERS: tuple[Variant[Callable[[list[float]], list[float]]], ...] = (
    Variant("desc", lambda rels: sorted(rels, reverse=True)),
    Variant("asc", lambda rels: sorted(rels), "ideal-ascending"),
    Variant("none", lambda rels: list(rels), "ideal-not-sorted"),
    # iDCG from the number of relevant documents, each counted as 1 (recommender code's ideal)
    Variant("binary", lambda rels: sorted((1.0 if r > 0 else 0.0 for r in rels), reverse=True), "binary-relevance"),
    # every retrieved position taken as relevant (grade 1)
    Variant("all relevant", lambda rels: [1.0] * len(rels), "ideal-all-relevant"),
)
#: Which documents the ideal ranking is built from, given the ranking and k: all of them, or the top k.
SCOPES: tuple[Variant[Callable[[tuple[float, ...], int], tuple[float, ...]]], ...] = (
    Variant("all", lambda rels, k: rels),
    Variant("top-k", lambda rels, k: rels[:k], "ideal-from-top-k"),
)
#: Where the ideal DCG is cut, from k and the ideal list's length: at k, or not at all.
CUTS: tuple[Variant[Callable[[int, int], int]], ...] = (
    Variant("k", lambda k, length: k), Variant("len", lambda k, length: length, "ideal-not-cut"),
)
#: What is returned from the DCG and the ideal DCG: DCG/iDCG, iDCG/DCG, or DCG itself (None: a zero division).
RATIOS: tuple[Variant[Callable[[float, float], float | None]], ...] = (
    Variant("normal", lambda dcg, ideal: dcg / ideal if ideal else None),
    Variant("inverted", lambda dcg, ideal: ideal / dcg if dcg else None, "ratio-inverted"),
    Variant("unnormalised", lambda dcg, ideal: dcg, "not-normalized"),
)
#: The ratio that is no ratio: its models ignore the ideal ranking.
UNNORMALISED = RATIOS[2]


def ideal_list(rels: tuple[float, ...], k: int, order: Variant[Callable[[list[float]], list[float]]],
               scope: Variant[Callable[[tuple[float, ...], int], tuple[float, ...]]]) -> tuple[float, ...]:
    """The ideal ranking a model builds from ``rels`` (not yet cut)."""
    return tuple(order.rule(list(scope.rule(rels, k))))


def mistakes_of(parts: tuple[Variant[object], ...], rounding: int | None) -> list[str]:
    """The catalogue IDs of the parts that are not the lecture's, in order, and of the rounding."""
    ids = [mistake for part in parts for mistake in part.mistakes]
    return list(dict.fromkeys(ids)) + ([ROUNDED] if rounding is not None else [])
