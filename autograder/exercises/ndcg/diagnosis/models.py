"""Models of how a student's dcg and ndcg may compute: one choice from every table of :mod:`.variants`.

Every combination is a model; the matching (:mod:`.matching`) picks the one with the fewest
mistakes that agrees with every value the student's function returned on the probes.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import ndcg_ref

from ....grading import Call
from .probes import k_of, rels_of
from .variants import CUTOFFS, CUTS, GAINS, ORDERS, RATIOS, ROUNDINGS, SCOPES, SOURCES, WEIGHTS, Variant, ideal_list
from .variants import mistakes_of as _mistakes_of

#: The student's dcg values on the auxiliary probes: ``{(rels, k): value}``.
StudentDcg = Mapping[tuple[tuple[float, ...], int], float]


@functools.lru_cache(maxsize=4096)
def _reference_dcg(rels: tuple[float, ...], k: int, gain: Literal["linear", "exponential"]) -> float:
    return ndcg_ref.dcg(list(rels), k, gain=gain)


@dataclass(frozen=True)
class DcgModel:
    """A dcg: a gain, a discount weight, a cut-off and a rounding."""

    gain: Variant[Callable[[float], float]] = GAINS[0]
    weight: Variant[Callable[[int], float]] = WEIGHTS[0]
    cutoff: Variant[Callable[[int, int], int]] = CUTOFFS[0]
    rounding: int | None = None

    def predict(self, call: Call, student_dcg: StudentDcg) -> float | None:
        """The model's value of ``dcg(rels, k)``."""
        rels, k = rels_of(call), k_of(call)
        n = self.cutoff.rule(k, len(rels))
        value = math.fsum(self.gain.rule(rels[i]) * self.weight.rule(i + 1) for i in range(n))
        return value if self.rounding is None else round(value, self.rounding)

    @property
    def mistakes(self) -> list[str]:
        """The catalogue IDs of the parts that are not the lecture's."""
        return _mistakes_of((self.gain, self.weight, self.cutoff), self.rounding)


DCG_MODELS = tuple(
    DcgModel(g, w, c, r) for r, g, w, c in itertools.product(ROUNDINGS, GAINS, WEIGHTS, CUTOFFS)
)


@dataclass(frozen=True)
class NdcgModel:
    """An ndcg: whose DCG it divides, how it builds and cuts the ideal ranking, the ratio, a rounding."""

    source: Variant[Literal["linear", "exponential"] | None] = SOURCES[0]
    order: Variant[Callable[[list[float]], list[float]]] = ORDERS[0]
    scope: Variant[bool] = SCOPES[0]
    cut: Variant[bool] = CUTS[0]
    ratio: Variant[str] = RATIOS[0]
    rounding: int | None = None

    def _dcg(self, rels: tuple[float, ...], k: int, student_dcg: StudentDcg) -> float | None:
        gain = self.source.rule
        return student_dcg.get((rels, k)) if gain is None else _reference_dcg(rels, k, gain)

    def predict(self, call: Call, student_dcg: StudentDcg) -> float | None:
        """The model's value of ``ndcg(rels, k)``; None where it is undefined (a zero division, a missing value)."""
        rels, k = rels_of(call), k_of(call)
        actual = self._dcg(rels, k, student_dcg)
        ideal_ranking = ideal_list(rels, k, self.order, self.scope)
        ideal = self._dcg(ideal_ranking, k if self.cut.rule else len(ideal_ranking), student_dcg)
        if actual is None or ideal is None:
            return None
        value: float | None
        if self.ratio.rule == "unnormalised":
            value = actual
        elif self.ratio.rule == "normal":
            value = actual / ideal if ideal else None
        else:
            value = ideal / actual if actual else None
        if value is None or self.rounding is None:
            return value
        return round(value, self.rounding)

    @property
    def mistakes(self) -> list[str]:
        """The catalogue IDs of the parts that are not the lecture's (an unnormalised one has no ideal)."""
        if self.ratio.rule == "unnormalised":
            return _mistakes_of((self.source, self.ratio), self.rounding)
        return _mistakes_of((self.source, self.order, self.scope, self.cut, self.ratio), self.rounding)


NDCG_MODELS = tuple(
    NdcgModel(s, o, sc, c, ra, r)
    for r, s, o, sc, c, ra in itertools.product(ROUNDINGS, SOURCES, ORDERS, SCOPES, CUTS, RATIOS)
    if ra.rule != "unnormalised" or (o, sc, c) == (ORDERS[0], SCOPES[0], CUTS[0])
)
