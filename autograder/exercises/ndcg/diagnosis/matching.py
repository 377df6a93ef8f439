"""Recognise known mistakes from what a student's functions returned on the probes.

Each function's probe values are matched, in the grader's process, against its models
(:mod:`.models`): every combination of gain, discount, cut-off and rounding for ``dcg``; for
``ndcg``, every combination of whose DCG it divides, the ideal ranking's order, what it is built
from, where it is cut, the ratio and rounding. Each part that differs from the lecture's
definition is one mistake of the catalogue, so several mistakes at once are recognised too.
Behaviour that no model explains gets no ID but a message. Contract mistakes (crashes on k
beyond the list or on a zero ideal, a modified input list) are recognised from the records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import ndcg_ref

from ....grading import Call, Diagnosis, Finding
from ....grading.shown_names import exception_name, returned, type_name
from ....sandbox import RAN, CallOutcome, CallRecord
from ..catalogue import BY_ID
from ..tolerance import ABS_TOL, REL_TOL, agrees
from .crashes import fraction_crash, grade_range_crash, grades_above, raised, zero_division_elsewhere
from .models import StudentDcg, dcg_models, ndcg_models
from .probes import (
    AUXILIARY_PROBES,
    BEYOND_PROBES,
    DCG_PROBES,
    NDCG_PROBES,
    ONE_DOCUMENT_PROBES,
    PROPERTY_PROBES,
    ZERO_PROBES,
    describe,
    k_of,
    probe,
    rels_of,
)
from .variants import ROUNDINGS
from .wording import dcg_counterexample, digits_apart, ndcg_counterexample, what_it_does

#: What scikit-learn's ndcg_score says when it refuses a list of one document.
SKLEARN_ONE_DOCUMENT = "only meaningful when there is more than 1 document"
#: A model with more mistakes than this is not believed: with enough parts wrong at once, some
#: combination fits almost anything (a function that returns 0 matched one with six).
MAX_MISTAKES = 3

Records = Mapping[Call, CallRecord]


class Model(Protocol):
    @property
    def mistakes(self) -> list[str]: ...

    @property
    def rounding(self) -> int | None: ...

    def predict(self, call: Call, student_dcg: StudentDcg) -> float | None: ...

    def fixed(self, mistake: str) -> Model | None: ...


def possible_roundings(values: Iterable[float]) -> frozenset[int | None]:
    """The roundings a model may have, given what came back: n decimals only if every value has at most n.

    >>> sorted(possible_roundings([0.5, 1.25]), key=str)
    [2, 3, 4, 5, 6, 7, 8, None]
    """
    values = list(values)
    decimals = {n for n in ROUNDINGS if n is not None and all(_exact(v, round(v, n)) for v in values)}
    return frozenset({None, *decimals})


def _exact(a: float, b: float) -> bool:
    """Equal but for double-precision noise, by the exercise's own tolerance (whether a value was rounded
    is asked this strictly)."""
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _close(a: float, b: float) -> bool:
    """A value and a model's agree by the exercise's tolerance policy: float32 noise too, not rounding."""
    return agrees(a, b)


def _value(record: CallRecord | None) -> float | None:
    """The returned number, if the call returned a finite one (also what float() makes of a 0-d array,
    a Decimal: its value still shows the mistakes behind it)."""
    if record is not None and record.value is not None and math.isfinite(record.value):
        return record.value
    return None


@dataclass(frozen=True)
class FunctionDiagnoser:
    """How one function is matched against its models."""

    function: str
    probes: tuple[Call, ...]
    reference: Callable[[Call], float]
    #: The models, fewest mistakes first (a function: the tables are built on first use).
    models: Callable[[], Sequence[Model]]
    #: A model must agree on at least this many probes to be believed.
    minimum: int
    counterexample: Callable[[Call, float], str]

    def best_model(self, observed: Mapping[Call, float], student_dcg: StudentDcg) -> Model | None:
        """The model with the fewest mistakes that agrees with every observed value (None if none does).

        The models come sorted by their number of mistakes, so the first that agrees is the one;
        models that round to more decimals than the values show are not even tried.
        """
        roundings = possible_roundings(observed.values())
        for model in self.models():
            if len(model.mistakes) > MAX_MISTAKES:
                break  # sorted by mistakes: every model from here on explains too little to be believed
            if model.rounding not in roundings:
                continue
            compared = 0
            for call, value in observed.items():
                predicted = model.predict(call, student_dcg)
                if predicted is None:
                    continue
                if not _close(value, predicted):
                    break
                compared += 1
            else:
                if compared >= self.minimum:
                    return model
        return None

    def diagnose(self, records: Records, student_dcg: StudentDcg, diagnosis: Diagnosis) -> None:
        """Add the mistakes of the best model (or an unexplained message) to ``diagnosis``."""
        observed = {p: v for p in self.probes if (v := _value(records.get(p))) is not None}
        wrong = next(((p, v) for p, v in observed.items() if not _close(v, self.reference(p))), None)
        if wrong is None:
            return
        example = self.counterexample(*wrong)
        model = self.best_model(observed, student_dcg)
        if model is None:
            values = set(observed.values())
            same = f" (it returned {values.pop()!r} on every input we tried)" if len(values) == 1 else ""
            diagnosis.unexplained[self.function] = (
                f"your {self.function} does not match a known mistake{same}: {example}{_broken(records, self.function)}"
            )
            return
        for mistake in model.mistakes:
            # each mistake's example is a probe on which that mistake changes this student's value (with
            # several mistakes the first wrong value may be another's): shown before and after
            fixed = model.fixed(mistake)
            call, got, alone = *wrong, None
            if fixed is not None:
                changed = next(
                    ((p, v, a) for p, v in observed.items()
                     if (a := fixed.predict(p, student_dcg)) is not None and not _close(a, v)),
                    None,
                )
                if changed is not None:
                    call, got, alone = changed
            does = what_it_does(model, mistake, self.function)
            text = (f"{does}: " if does else "") + self.counterexample(call, got)
            right = self.reference(call)
            if alone is not None and not _close(alone, right):
                shown, _ = digits_apart(alone, right)
                text += f"; fixing only this, your {self.function} would return {shown} (your other mistakes remain)"
            _add(diagnosis, mistake, self.function, text)


def _broken(records: Records, function: str) -> str:
    """A property of the hidden groups the function breaks, shown on a visible probe ("" if none is)."""
    for prop in PROPERTY_PROBES:
        if prop.call.function != function:
            continue
        left, right = _value(records.get(prop.call)), _value(records.get(prop.companion))
        if left is None or right is None or _close(left, prop.factor * right):
            continue
        factor = f"{prop.factor:g} × " if prop.factor != 1.0 else ""
        shown, other = digits_apart(left, prop.factor * right)
        return (f"; it also breaks a property the hidden tests check ({prop.meaning}): {prop.call.text} = {shown}, "
                f"but {factor}{prop.companion.text} = {other}")
    return ""


def _add(diagnosis: Diagnosis, mistake: str, function: str, counterexample: str) -> None:
    diagnosis.add(Finding(mistake, function, BY_ID[mistake].title, counterexample))


DCG = FunctionDiagnoser(
    "dcg", DCG_PROBES, lambda p: ndcg_ref.dcg(list(rels_of(p)), k_of(p)), dcg_models, 5, dcg_counterexample
)
NDCG = FunctionDiagnoser(
    "ndcg", NDCG_PROBES, lambda p: ndcg_ref.ndcg(list(rels_of(p)), k_of(p)), ndcg_models, 4, ndcg_counterexample
)


def diagnose(records: Records) -> Diagnosis:
    """Recognise the mistakes behind the probe results ``{probe: call record}``."""
    diagnosis = Diagnosis()
    student_dcg = {(rels_of(p), k_of(p)): v for p in AUXILIARY_PROBES if (v := _value(records.get(p))) is not None}
    DCG.diagnose(records, student_dcg, diagnosis)
    NDCG.diagnose(records, student_dcg, diagnosis)
    _diagnose_type(records, diagnosis)
    _diagnose_contract(records, diagnosis)
    _diagnose_not_working(records, diagnosis)
    return diagnosis


def _works(records: Records, probes: Iterable[Call]) -> bool:
    """Whether the function returns numbers on its ordinary probes (else its exceptions say nothing)."""
    return any(_value(records.get(p)) is not None for p in probes)


def _returns_none(records: Records, probes: Iterable[Call]) -> bool:
    """Whether the function returned None on every ordinary probe (it prints its value, most likely)."""
    seen = [records.get(p) for p in probes]
    return bool(seen) and all(
        r is not None and r.outcome is CallOutcome.NOT_A_NUMBER and r.type_name == "NoneType" for r in seen
    )


def _diagnose_not_working(records: Records, diagnosis: Diagnosis) -> None:
    for function, probes in (("dcg", DCG_PROBES), ("ndcg", NDCG_PROBES)):
        if _works(records, probes) or (function == "ndcg" and "prints-not-returns" in diagnosis.ids):
            continue  # (an ndcg that divides a dcg that returns None can show nothing of its own)
        seen = [records.get(p) for p in probes]
        outcomes = [r.outcome if r is not None else CallOutcome.NOT_RUN for r in seen]
        raised = [r for r in seen if r is not None and r.outcome is CallOutcome.RAISED]
        errors = {exception_name(r.error or "") for r in raised}
        if all(outcome is CallOutcome.UNDEFINED for outcome in outcomes):
            diagnosis.unexplained[function] = f"your notebook does not define {function}(rels, k)"
        elif _returns_none(records, probes):
            call = probes[0]
            _add(diagnosis, "prints-not-returns", function,
                 f"for {describe(call)} your {function} returned None (nothing): does it print the value "
                 "instead of returning it?")
        elif len(errors) == 1 and all(outcome is CallOutcome.RAISED for outcome in outcomes):
            error = errors.pop()
            if error == "NotImplementedError":
                text = f"your {function} raised NotImplementedError on every input we tried (is it implemented?)"
            else:
                # the probes run in the process that never sees a hidden input: their messages may be shown
                message = next((r.message for r in raised if r.message), None)
                text = f"your {function} raised {error} on every input we tried" + (f": {message}" if message else "")
            diagnosis.unexplained[function] = text
        else:
            kinds = sorted({type_name(r.type_name or "") for r in seen if r is not None and r.type_name})
            what = f" (it returned {' or '.join(kinds)})" if kinds else ""
            diagnosis.unexplained[function] = f"your {function} did not return a number on any input we tried{what}"


def _diagnose_type(records: Records, diagnosis: Diagnosis) -> None:
    """A result that has a numeric value but is no plain number: say which type came back."""
    for function, probes in (("dcg", DCG_PROBES), ("ndcg", NDCG_PROBES)):
        for call in probes:
            record = records.get(call)
            if record is not None and record.outcome is CallOutcome.NOT_A_NUMBER and record.value is not None:
                kind = type_name(record.type_name or "")
                _add(diagnosis, "returns-non-float", function,
                     f"for {describe(call)} your {function} returned {kind} (value {record.value!r}), not a float")
                break


def _diagnose_contract(records: Records, diagnosis: Diagnosis) -> None:
    """The contract's mistakes, checked in an order that matters: a later check reads what the earlier
    ones named (``diagnosis.ids``), so that a dcg's crash that its ndcg inherits is named once."""
    working = {"dcg": _works(records, DCG_PROBES), "ndcg": _works(records, NDCG_PROBES)}
    if working["ndcg"]:
        # a wrong value where nothing is relevant is the zero ideal's only for an ndcg that computes a DCG ratio
        _zero_ideal(records, diagnosis, explained="ndcg" not in diagnosis.unexplained)
    for function in ("dcg", "ndcg"):
        # an ndcg that calls a dcg which crashes on grade 3 crashes there too: named once
        if working[function] and not (function == "ndcg" and "grade-range" in diagnosis.ids):
            _crash_on_grade_range(records, diagnosis, function)
    for function in ("dcg", "ndcg"):
        # an ndcg that calls a dcg which crashes on grade 2.5 crashes there too: named once
        if working[function] and not (function == "ndcg" and "grades-truncated" in diagnosis.ids):
            _crash_on_fraction(records, diagnosis, function)
    for function in ("dcg", "ndcg"):
        if working[function]:
            _crash_on_one_document(records, diagnosis, function)
    for beyond in BEYOND_PROBES:
        record = records.get(beyond)
        if record is not None and record.outcome is CallOutcome.RAISED and working[beyond.function]:
            _add(diagnosis, "k-beyond-length", beyond.function,
                 f"for {describe(beyond)} your {beyond.function} raised {exception_name(record.error or '')}; "
                 "k larger than the list means the whole list")
    _mutated_input(records, diagnosis)


