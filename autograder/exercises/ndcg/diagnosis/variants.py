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
    #: What code that does it does, in the student's terms ("divides the grade at rank i by log2(i + 2)"):
    #: a mistake's example names the student's own way (a mistake has several).
    does: str = ""

    @property
    def mistakes(self) -> tuple[str, ...]:
        """Every catalogue ID this variant is (none for the lecture's definition)."""
        return ((self.mistake,) if self.mistake is not None else ()) + self.also


# ----- parts of a DCG -----------------------------------------------------------------------

GAINS: tuple[Variant[Callable[[float], float]], ...] = (
    Variant("linear", lambda r: r),
    Variant("exponential", lambda r: 2.0**r - 1.0, "exponential-gain", does="takes 2^grade - 1 as the gain"),
    # int(rel): fractional grades lose their fraction; a grade below 1 counted as "not relevant"
    Variant("int(rel)", lambda r: float(math.floor(r)), "grades-truncated", does="drops each grade's fraction (int)"),
    Variant("below 1 dropped", lambda r: r if r >= 1 else 0.0, "grades-truncated", does="drops the grades below 1"),
    Variant("binary", lambda r: 1.0 if r > 0 else 0.0, "binary-relevance", does="counts every grade above 0 as 1"),
)
#: Weight of the document at 1-based rank i (the factor its gain is multiplied with).
WEIGHTS: tuple[Variant[Callable[[int], float]], ...] = (
    Variant("log2(i+1)", lambda i: 1 / math.log2(i + 1)),
    Variant("ln(i+1)", lambda i: 1 / math.log(i + 1), "log-base", does="divides the grade at rank i by ln(i + 1)"),
    Variant("log10(i+1)", lambda i: 1 / math.log10(i + 1), "log-base",
            does="divides the grade at rank i by log10(i + 1)"),
    Variant("jk log2(i)", lambda i: 1.0 if i == 1 else 1 / math.log2(i), "discount-offset",
            does="leaves rank 1 undiscounted and divides the grade at rank i from 2 on by log2(i)"),
    Variant("log2(i+2)", lambda i: 1 / math.log2(i + 2), "discount-offset",
            does="divides the grade at rank i by log2(i + 2)"),
    # the loop started at index 1: rank 1 adds nothing (with log2(i + 1) over 0-based i after it)
    Variant("first skipped", lambda i: 0.0 if i == 1 else 1 / math.log2(i), "first-rank-skipped",
            does="leaves rank 1 out and divides the grade at rank i from 2 on by log2(i)"),
    # the sum started at rank 2, the lecture's discount for the others
    Variant("rank 1 skipped", lambda i: 0.0 if i == 1 else 1 / math.log2(i + 1), "first-rank-skipped",
            does="leaves rank 1 out"),
    # rank 1 undiscounted, then one more than the Järvelin–Kekäläinen log2(i) from rank 2 on
    Variant("jk log2(i+2)", lambda i: 1.0 if i == 1 else 1 / math.log2(i + 2), "discount-offset",
            does="leaves rank 1 undiscounted and divides the grade at rank i from 2 on by log2(i + 2)"),
    Variant("jk ln(i)", lambda i: 1.0 if i == 1 else 1 / math.log(i), "discount-offset", ("log-base",),
            does="leaves rank 1 undiscounted and divides the grade at rank i from 2 on by ln(i)"),
    Variant("none", lambda i: 1.0, "no-discount", does="adds up the grades without dividing them"),
    Variant("multiplied", lambda i: math.log2(i + 1), "discount-multiplied",
            does="multiplies the grade at rank i by log2(i + 1)"),
)
#: How many documents are summed, given k and the ranking.
CUTOFFS: tuple[Variant[Callable[[int, tuple[float, ...]], int]], ...] = (
    Variant("k", lambda k, rels: min(k, len(rels))),
    Variant("all", lambda k, rels: len(rels), "cutoff-ignored", does="sums the whole list, whatever k"),
    Variant("k-1", lambda k, rels: max(min(k, len(rels)) - 1, 0), "cutoff-off-by-one", does="sums k - 1 documents"),
    Variant("k+1", lambda k, rels: min(k + 1, len(rels)), "cutoff-off-by-one", does="sums k + 1 documents"),
    # recommender code's k = min(k, number of relevant items)
    Variant("relevant", lambda k, rels: min(k, sum(1 for r in rels if r > 0)), "cutoff-at-relevant",
            does="stops after as many documents as are relevant"),
)

# ----- parts of an nDCG ---------------------------------------------------------------------

#: The ideal ranking's order.
ORDERS: tuple[Variant[Callable[[list[float]], list[float]]], ...] = (
    Variant("desc", lambda rels: sorted(rels, reverse=True)),
    Variant("asc", lambda rels: sorted(rels), "ideal-ascending", does="sorts the ideal ranking worst first"),
    Variant("none", lambda rels: list(rels), "ideal-not-sorted", does="takes the ranking itself as the ideal"),
    # iDCG from the number of relevant documents, each counted as 1 (recommender code's ideal)
    Variant("binary", lambda rels: sorted((1.0 if r > 0 else 0.0 for r in rels), reverse=True), "binary-relevance",
            does="makes the ideal of the number of relevant documents, each a gain of 1"),
    # every retrieved position taken as relevant (grade 1)
    Variant("all relevant", lambda rels: [1.0] * len(rels), "ideal-all-relevant",
            does="makes the ideal of every position of the top k, each a gain of 1"),
)
#: Which documents the ideal ranking is built from, given the ranking and k: all of them, or the top k.
SCOPES: tuple[Variant[Callable[[tuple[float, ...], int], tuple[float, ...]]], ...] = (
    Variant("all", lambda rels, k: rels),
    Variant("top-k", lambda rels, k: rels[:k], "ideal-from-top-k", does="sorts only the top k for the ideal"),
)
#: Where the ideal DCG is cut, from k and the ideal list's length: at k, or not at all.
CUTS: tuple[Variant[Callable[[int, int], int]], ...] = (
    Variant("k", lambda k, length: k),
    Variant("len", lambda k, length: length, "ideal-not-cut", does="does not cut the ideal DCG at k"),
)
#: What is returned from the DCG and the ideal DCG: DCG/iDCG, iDCG/DCG, or DCG itself (None: a zero division).
RATIOS: tuple[Variant[Callable[[float, float], float | None]], ...] = (
    Variant("normal", lambda dcg, ideal: dcg / ideal if ideal else None),
    Variant("inverted", lambda dcg, ideal: ideal / dcg if dcg else None, "ratio-inverted", does="divides iDCG by DCG"),
    Variant("unnormalised", lambda dcg, ideal: dcg, "not-normalized", does="returns the DCG itself"),
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
