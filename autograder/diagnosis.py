"""Recognise known mistakes from what a student's functions return on probe inputs.

The student's ``dcg`` and ``ndcg`` run (in the sandbox) on *probes*: small inputs chosen to tell
the mistakes apart, separate from the hidden test cases. Their values are then matched, in the
grader's process, against models of how a DCG can be computed: every combination of gain
(linear, 2^rel - 1), discount (the lecture's, other log bases, rank offsets, none, multiplied),
cut-off (k, the whole list, k - 1, k + 1) and rounding; for ``ndcg``, every combination of what
it divides (the student's own ``dcg`` or the reference's), the ideal ranking's order (descending,
ascending, unsorted), what it is built from (the whole list, the top k), where it is cut (k, the
whole list) and the ratio (DCG/iDCG, iDCG/DCG, none). Each component that differs from the
lecture's definition is one mistake of :mod:`autograder.misconceptions`, so several mistakes at
once are recognised too. Behaviour that no model explains gets no ID but a message.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import ndcg_ref

from .misconceptions import BY_ID
from .scoring import _exception_name

#: Two values agree when this close (relative and absolute).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Probe:
    """One call made only for diagnosis."""

    function: str
    rels: tuple[float, ...]
    k: int

    @property
    def text(self) -> str:
        return f"rels={list(self.rels)}, k={self.k}"


#: dcg probes: small lists first (they make the clearest counterexamples). The single documents
#: at rank 1 separate the gains; the single grade-1 documents at ranks 2..6 of a long list (k below
#: its end, so that k + 1 still fits) measure the discount; the lists of ones measure the cut-off.
DCG_PROBES: tuple[Probe, ...] = tuple(
    Probe("dcg", tuple(rels), k)
    for rels, k in [
        ([3, 2], 2), ([2, 0, 1], 3), ([1], 1), ([2], 1), ([3], 1),
        *(([0] * (rank - 1) + [1] + [0] * (16 - rank), 12) for rank in range(2, 7)),
        ([0, 0, 2] + [0] * 13, 12), ([1] * 12, 4), ([1] * 6, 3), ([2, 1, 3, 0, 1, 2, 1], 5),
    ]
)
#: Probes with k beyond the list: an exception here (and not elsewhere) is `k-beyond-length`.
BEYOND_PROBES: tuple[Probe, ...] = (Probe("dcg", (1, 2), 5), Probe("ndcg", (2, 0, 1), 6))
#: ndcg probes: relevant documents below the cut-off, cut-offs inside the list, ties.
NDCG_PROBES: tuple[Probe, ...] = tuple(
    Probe("ndcg", tuple(rels), k)
    for rels, k in [
        ([1, 3, 0, 2, 0], 2), ([0, 1, 0, 2, 3, 1], 3), ([2, 1, 0, 3], 2), ([1, 3, 2], 3),
        ([0, 2, 1, 0, 0, 3, 1], 4), ([3, 0, 1], 2), ([1, 1, 2, 0], 3),
    ]
)
#: Nothing relevant: the only correct answer is 0.0.
ZERO_PROBES: tuple[Probe, ...] = (Probe("ndcg", (0, 0, 0, 0, 0), 4), Probe("ndcg", (0,), 1))

ORDERS = ("desc", "asc", "none")
SCOPES = ("all", "top-k")
CUTS = ("k", "len")


def _ideal_list(rels: tuple, k: int, order: str, scope: str) -> tuple:
    base = rels if scope == "all" else rels[:k]
    if order == "desc":
        return tuple(sorted(base, reverse=True))
    if order == "asc":
        return tuple(sorted(base))
    return tuple(base)


def _auxiliary_probes() -> tuple[Probe, ...]:
    """The student's dcg on every list an ndcg model may divide by (so that models can use it)."""
    calls = [Probe("dcg", probe.rels, probe.k) for probe in ZERO_PROBES]
    for probe in NDCG_PROBES:
        calls.append(Probe("dcg", probe.rels, probe.k))
        for order, scope, cut in itertools.product(ORDERS, SCOPES, CUTS):
            ideal = _ideal_list(probe.rels, probe.k, order, scope)
            calls.append(Probe("dcg", ideal, probe.k if cut == "k" else len(ideal)))
    return tuple(dict.fromkeys(calls))


AUXILIARY_PROBES = _auxiliary_probes()