def _zero_ideal(records: Records, diagnosis: Diagnosis, explained: bool) -> None:
    """Where nothing is relevant an ndcg must return 0.0: the first counterexample, if any."""
    for zero in ZERO_PROBES:
        if _value(records.get(probe("dcg", rels_of(zero), k_of(zero)))) != 0.0:
            continue  # the student's own dcg is not 0 here: their ndcg cannot know that iDCG is 0
        record = records.get(zero)
        if record is None or (raised(record) and record.error != "ZeroDivisionError" and _refuses_one(records)):
            continue  # (a crash of a dcg that refuses one document, on an ideal cut to one: not the ratio's)
        where = f"for {describe(zero)} (nothing relevant) your ndcg"
        nan = record.outcome in (CallOutcome.VALUE, CallOutcome.NOT_A_NUMBER) and record.value is not None \
            and math.isnan(record.value)
        # the missing zero check's, unless an unexplained ndcg (not one whose ideal is 0) divides by zero elsewhere too
        division = nan or (raised(record) and record.error == "ZeroDivisionError")
        inner = zero_division_elsewhere(records) if division and not explained else None
        if inner is not None:
            did = "returned NaN" if nan else "raised ZeroDivisionError"
            diagnosis.unexplained["ndcg"] = f"{where} {did}; it must return 0.0. But {inner}"
            return
        if record.outcome is CallOutcome.RAISED:
            said = f"{where} raised {exception_name(record.error or '')}; it must return 0.0"
        elif nan:  # 0 / 0 in numpy is NaN, also inside a 0-d array (its type is named by returns-non-float)
            said = f"{where} returned NaN (0 / 0: iDCG = 0); it must return 0.0"
        elif record.outcome is CallOutcome.NOT_A_NUMBER and record.value is None:
            kind = returned(record.type_name or "", record.empty)
            said = f"{where} returned {kind}, not a number; it must return 0.0"
        elif record.outcome is CallOutcome.VALUE and record.value != 0.0 and explained:
            said = f"{where} returns {record.value}; it must return 0.0"
        else:
            continue
        _add(diagnosis, "zero-ideal", "ndcg", said)
        return  # one counterexample is enough


