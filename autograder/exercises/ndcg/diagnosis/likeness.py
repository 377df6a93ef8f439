"""Whether a student's dcg or ndcg computes *some* DCG: the lecture's, or one the catalogue knows.

The grader's evidence rule (:func:`autograder.grading.scoring.score`) asks this before a group
beyond the contract counts: values can meet a group's cases without computing anything (a
constant meets every scaling property, ``inf`` seems to, a lookup table meets known inputs). A
function resembles a DCG when one diagnosis model (:mod:`.models`, with at most
:data:`~.matching.MAX_MISTAKES` mistakes) explains every finite value it returned on the test calls,
the instances drawn for this submission among them, which no table can know in advance.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence

from ....grading import Call
from ..tolerance import SINGLE_PRECISION_REL_TOL
from .matching import MAX_MISTAKES, Model, possible_roundings
from .models import DcgModel, StudentDcg, dcg_models, ndcg_mistake_counter, ndcg_models
from .probes import k_of, rels_of
from .shapes import Scaled, fitted_scale, rounded_scale, shapes

#: The question is the shape of the computation, so a DCG summed in float32 (off by about 1e-7)
#: resembles the formula it computes: the exercise's allowance for single precision (:mod:`..tolerance`).
SHAPE_TOLERANCE = SINGLE_PRECISION_REL_TOL
#: The share of a function's values a model may get wrong and still explain the function.
ALLOWED_MISSES = 0.1
#: A model must explain at least this many values, with this many different ones not 0 among them (a
#: function that returns 0 "agrees" with any model on inputs where nothing relevant is in the top k,
#: one that returns 1 with an ideal ranking that is the ranking itself).
MINIMUM_VALUES = {"dcg": 6, "ndcg": 6}
DISTINCT_VALUES = 3
#: The fewest decimals a DCG of unknown shape (:mod:`.shapes`) may be rounded to and still show its shape.
SHAPE_MIN_DECIMALS = 2


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SHAPE_TOLERANCE, abs_tol=1e-9)


def _explains(model: Model, observed: Mapping[Call, float], student_dcg: StudentDcg, minimum: int) -> bool:
    """Whether ``model`` predicts nearly every observed value, on enough of them, two different ones not 0.

    A value or two may differ (:data:`ALLOWED_MISSES`): real code with a bug on one odd input still
    computes a DCG. A function whose values are all one number (or 0) computes nothing, even where
    a known mistake predicts exactly that: an ideal ranking that is the ranking itself gives nDCG 1
    on every input.
    """
    allowed = int(ALLOWED_MISSES * len(observed))
    compared = misses = 0
    nonzero: set[float] = set()
    for call, value in observed.items():
        predicted = model.predict(call, student_dcg)
        if predicted is None:
            continue  # undefined for this model (a zero ideal): the value says nothing either way
        compared += 1
        if not _close(value, predicted):
            misses += 1
            if misses > allowed:
                return False
        elif value != 0:
            nonzero.add(value)
    return compared - misses >= minimum and misses <= ALLOWED_MISSES * compared and len(nonzero) >= DISTINCT_VALUES


def _any_explains(models: Iterable[Model], observed: Mapping[Call, float], student_dcg: StudentDcg,
                  minimum: int) -> bool:
    roundings = possible_roundings(v for v in observed.values() if math.isfinite(v))
    return any(
        model.rounding in roundings and _explains(model, observed, student_dcg, minimum) for model in models
    )


def _shaped(observed: Mapping[Call, float], minimum: int) -> bool:
    """Whether some DCG the catalogue has no name for (a shape of :mod:`.shapes`, scaled) explains ``observed``.

    Asked only of a dcg no model explains: a shifted or scaled discount, the last document dropped,
    such a twist on a known mistake still computes a DCG, and the groups it meets are earned.
    """
    finite = {call: value for call, value in observed.items() if math.isfinite(value)}
    # a value rounded to 0 or 1 decimals keeps too little of a fitted scale's shape: a count of the relevant
    # documents is a slowly falling discount, scaled and rounded to whole numbers
    # the coarsest rounding the values allow is the one they have (a value of 2 decimals has 3 as well)
    rounding = min((r for r in possible_roundings(finite.values()) if r is not None and r >= SHAPE_MIN_DECIMALS),
                   default=None)
    largest = dict(sorted(finite.items(), key=lambda item: -abs(item[1])))
    for shape in shapes():
        scale = fitted_scale(shape, finite, 10 * SHAPE_TOLERANCE)
        if scale is not None and _explains(Scaled(shape, scale), observed, {}, minimum):
            return True
        # rounded values: the scale from where the rounding leaves it (a ratio scatters by it on small values)
        scale = rounded_scale(shape, largest, 0.5 * 10.0**-rounding) if rounding is not None else None
        if scale is not None and _explains(Scaled(shape, scale, rounding), observed, {}, minimum):
            return True
    return False


def _weighs_something(model: DcgModel | None) -> bool:
    """Whether a DCG model lets the grades or the ranks count: with binary relevance and no discount
    it counts the relevant documents in the top k, a hit count that is no DCG (the diagnosis still
    names both mistakes; the evidence rule gives such a count no points)."""
    return model is None or not ("binary-relevance" in model.gain.mistakes and "no-discount" in model.weight.mistakes)


# Models with more mistakes than the diagnosis believes fit almost anything: left out, once (on first use).
@functools.cache
def _believed_dcg_models() -> tuple[DcgModel, ...]:
    return tuple(m for m in dcg_models() if len(m.mistakes) <= MAX_MISTAKES and _weighs_something(m))


@functools.cache
def _believed_ndcg_models(own_dcg_only: bool) -> tuple[Model, ...]:
    """The believed ndcg models; ``own_dcg_only``: those that compute their DCG themselves."""
    count = ndcg_mistake_counter()  # len(m.mistakes), without building each model's list
    return tuple(
        m for m in ndcg_models() if count(m) <= MAX_MISTAKES and _weighs_something(m.source)
        and (m.source is not None or not own_dcg_only)
    )


def _ordinary(call: Call) -> bool:
    """A ranking of two documents or more, cut inside it: edge cases (one document, k beyond the list)
    are judged by their own groups, and real code that fails only there still computes a DCG."""
    return len(rels_of(call)) >= 2 and k_of(call) <= len(rels_of(call))


def _of(function: str, values: Mapping[Call, float]) -> dict[Call, float]:
    return {call: value for call, value in values.items() if call.function == function and _ordinary(call)}


def resembles(function: str, values: Mapping[Call, float]) -> bool:
    """Whether ``function``'s values among ``values`` are those of the lecture's DCG/nDCG or a known variant.

    Parameters
    ----------
    function
        ``"dcg"`` or ``"ndcg"``.
    values
        Every finite number the student's functions returned on the test calls.

    Returns
    -------
    bool
        For ``ndcg``: a model that divides the student's own dcg counts only if that dcg resembles
        a DCG itself (a correct ratio of meaningless numbers computes nothing).
    """
    dcg_values = _of("dcg", values)
    student_dcg: StudentDcg = {
        (rels_of(call), k_of(call)): value for call, value in values.items() if call.function == "dcg"
    }
    dcg_like = (
        _any_explains(_believed_dcg_models(), dcg_values, student_dcg, MINIMUM_VALUES["dcg"])
        or _shaped(dcg_values, MINIMUM_VALUES["dcg"])
    )
    if function == "dcg":
        return dcg_like
    if function != "ndcg":
        raise ValueError(f"no such function in this exercise: {function!r} (dcg or ndcg)")
    models: Sequence[Model] = _believed_ndcg_models(own_dcg_only=not dcg_like)
    return _any_explains(models, _of("ndcg", values), student_dcg, MINIMUM_VALUES["ndcg"])