def all_probes() -> tuple[Probe, ...]:
    """Every probe call, each once, in the order the runner makes them."""
    return tuple(dict.fromkeys(DCG_PROBES + AUXILIARY_PROBES + BEYOND_PROBES + NDCG_PROBES + ZERO_PROBES))


def probe_calls(first_id: int) -> dict[int, Probe]:
    """The probes numbered from ``first_id`` (after the test calls)."""
    return {first_id + number: probe for number, probe in enumerate(all_probes())}


@functools.lru_cache(maxsize=4096)
def _reference_dcg(rels: tuple, k: int, gain: str) -> float:
    return ndcg_ref.dcg(list(rels), k, gain=gain)


# ----- dcg models ---------------------------------------------------------------------------

GAINS: dict[str, Callable[[float], float]] = {"linear": lambda r: r, "exponential": lambda r: 2.0**r - 1.0}
#: Weight of the document at 1-based rank i (the factor its gain is multiplied with).
WEIGHTS: dict[str, Callable[[int], float]] = {
    "log2(i+1)": lambda i: 1 / math.log2(i + 1),
    "ln(i+1)": lambda i: 1 / math.log(i + 1),
    "log10(i+1)": lambda i: 1 / math.log10(i + 1),
    "jk log2(i)": lambda i: 1.0 if i == 1 else 1 / math.log2(i),
    "log2(i+2)": lambda i: 1 / math.log2(i + 2),
    "first skipped": lambda i: 0.0 if i == 1 else 1 / math.log2(i),
    "none": lambda i: 1.0,
    "multiplied": lambda i: math.log2(i + 1),
}
CUTOFFS: dict[str, Callable[[int, int], int]] = {
    "k": lambda k, n: min(k, n),
    "all": lambda k, n: n,
    "k-1": lambda k, n: max(min(k, n) - 1, 0),
    "k+1": lambda k, n: min(k + 1, n),
}
ROUNDINGS = (None, 0, 1, 2, 3, 4)

_DCG_IDS = {
    "exponential": "exponential-gain", "ln(i+1)": "log-base", "log10(i+1)": "log-base",
    "jk log2(i)": "discount-offset", "log2(i+2)": "discount-offset", "first skipped": "discount-offset",
    "none": "no-discount", "multiplied": "discount-multiplied", "all": "cutoff-ignored",
    "k-1": "cutoff-off-by-one", "k+1": "cutoff-off-by-one",
}
_NDCG_IDS = {
    "asc": "ideal-ascending", "none": "ideal-not-sorted", "top-k": "ideal-from-top-k", "len": "ideal-not-cut",
    "inverted": "ratio-inverted", "unnormalised": "not-normalized", "exponential": "exponential-gain",
}


@dataclass(frozen=True)
class DcgModel:
    gain: str = "linear"
    weight: str = "log2(i+1)"
    cutoff: str = "k"
    rounding: int | None = None

    def __call__(self, rels: tuple, k: int) -> float:
        n = CUTOFFS[self.cutoff](k, len(rels))
        value = math.fsum(GAINS[self.gain](rels[i]) * WEIGHTS[self.weight](i + 1) for i in range(n))
        return value if self.rounding is None else round(value, self.rounding)

    @property
    def mistakes(self) -> list[str]:
        ids = [_DCG_IDS[part] for part in (self.gain, self.weight, self.cutoff) if part in _DCG_IDS]
        return ids + (["rounded"] if self.rounding is not None else [])


DCG_MODELS = tuple(
    DcgModel(g, w, c, r) for r, g, w, c in itertools.product(ROUNDINGS, GAINS, WEIGHTS, CUTOFFS)
)