def _refuses_one(records: Records) -> bool:
    """Whether the student's dcg raises on a list of one document (grades 0-2)."""
    return any(raised(records.get(p)) for p in DCG_PROBES if len(rels_of(p)) == 1 and not grades_above(p, 2))


def _crash_on_grade_range(records: Records, diagnosis: Diagnosis, function: str) -> None:
    cause = grade_range_crash(records, function)
    if cause is not None:
        _add(diagnosis, "grade-range", function,
             f"for {describe(cause)} your {function} raised {exception_name(records[cause].error or '')} on grade "
             f"{max(rels_of(cause)):g}: does your code assume grades 0–2?")


def _crash_on_fraction(records: Records, diagnosis: Diagnosis, function: str) -> None:
    cause = fraction_crash(records, function)
    if cause is not None:
        rels = rels_of(cause)
        fractions = [r for r in rels if not float(r).is_integer()]
        grade = fractions[0] if fractions else next(r for r in rels if type(r) is float)
        _add(diagnosis, "grades-truncated", function,
             f"for {describe(cause)} your {function} raised {exception_name(records[cause].error or '')} on grade "
             f"{grade!r}: does your code assume whole-number grades (int)? A grade may be a fraction or a float")


def _crash_on_one_document(records: Records, diagnosis: Diagnosis, function: str) -> None:
    """One document, k beyond the list: only crashes with grades 0-2 (grade 3 has its own cause, above)."""
    one_document = [p for p in (*DCG_PROBES, *ONE_DOCUMENT_PROBES) if len(rels_of(p)) == 1 and not grades_above(p, 2)]
    # (an ndcg whose dcg gives a single document 0 divides 0 by 0: the zero ideal, named above)
    crashed = [
        p for p in one_document if p.function == function and raised(records.get(p))
        and not (function == "ndcg" and "zero-ideal" in diagnosis.ids
                 and _value(records.get(probe("dcg", rels_of(p), k_of(p)))) == 0.0)
    ]
    if crashed:
        record = records[crashed[0]]
        # scikit-learn's words: named only for code that calls it (a probe's message may be shown)
        library = "; scikit-learn's ndcg_score, which your code calls, refuses one-document lists whatever k is" \
            if SKLEARN_ONE_DOCUMENT in (record.message or "") else ""
        _add(diagnosis, "one-document", function,
             f"for {describe(crashed[0])} your {function} raised {exception_name(record.error or '')}; "
             f"a single document is a ranking too{library}")


def _mutated_input(records: Records, diagnosis: Diagnosis) -> None:
    """The first call after which the caller's list was not what it passed."""
    for call, record in records.items():
        changed = record.after is not None and record.after != tuple(float(r) for r in rels_of(call))
        if record.outcome in RAN and changed and record.after is not None:
            after = ", ".join(f"{v:g}" if v is not None else "?" for v in record.after)
            _add(diagnosis, "mutates-input", call.function,
                 f"after {call.function}({list(rels_of(call))}, {k_of(call)}) the caller's list was [{after}]")
            return
