"""DCG-shaped functions the catalogue has no name for: what "computes some DCG" admits beyond the models.

A DCG sums, over the top ranks of the list, the gain of each grade times a weight that falls with the
rank. The diagnosis models (:mod:`.models`) are the lecture's definition and combinations of known
mistakes; real code also computes DCGs that no catalogue entry names: a discount shifted by a few ranks
(``log2(i + 3)``), scaled (``2 / log2(i + 1)``, a natural log with rank 1 undiscounted), the last
document of the list dropped, or such a twist on top of a known mistake. Those compute a DCG, wrongly:
the evidence rule (:mod:`.likeness`) must give them the groups whose cases they meet.

A *shape* is a known gain, a logarithmic discount ``1 / log2(i + s)`` for a shift ``s`` (every rank,
or rank 1 undiscounted, or rank 1 skipped; the known discounts too) and a cut-off (the known ones, or
the last document dropped), times a positive scale fitted to the values. It is deliberately no wider:
a free weight per rank would fit "the sum of the top k plus the first grade", which computes nothing a
lecture calls DCG; and a hit count (binary gain, no discount) stays what it is, no DCG.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ....grading import Call
from .probes import k_of, rels_of
from .variants import CUTOFFS, GAINS, WEIGHTS

#: Shifts of the logarithm's argument tried (the 1-based rank i in log2(i + s)); the lecture's is 1.
SHIFTS = tuple(range(11))
#: Ranks the weights are tabled for; a longer list's further ranks are computed when asked.
_TABLED = 64
#: How many values the scale is fitted on (the median of their ratios: one odd value does not move it).
_FIT_ON = 7


#: Bases of the logarithm with rank 1 undiscounted (with every rank discounted the base is a scale).
BASES = (2.0, math.e, 10.0)


def _shifted(s: int, first: str, base: float = 2.0) -> Callable[[int], float] | None:
    """``1 / log(i + s)`` from rank 2 on; rank 1 the same (``first="same"``), 1 or 0. None if undefined."""
    if first == "same" and s < 1:
        return None  # log2(1) = 0: rank 1 would divide by zero
    rank_one = {"same": None, "undiscounted": 1.0, "skipped": 0.0}[first]
    return lambda i: rank_one if i == 1 and rank_one is not None else 1 / math.log(i + s, base)


@functools.cache
def discounts() -> tuple[tuple[str, Callable[[int], float]], ...]:
    """Every discount a shape may have (name, weight of the 1-based rank), each weight sequence once."""
    found: dict[tuple[float, ...], tuple[str, Callable[[int], float]]] = {}
    candidates = [(w.name, w.rule) for w in WEIGHTS]
    forms = [("same", 2.0), *(("undiscounted", base) for base in BASES), ("skipped", 2.0)]
    for (first, base), s in itertools.product(forms, SHIFTS):
        rule = _shifted(s, first, base)
        if rule is not None:
            candidates.append((f"1/log_{base:.3g}(i+{s}), rank 1 {first}", rule))
    for name, rule in candidates:
        # the same weights up to a scale are the same shape (a natural log is log2 scaled)
        weights = tuple(rule(i) for i in range(1, 12))
        top = max(weights)
        found.setdefault(tuple(round(w / top, 12) for w in weights), (name, rule))
    return tuple(found.values())


#: How many documents a shape sums: the known cut-offs, and the last document of the list dropped.
SHAPE_CUTOFFS: tuple[tuple[str, Callable[[int, tuple[float, ...]], int]], ...] = (
    *((c.name, c.rule) for c in CUTOFFS),
    ("last dropped", lambda k, rels: max(min(k, len(rels) - 1), 0)),
)


@dataclass(frozen=True)
class Shape:
    """A gain, a discount and a cut-off, before the scale: ``sum(gain(rel_i) * weight(i))`` over the cut."""

    gain: Callable[[float], float]
    weight: Callable[[int], float]
    cutoff: Callable[[int, tuple[float, ...]], int]
    name: str

    @functools.cached_property
    def _weights(self) -> tuple[float, ...]:
        return tuple(self.weight(i) for i in range(1, _TABLED + 1))

    def unscaled(self, rels: tuple[float, ...], k: int) -> float:
        """The shape's value of ``rels`` at ``k`` with scale 1."""
        weights = self._weights
        n = self.cutoff(k, rels)
        return math.fsum(
            self.gain(rels[i]) * (weights[i] if i < _TABLED else self.weight(i + 1)) for i in range(n)
        )