@dataclass(frozen=True)
class NdcgModel:
    source: str = "student"  # whose dcg it divides: "student", "linear" or "exponential" (reference)
    order: str = "desc"
    scope: str = "all"
    cut: str = "k"
    ratio: str = "normal"  # "normal", "inverted" or "unnormalised"
    rounding: int | None = None

    def predict(self, probe: Probe, student_dcg: dict[tuple, float]) -> float | None:
        """The model's value on ``probe``; None where it is undefined (a zero division, a missing value)."""
        def dcg_of(rels: tuple, k: int) -> float | None:
            if self.source == "student":
                return student_dcg.get((rels, k))
            return _reference_dcg(rels, k, self.source)

        actual = dcg_of(probe.rels, probe.k)
        ideal_list = _ideal_list(probe.rels, probe.k, self.order, self.scope)
        ideal = dcg_of(ideal_list, probe.k if self.cut == "k" else len(ideal_list))
        if actual is None or ideal is None:
            return None
        if self.ratio == "unnormalised":
            value = actual
        elif self.ratio == "normal":
            value = actual / ideal if ideal else None
        else:
            value = ideal / actual if actual else None
        if value is None or self.rounding is None:
            return value
        return round(value, self.rounding)

    @property
    def mistakes(self) -> list[str]:
        parts = [self.source, self.ratio] if self.ratio == "unnormalised" else [self.source, self.order, self.scope, self.cut, self.ratio]
        ids = [_NDCG_IDS[part] for part in parts if part in _NDCG_IDS]
        return ids + (["rounded"] if self.rounding is not None else [])


NDCG_MODELS = tuple(
    NdcgModel(s, o, sc, c, ra, r)
    for r, s, o, sc, c, ra in itertools.product(ROUNDINGS, ("student", "linear", "exponential"), ORDERS, SCOPES, CUTS, ("normal", "inverted", "unnormalised"))
    if ra != "unnormalised" or (o, sc, c) == ("desc", "all", "k")
)


# ----- matching -----------------------------------------------------------------------------

@dataclass
class Finding:
    """One recognised mistake, with a counterexample on a probe."""

    id: str
    function: str
    counterexample: str

    def to_dict(self) -> dict:
        return {"id": self.id, "function": self.function, "title": BY_ID[self.id].title, "counterexample": self.counterexample}


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)
    #: Wrong behaviour no model explains: ``{function: message}``.
    unexplained: dict[str, str] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return list(dict.fromkeys(f.id for f in self.findings))

    def add(self, mistake: str, function: str, counterexample: str) -> None:
        if mistake not in self.ids:
            self.findings.append(Finding(mistake, function, counterexample))


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _value(record: dict | None) -> float | None:
    if record and record.get("outcome") == "value" and math.isfinite(record["value"]):
        return record["value"]
    return None


def _formula(rels: tuple, k: int) -> str:
    terms = [f"{r:g}/log2({i + 2})" for i, r in enumerate(rels[:k]) if r]
    return " + ".join(terms) if terms else "0"


def _dcg_counterexample(probe: Probe, got: float) -> str:
    right = ndcg_ref.dcg(list(probe.rels), probe.k)
    return f"for {probe.text} your dcg returns {got:.4g}; the lecture's formula gives {_formula(probe.rels, probe.k)} ≈ {right:.4g}"


def _ndcg_counterexample(probe: Probe, got: float) -> str:
    ideal = tuple(sorted(probe.rels, reverse=True))
    actual, best = ndcg_ref.dcg(list(probe.rels), probe.k), ndcg_ref.dcg(list(ideal), probe.k)
    return (
        f"for {probe.text} your ndcg returns {got:.4g}; the formula gives DCG@{probe.k} / iDCG@{probe.k} = "
        f"{actual:.4g} / {best:.4g} ≈ {actual / best:.4g} (ideal ranking {list(ideal)}, cut at k={probe.k})"
    )


def _best_model(models, predict, observed: dict[Probe, float], minimum: int):
    """The model with the fewest mistakes that agrees with every observed value (None if none does)."""
    best = None
    for model in models:
        compared = 0
        for probe, value in observed.items():
            predicted = predict(model, probe)
            if predicted is None:
                continue
            if not _close(value, predicted):
                break
            compared += 1
        else:
            if compared >= minimum and (best is None or len(model.mistakes) < len(best.mistakes)):
                best = model
                if not best.mistakes:
                    return best
    return best


def _first_wrong(probes, observed, reference) -> tuple[Probe, float] | None:
    for probe in probes:
        if probe in observed and not _close(observed[probe], reference(probe)):
            return probe, observed[probe]
    return None


def diagnose(records: dict[Probe, dict]) -> Diagnosis:
    """Recognise the mistakes behind the probe results ``{probe: call record}``."""
    diagnosis = Diagnosis()
    _diagnose_dcg(records, diagnosis)
    _diagnose_ndcg(records, diagnosis)
    _diagnose_contract(records, diagnosis)
    _diagnose_not_working(records, diagnosis)
    return diagnosis


