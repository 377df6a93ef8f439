"""Models of how a student's dcg and ndcg may compute: one choice from every table of :mod:`.variants`.

Every combination is a model; the matching (:mod:`.matching`) picks the one with the fewest
mistakes that agrees with every value the student's function returned on the probes. An ndcg
model divides either the student's own dcg or a DCG it computes itself with any gain, discount
and cut-off a dcg model knows, combined with every way of building the ideal ranking; the
models come sorted by how many mistakes they have, so the first that agrees is the answer.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from ....grading import Call
from .probes import k_of, rels_of
from .variants import (
    CUTOFFS,
    CUTS,
    GAINS,
    ORDERS,
    RATIOS,
    ROUNDED,
    ROUNDINGS,
    SCOPES,
    UNNORMALISED,
    WEIGHTS,
    Variant,
    ideal_list,
)
from .variants import mistakes_of as _mistakes_of


class _Mistaken(Protocol):
    @property
    def mistakes(self) -> list[str]: ...


M = TypeVar("M", bound=_Mistaken)
T = TypeVar("T", "DcgModel", "NdcgModel")

#: The student's dcg values on the auxiliary probes: ``{(rels, k): value}``.
StudentDcg = Mapping[tuple[tuple[float, ...], int], float]


@dataclass(frozen=True)
class DcgModel:
    """A dcg: a gain, a discount weight, a cut-off and a rounding."""

    gain: Variant[Callable[[float], float]] = GAINS[0]
    weight: Variant[Callable[[int], float]] = WEIGHTS[0]
    cutoff: Variant[Callable[[int, tuple[float, ...]], int]] = CUTOFFS[0]
    rounding: int | None = None

    def value(self, rels: tuple[float, ...], k: int) -> float:
        """The model's DCG of ``rels`` at ``k``."""
        return _dcg_value(self, rels, k)

    def predict(self, call: Call, student_dcg: StudentDcg) -> float | None:
        """The model's value of ``dcg(rels, k)``.

        ``student_dcg`` is not needed by a dcg: it is the parameter of the models' common interface
        (``matching.Model``), which an ndcg dividing the student's own dcg needs.
        """
        return self.value(rels_of(call), k_of(call))

    @property
    def mistakes(self) -> list[str]:
        """The catalogue IDs of the parts that are not the lecture's."""
        return _mistakes_of((self.gain, self.weight, self.cutoff), self.rounding)

    def fixed(self, mistake: str) -> DcgModel | None:
        """This model with only ``mistake`` put right (None if a part makes it with another mistake)."""
        return _fixed(self, mistake, {"gain": GAINS[0], "weight": WEIGHTS[0], "cutoff": CUTOFFS[0]})


@functools.lru_cache(maxsize=1 << 16)
def _dcg_value(model: DcgModel, rels: tuple[float, ...], k: int) -> float:
    n = model.cutoff.rule(k, rels)
    value = math.fsum(model.gain.rule(rels[i]) * model.weight.rule(i + 1) for i in range(n))
    return value if model.rounding is None else round(value, model.rounding)


def _by_mistakes(models: Iterable[M], count: Callable[[M], int] | None = None) -> tuple[M, ...]:
    """Fewest mistakes first (a stable sort: among equals, the order of the tables).

    ``count`` gives a model's number of mistakes (default: ``len(model.mistakes)``).
    """
    return tuple(sorted(models, key=count or (lambda model: len(model.mistakes))))


# The model tables are built on first use, not on import: the ndcg table holds over 100,000 models
# (seconds of CPU), and most processes that import the exercise (the command line's other commands,
# nbgrader's commands reading the course's configuration) never diagnose anything.


@functools.cache
def dcg_models() -> tuple[DcgModel, ...]:
    """Every DCG model (the lecture's and each combination of mistakes), fewest mistakes first."""
    return _by_mistakes(
        DcgModel(g, w, c, r) for r, g, w, c in itertools.product(ROUNDINGS, GAINS, WEIGHTS, CUTOFFS)
    )


@functools.cache
def own_dcgs() -> tuple[DcgModel, ...]:
    """The DCGs an ndcg may compute itself, instead of calling the student's dcg (real code often
    does, in the function or a helper, with a discount or cut-off its dcg does not have)."""
    return tuple(DcgModel(g, w, c) for g, w, c in itertools.product(GAINS, WEIGHTS, CUTOFFS))

_LECTURE = DcgModel()


