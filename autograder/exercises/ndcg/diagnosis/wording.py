"""What the student's code does, in the student's terms: the way of making a mistake the diagnosis found.

A catalogue entry explains a mistake that can be made in several ways (a discount offset by one rank
either way, a rank left undiscounted or not); the fitted model knows which one this student's code
makes, so the example says it ("your dcg divides the grade at rank i by log2(i + 2)").
"""

from __future__ import annotations

import ndcg_ref

from ....grading import Call
from .models import DcgModel, NdcgModel
from .probes import describe, k_of, rels_of
from .variants import ROUNDED, Variant


def _does(parts: tuple[Variant[object], ...], mistake: str) -> list[str]:
    return [part.does for part in parts if mistake in part.mistakes and part.does]


def _of_dcg(model: DcgModel, mistake: str) -> list[str]:
    return _does((model.gain, model.weight, model.cutoff), mistake)


def what_it_does(model: object, mistake: str, function: str) -> str:
    """``"your dcg divides the grade at rank i by log2(i + 2)"``: how ``model`` makes ``mistake`` ("" if unsaid).

    Parameters
    ----------
    model : object
        The fitted model (:class:`DcgModel`, :class:`NdcgModel`; any other says nothing).
    mistake : str
        A catalogue ID among the model's mistakes.
    function : str
        The student's function the model fits ("dcg" or "ndcg").

    Returns
    -------
    str
        One clause per part of the model that makes the mistake, joined by "; " ("" for none).
    """
    said: list[str] = []
    if isinstance(model, DcgModel):
        said = [f"your {function} {does}" for does in _of_dcg(model, mistake)]
    elif isinstance(model, NdcgModel):
        if model.source is not None:
            said += [f"your {function}'s own DCG {does}" for does in _of_dcg(model.source, mistake)]
        if model.ideal_own is not None:
            said += [f"your {function}'s ideal DCG {does}" for does in _of_dcg(model.ideal_own, mistake)]
        parts = (model.order, model.scope, model.cut, model.ratio)
        said += [f"your {function} {does}" for does in _does(parts, mistake)]
    rounding = getattr(model, "rounding", None)
    if mistake == ROUNDED and isinstance(rounding, int):
        said.append(f"your {function} rounds its result to {rounding} decimal{'s' if rounding != 1 else ''}")
    return "; ".join(dict.fromkeys(said))


def _formula(rels: tuple[float, ...], k: int) -> str:
    terms = [f"{r:g}/log2({i + 2})" for i, r in enumerate(rels[:k]) if r]
    return " + ".join(terms) if terms else "0"


def digits_apart(got: float, right: float, least: int = 4) -> tuple[str, str]:
    """``got`` and ``right`` with as many significant digits as it takes to see them differ (4 at least).

    >>> digits_apart(0.678812, 0.678843)
    ('0.67881', '0.67884')
    """
    for digits in range(least, 18):
        shown = f"{got:.{digits}g}", f"{right:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return repr(got), repr(right)


def dcg_counterexample(call: Call, got: float) -> str:
    """The sentence showing a wrong ``dcg`` value beside the lecture's formula."""
    rels, k = rels_of(call), k_of(call)
    mine, right = digits_apart(got, ndcg_ref.dcg(list(rels), k))
    formula = _formula(rels, k)
    return f"for {describe(call)} your dcg returns {mine}; the lecture's formula gives {formula} ≈ {right}"


def ndcg_counterexample(call: Call, got: float) -> str:
    """The sentence showing a wrong ``ndcg`` value beside DCG@k / iDCG@k."""
    rels, k = rels_of(call), k_of(call)
    ideal = sorted(rels, reverse=True)
    actual, best = ndcg_ref.dcg(list(rels), k), ndcg_ref.dcg(ideal, k)
    mine, right = digits_apart(got, actual / best)
    return (
        f"for {describe(call)} your ndcg returns {mine}; the formula gives DCG@{k} / iDCG@{k} = "
        f"{actual:.4g} / {best:.4g} ≈ {right} (ideal ranking {ideal}, cut at k={k})"
    )