def _diagnose_function(function: str, probes, reference, models, predict, minimum: int, counterexample,
                       records: dict[Probe, dict], diagnosis: Diagnosis) -> None:
    """Match one function's probe values against its models; add the mistakes of the best one."""
    observed = {p: v for p in probes if (v := _value(records.get(p))) is not None}
    wrong = _first_wrong(probes, observed, reference)
    if wrong is None:
        return
    model = _best_model(models, predict, observed, minimum)
    if model is None:
        diagnosis.unexplained[function] = f"your {function} does not match a known mistake: {counterexample(*wrong)}"
        return
    for mistake in model.mistakes:
        diagnosis.add(mistake, function, counterexample(*wrong))


def _diagnose_dcg(records: dict[Probe, dict], diagnosis: Diagnosis) -> None:
    _diagnose_function(
        "dcg", DCG_PROBES, lambda p: ndcg_ref.dcg(list(p.rels), p.k), DCG_MODELS,
        lambda m, p: m(p.rels, p.k), 5, _dcg_counterexample, records, diagnosis,
    )


def _diagnose_ndcg(records: dict[Probe, dict], diagnosis: Diagnosis) -> None:
    student_dcg = {(p.rels, p.k): v for p in AUXILIARY_PROBES if (v := _value(records.get(p))) is not None}
    _diagnose_function(
        "ndcg", NDCG_PROBES, lambda p: ndcg_ref.ndcg(list(p.rels), p.k), NDCG_MODELS,
        lambda m, p: m.predict(p, student_dcg), 4, _ndcg_counterexample, records, diagnosis,
    )


def _works(records: dict[Probe, dict], probes: tuple[Probe, ...]) -> bool:
    """Whether the function returns numbers on its ordinary probes (else its exceptions say nothing)."""
    return any(_value(records.get(p)) is not None for p in probes)


def _diagnose_not_working(records: dict[Probe, dict], diagnosis: Diagnosis) -> None:
    for function, probes in (("dcg", DCG_PROBES), ("ndcg", NDCG_PROBES)):
        if _works(records, probes):
            continue
        seen = [records.get(p, {}) for p in probes]
        errors = {_exception_name(r["error"]) for r in seen if r.get("outcome") == "raised"}
        if all(r.get("outcome") == "undefined" for r in seen):
            diagnosis.unexplained[function] = f"your notebook does not define {function}(rels, k)"
        elif len(errors) == 1 and all(r.get("outcome") == "raised" for r in seen):
            diagnosis.unexplained[function] = f"your {function} raised {errors.pop()} on every input we tried (is it implemented?)"
        else:
            diagnosis.unexplained[function] = f"your {function} did not return a number on any input we tried"


def _diagnose_contract(records: dict[Probe, dict], diagnosis: Diagnosis) -> None:
    working = {"dcg": _works(records, DCG_PROBES), "ndcg": _works(records, NDCG_PROBES)}
    for probe in ZERO_PROBES if working["ndcg"] else ():
        if _value(records.get(Probe("dcg", probe.rels, probe.k))) != 0.0:
            continue  # the student's own dcg is not 0 here: their ndcg cannot know that iDCG is 0
        record = records.get(probe, {})
        outcome = record.get("outcome")
        if outcome == "raised":
            diagnosis.add("zero-ideal", "ndcg", f"for {probe.text} (nothing relevant) your ndcg raised {_exception_name(record['error'])}; it must return 0.0")
        elif outcome == "value" and not (record["value"] == 0.0):
            diagnosis.add("zero-ideal", "ndcg", f"for {probe.text} (nothing relevant) your ndcg returns {record['value']}; it must return 0.0")
    for probe in BEYOND_PROBES:
        record = records.get(probe, {})
        if record.get("outcome") == "raised" and working[probe.function]:
            diagnosis.add(
                "k-beyond-length", probe.function,
                f"for {probe.text} your {probe.function} raised {_exception_name(record['error'])}; k larger than the list means the whole list",
            )
    for probe, record in records.items():
        after = record.get("after")
        if record.get("outcome") in ("value", "raised", "not-a-number") and after is not None and after != [float(r) for r in probe.rels]:
            diagnosis.add(
                "mutates-input", probe.function,
                f"after {probe.function}({list(probe.rels)}, {probe.k}) the caller's list was "
                "[" + ", ".join(f"{v:g}" if v is not None else "?" for v in after) + "]",
            )
            break