@functools.cache
def shapes() -> tuple[Shape, ...]:
    """Every shape, built once: each gain with each discount and cut-off, but no hit count.

    Binary relevance with no discount counts the relevant documents in the top k: no DCG (the models
    leave it out of the evidence too, :func:`.likeness._weighs_something`).
    """
    flat = {name for name, rule in discounts() if all(rule(i) == rule(1) for i in range(1, 12))}
    return tuple(
        Shape(gain.rule, rule, cut, f"{gain.name} gain, {name}, cut {cut_name}")
        for gain in GAINS for name, rule in discounts() for cut_name, cut in SHAPE_CUTOFFS
        if not (gain.mistake == "binary-relevance" and name in flat)
    )


@dataclass(frozen=True)
class Scaled:
    """A shape times a positive scale, with a rounding: the diagnosis models' interface (``matching.Model``)."""

    shape: Shape
    scale: float
    rounding: int | None = None

    @property
    def mistakes(self) -> list[str]:
        """None the catalogue names (a shape is what the catalogue does not know)."""
        return []

    def predict(self, call: Call, student_dcg: Mapping[tuple[tuple[float, ...], int], float]) -> float | None:
        """The scaled shape's value of ``dcg(rels, k)`` (``student_dcg`` is not needed by a dcg)."""
        value = self.scale * self.shape.unscaled(rels_of(call), k_of(call))
        return value if self.rounding is None else round(value, self.rounding)

    def fixed(self, mistake: str) -> Scaled | None:
        """Nothing to fix that the catalogue names."""
        return None


def fitted_scale(shape: Shape, observed: Mapping[Call, float], spread: float) -> float | None:
    """The scale that makes ``shape`` fit ``observed`` (the median ratio on a few values), if it may.

    None when too few values are not 0 for both, the scale is not positive, or the ratios scatter: a
    shape that fits has (nearly) one ratio on every value, so most of the few must lie within
    ``spread`` (relative) of their median. That rejects the shapes that do not fit on a handful of
    values, before a full comparison.
    """
    ratios = []
    for call, value in observed.items():
        predicted = shape.unscaled(rels_of(call), k_of(call))
        if predicted and value:
            ratios.append(value / predicted)
            if len(ratios) == _FIT_ON:
                break
    if len(ratios) < 3:
        return None
    scale = statistics.median(ratios)
    if not (scale > 0 and math.isfinite(scale)):
        return None
    agreeing = sum(1 for r in ratios if abs(r - scale) <= spread * scale)
    return scale if agreeing >= len(ratios) - 1 else None


def rounded_scale(shape: Shape, observed: Mapping[Call, float], half_unit: float) -> float | None:
    """The scale that makes ``shape`` fit values rounded to within ``half_unit`` (``observed``: largest first).

    A rounded value ``v`` of a scaled shape says only that the scale lies in ``[(v - h) / p, (v + h) / p]``
    for the shape's value ``p``: a median of ratios scatters by the rounding on small values (half a unit of
    2 decimals on a value of 0.3 is 2 %). The scale fits when these intervals meet, tried on the largest
    values first (the narrowest); the middle of where all meet is returned, None when they do not meet.
    """
    low, high, used = 0.0, math.inf, 0
    for call, value in observed.items():  # the largest first: a shape that does not fit is told on a few values
        predicted = shape.unscaled(rels_of(call), k_of(call))
        if predicted <= 0 or value <= 0:
            continue
        low, high = max(low, (value - half_unit) / predicted), min(high, (value + half_unit) / predicted)
        used += 1
        if high < low * (1 - 1e-9):
            return None
    # from every value, not a few: a scale off by 1e-5 turns 1.3175 into 1.317 instead of 1.318
    return (low + high) / 2 if used >= 3 and math.isfinite(high) else None