@dataclass(frozen=True)
class NdcgModel:
    """An ndcg: whose DCG it divides, how it builds and cuts the ideal ranking, the ratio, a rounding."""

    #: None: the student's own dcg; else a DCG the ndcg computes itself (its parts can be mistakes).
    source: DcgModel | None = None
    order: Variant[Callable[[list[float]], list[float]]] = ORDERS[0]
    scope: Variant[Callable[[tuple[float, ...], int], tuple[float, ...]]] = SCOPES[0]
    cut: Variant[Callable[[int, int], int]] = CUTS[0]
    ratio: Variant[Callable[[float, float], float | None]] = RATIOS[0]
    rounding: int | None = None
    #: With the student's dcg as the source: the DCG the ndcg computes itself for the ideal, if it does
    #: (recommender code: the ranking through dcg, the iDCG from a count of relevant documents, with
    #: the lecture's discount or another); None: the ideal through the student's dcg too.
    ideal_own: DcgModel | None = None

    def _dcg(self, rels: tuple[float, ...], k: int, student_dcg: StudentDcg, ideal: bool = False) -> float | None:
        if self.source is not None:
            return self.source.value(rels, k)
        return self.ideal_own.value(rels, k) if ideal and self.ideal_own is not None else student_dcg.get((rels, k))

    def predict(self, call: Call, student_dcg: StudentDcg) -> float | None:
        """The model's value of ``ndcg(rels, k)``; None where it is undefined (a zero division, a missing value)."""
        rels, k = rels_of(call), k_of(call)
        actual = self._dcg(rels, k, student_dcg)
        ideal_ranking = ideal_list(rels, k, self.order, self.scope)
        ideal = self._dcg(ideal_ranking, self.cut.rule(k, len(ideal_ranking)), student_dcg, ideal=True)
        if actual is None or ideal is None:
            return None
        value = self.ratio.rule(actual, ideal)
        if value is None or self.rounding is None:
            return value
        return round(value, self.rounding)

    @property
    def mistakes(self) -> list[str]:
        """The catalogue IDs of the parts that are not the lecture's: of its own DCG, its ideal, its ratio."""
        own = self.source.mistakes if self.source is not None else []
        if self.ideal_own is not None:  # the ideal's own discount: a mistake of this ndcg's
            own = self.ideal_own.mistakes
        if self.ratio is UNNORMALISED:
            return own + _mistakes_of((self.ratio,), self.rounding)
        ideal = _mistakes_of((self.order, self.scope, self.cut, self.ratio), self.rounding)
        if "cutoff-ignored" in own:  # k ignored everywhere: the ideal's missing cut is the same mistake
            ideal = [m for m in ideal if m != "ideal-not-cut"]
        return list(dict.fromkeys(own + ideal))  # binary relevance in the DCG and its ideal: one mistake

    def fixed(self, mistake: str) -> NdcgModel | None:
        """This model with only ``mistake`` put right (None if a part makes it with another mistake)."""
        model = self
        if self.source is not None and mistake in self.source.mistakes:
            source = self.source.fixed(mistake)
            if source is None:
                return None
            model = replace(self, source=source)
        if self.ideal_own is not None and mistake in self.ideal_own.mistakes:
            ideal_own = self.ideal_own.fixed(mistake)
            if ideal_own is None:
                return None
            model = replace(self, ideal_own=ideal_own)
        return _fixed(model, mistake, {"order": ORDERS[0], "scope": SCOPES[0], "cut": CUTS[0], "ratio": RATIOS[0]})


def _fixed(model: T, mistake: str, lecture: Mapping[str, Variant[object]]) -> T | None:
    """``model`` with every part that is ``mistake`` (and nothing else) replaced by the lecture's."""
    changes: dict[str, Any] = {}
    for name, right in lecture.items():
        part: Variant[object] = getattr(model, name)
        if mistake in part.mistakes:
            if len(part.mistakes) > 1:
                return None
            changes[name] = right
    if mistake == ROUNDED and model.rounding is not None:
        changes["rounding"] = None
    return replace(model, **changes)


def ndcg_mistake_counter() -> Callable[[NdcgModel], int]:
    """``len(model.mistakes)`` of an ndcg model, from its parts' mistakes, each part's worked out once.

    :attr:`NdcgModel.mistakes` builds its list afresh: for the 100,000 models of the table that was
    most of the table's start-up. This counts the same (a test compares it on every model).
    """
    own: dict[int, list[str]] = {}
    ideal: dict[tuple[int, ...], list[str]] = {}

    def count(model: NdcgModel) -> int:
        source = model.source if model.ideal_own is None else model.ideal_own
        mine = own.get(id(source))
        if mine is None:
            mine = own[id(source)] = source.mistakes if source is not None else []
        if model.ratio is UNNORMALISED:
            return len(mine) + len(_mistakes_of((model.ratio,), model.rounding))
        parts = (model.order, model.scope, model.cut, model.ratio)
        key = (*map(id, parts), -1 if model.rounding is None else model.rounding)
        theirs = ideal.get(key)
        if theirs is None:
            theirs = ideal[key] = _mistakes_of(parts, model.rounding)
        if "cutoff-ignored" in mine:
            return len(set(mine).union(m for m in theirs if m != "ideal-not-cut"))
        return len(set(mine).union(theirs))

    return count


_NDCG_TABLE_LOCK = threading.Lock()


def ndcg_models() -> tuple[NdcgModel, ...]:
    """Every nDCG model (over the student's dcg or a DCG of its own), fewest mistakes first; built once.

    Built by the first worker thread that needs it while the others wait (not each its own copy).
    """
    with _NDCG_TABLE_LOCK:
        return _ndcg_table()


@functools.cache
def _ndcg_table() -> tuple[NdcgModel, ...]:
    sources = (None, *own_dcgs())
    return _by_mistakes(
        (
            *(
                NdcgModel(s, o, sc, c, ra, r)
                for r, s, o, sc, c, ra in itertools.product(ROUNDINGS, sources, ORDERS, SCOPES, CUTS, RATIOS)
                if ra is not UNNORMALISED or (o, sc, c) == (ORDERS[0], SCOPES[0], CUTS[0])
            ),
            # the student's dcg over an ideal DCG computed in ndcg from a count of relevant documents or
            # of positions, with any discount a dcg may have (with the lecture's ideal ranking and the
            # student's own discount it would be the same model as the student's dcg over its own ideal)
            *(
                NdcgModel(None, o, sc, c, ra, r, ideal_own=DcgModel(weight=w))
                for r, w, o, sc, c, ra in itertools.product(ROUNDINGS, WEIGHTS, ORDERS[3:], SCOPES, CUTS, RATIOS[:2])
            ),
        ),
        ndcg_mistake_counter(),
    )
