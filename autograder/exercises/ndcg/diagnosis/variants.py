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


# ----- parts of a DCG -----------------------------------------------------------------------

GAINS: tuple[Variant[Callable[[float], float]], ...] = (
    Variant("linear", lambda r: r),
    Variant("exponential", lambda r: 2.0**r - 1.0, "exponential-gain"),
)
#: Weight of the document at 1-based rank i (the factor its gain is multiplied with).
WEIGHTS: tuple[Variant[Callable[[int], float]], ...] = (
    Variant("log2(i+1)", lambda i: 1 / math.log2(i + 1)),
    Variant("ln(i+1)", lambda i: 1 / math.log(i + 1), "log-base"),
    Variant("log10(i+1)", lambda i: 1 / math.log10(i + 1), "log-base"),
    Variant("jk log2(i)", lambda i: 1.0 if i == 1 else 1 / math.log2(i), "discount-offset"),
    Variant("log2(i+2)", lambda i: 1 / math.log2(i + 2), "discount-offset"),
    Variant("first skipped", lambda i: 0.0 if i == 1 else 1 / math.log2(i), "discount-offset"),
    Variant("none", lambda i: 1.0, "no-discount"),
    Variant("multiplied", lambda i: math.log2(i + 1), "discount-multiplied"),
)
#: How many documents are summed, given k and the list's length n.
CUTOFFS: tuple[Variant[Callable[[int, int], int]], ...] = (
    Variant("k", lambda k, n: min(k, n)),
    Variant("all", lambda k, n: n, "cutoff-ignored"),
    Variant("k-1", lambda k, n: max(min(k, n) - 1, 0), "cutoff-off-by-one"),
    Variant("k+1", lambda k, n: min(k + 1, n), "cutoff-off-by-one"),
)

# ----- parts of an nDCG ---------------------------------------------------------------------

#: The ideal ranking's order.
ORDERS: tuple[Variant[Callable[[list[float]], list[float]]], ...] = (
    Variant("desc", lambda rels: sorted(rels, reverse=True)),
    Variant("asc", lambda rels: sorted(rels), "ideal-ascending"),
    Variant("none", lambda rels: list(rels), "ideal-not-sorted"),
)
#: Which documents the ideal ranking is built from: all of them, or the top k.
SCOPES: tuple[Variant[bool], ...] = (Variant("all", False), Variant("top-k", True, "ideal-from-top-k"))
#: Where the ideal ranking is cut: at k, or not at all.
CUTS: tuple[Variant[bool], ...] = (Variant("k", True), Variant("len", False, "ideal-not-cut"))
#: What is returned: DCG/iDCG, iDCG/DCG, or DCG itself.
RATIOS: tuple[Variant[str], ...] = (
    Variant("normal", "normal"),
    Variant("inverted", "inverted", "ratio-inverted"),
    Variant("unnormalised", "unnormalised", "not-normalized"),
)


def ideal_list(rels: tuple[float, ...], k: int, order: Variant[Callable[[list[float]], list[float]]],
               scope: Variant[bool]) -> tuple[float, ...]:
    """The ideal ranking a model builds from ``rels`` (not yet cut)."""
    base = list(rels[:k] if scope.rule else rels)
    return tuple(order.rule(base))


def mistakes_of(parts: tuple[Variant[object], ...], rounding: int | None) -> list[str]:
    """The catalogue IDs of the parts that are not the lecture's, in order, and of the rounding."""
    ids = [part.mistake for part in parts if part.mistake is not None]
    return ids + ([ROUNDED] if rounding is not None else [])


def mistake_ids() -> set[str]:
    """Every catalogue ID a model can report."""
    tables: tuple[tuple[Variant[object], ...], ...] = (GAINS, WEIGHTS, CUTOFFS, ORDERS, SCOPES, CUTS, RATIOS)
    return {v.mistake for table in tables for v in table if v.mistake is not None} | {ROUNDED}
