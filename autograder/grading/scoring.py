"""Turn what the student's functions returned into points, in the grader's own process.

A case passes when the call returned what it expects (:class:`~.definition.exercise.Expect`): a number that
agrees with the exercise's reference value, any plain number (the contract), or a number that
agrees with the student's own value on a companion call (a property, whatever else is wrong);
and, where asked, left its input list unchanged. A result that is no plain number but has a
numeric value (a 0-d array, a Decimal) fails only the contract: its value is judged like any other.
A test group scores its points when every one of its cases passes, like an nbgrader grade cell.

Messages are written for the student. For a hidden case they say which property failed and
how (a wrong value, an exception's built-in type, a timeout), never the input, the expected
value or text the student's code produced while it held the input.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace

from ..sandbox import NOT_RUN_CALL, CallOutcome, CallRecord
from .definition.calls import CallPlan
from .definition.exercise import Call, Case, Exercise, Expect, TestGroup
from .model import CaseResult, TestResult
from .reading.helper_cell import check_not_vacuous
from .shown_names import exception_name, returned, type_name


def _numeric(record: CallRecord) -> float | None:
    """The number a call returned: a plain one, or the numeric value of a 0-d array, a Decimal ..."""
    if record.outcome in (CallOutcome.VALUE, CallOutcome.NOT_A_NUMBER):
        return record.value
    return None


def _unchanged(case: Case, record: CallRecord) -> bool:
    return not case.check_unchanged or record.after == tuple(float(v) for v in case.call.args[0])


@dataclass(frozen=True)
class CaseRecords:
    """What the calls of one case returned: the case's own call, its companion, its own-ratio calls."""

    call: CallRecord
    companion: CallRecord | None = None
    own_ratio: tuple[CallRecord, CallRecord] | None = None


def _own_ratio(records: CaseRecords) -> float | None:
    """The ratio of the student's own values on the own-ratio calls (None for a zero denominator)."""
    if records.own_ratio is None:
        return None
    top, bottom = (_numeric(r) for r in records.own_ratio)
    if top is None or not bottom:  # 0/0 proves nothing: a function that returns 0 would always agree
        return None
    if not (math.isfinite(top) and math.isfinite(bottom)):
        return None
    return top / bottom


def _primary(exercise: Exercise, case: Case, value: float, records: CaseRecords) -> bool:
    """Whether ``value`` is what the case expects first (the reference, or the companion's value)."""
    if case.expect is Expect.SAME_AS:
        other = _numeric(records.companion) if records.companion is not None else None
        return other is not None and math.isfinite(other) and exercise.agrees(value, case.factor * other)
    return exercise.agrees(value, exercise.expected(case))


def value_passes(exercise: Exercise, case: Case, value: float, records: CaseRecords) -> bool:
    """Whether ``value`` is right for the case: what it expects, or the student's own ratio.

    A value that is not finite never is: ``inf`` is "close" to ``2 * inf``, which would make every
    scaling property hold for a function that returns infinity.
    """
    if not math.isfinite(value):
        return False
    if _primary(exercise, case, value, records):
        return True
    own = _own_ratio(records)
    return own is not None and exercise.agrees(value, own)


def case_passes(exercise: Exercise, case: Case, records: CaseRecords) -> bool:
    """Whether the records of a case's calls meet the case."""
    record = records.call
    if case.expect is Expect.NUMBER:
        finite = record.value is not None and math.isfinite(record.value)
        return record.outcome is CallOutcome.VALUE and finite and _unchanged(case, record)
    value = _numeric(record)
    return value is not None and value_passes(exercise, case, value, records) and _unchanged(case, record)


def _property(case: Case) -> str:
    """How a property case reads to a student: ``dcg([1, 2], 5) == dcg([1, 2], 2)``."""
    if case.companion is None:
        return case.call.text
    factor = f"{case.factor:g} * " if case.factor != 1.0 else ""
    return f"{case.call.text} == {factor}{case.companion.text}"


# why long: one sentence per way a case fails, tried in the order that decides which sentence wins (a
# companion's failure, then the outcome, then the value): split up, that order would be spread over helpers
def explain_failure(  # noqa: C901, PLR0912 — one return per failure, in priority order (see above)
    exercise: Exercise, case: Case, records: CaseRecords, visible: bool, timeout: float,
    shown_errors: frozenset[str] = frozenset(),
) -> str:
    """A student-facing sentence on why ``case`` failed, safe for hidden cases.

    ``shown_errors``: the exceptions the same function's visible rows show (their names and messages
    are on the page already), which a hidden case's sentence may refer to.
    """
    what = case.call.text if visible else f"a hidden case ({case.what})"
    record, companion = records.call, records.companion
    other = _numeric(companion) if companion is not None else None
    if case.companion is not None and companion is not None and _explained_record(case, records) is companion:
        # the companion call is what failed: explain that one
        alone = Case(case.companion, case.what, constructed=case.constructed)
        return explain_failure(exercise, alone, CaseRecords(companion), visible, timeout, shown_errors)
    function = f"`{case.function}`"
    outcome = record.outcome
    if outcome is CallOutcome.UNDEFINED:
        return f"your notebook does not define a function {function}"
    value = _numeric(record)
    if case.expect is Expect.NUMBER and outcome is CallOutcome.NOT_A_NUMBER:
        return f"{function} returned {type_name(record.type_name or '')}, not a plain number (float), on {what}"
    if value is not None and not math.isfinite(value) and not (math.isnan(value) and case.expect is not Expect.NUMBER):
        return f"{function} returned {value!r}, not a finite number, on {what}"
    if value is not None:
        if case.expect is Expect.NUMBER or value_passes(exercise, case, value, records):
            return f"{function} changed the caller's list on {what}; {exercise.unchanged_hint}"
        if case.expect is Expect.SAME_AS:
            if visible:
                return f"{_property(case)} should hold, but the left side is {value!r} and the right {other!r}"
            meaning = f": {case.meaning}" if case.meaning else ""
            return f"{function} broke a property on {what}{meaning}"
        expected = exercise.expected(case)
        if visible:
            return f"{what} returned {value!r}; expected {expected!r}"
        if math.isnan(value):
            return f"{function} returned NaN on {what}"
        return f"{function} returned a wrong value on {what}"
    if outcome is CallOutcome.NOT_A_NUMBER:
        return f"{function} returned {returned(record.type_name or '', record.empty)}, not a number, on {what}"
    if outcome is CallOutcome.RAISED:
        name = record.error if visible else exception_name(record.error or "")
        detail = f": {record.message}" if visible and record.message else ""
        if not visible and record.error and record.error in shown_errors:
            # the visible tests already showed this exception: saying it is the same one reveals nothing new
            return f"{function} raised the same {record.error} as on the visible test cases above, on {what}"
        return f"{function} raised {name}{detail} on {what}"
    if outcome is CallOutcome.TIMEOUT:
        return f"{function} did not finish within {timeout:g} s on {what}"
    if outcome is CallOutcome.CRASHED:
        return f"{function} ended the Python process on {what} (os._exit, sys.exit in a thread, a crash?)"
    return f"{what} was not run (the submission used up its time)"


def _records(p: CallPlan, calls: Mapping[int, CallRecord]) -> CaseRecords:
    """The records of a case's calls (a call that was never made: :data:`NOT_RUN_CALL`)."""
    extra = [calls.get(i, NOT_RUN_CALL) for i in p.extra_ids]
    companion = extra.pop(0) if p.case.companion is not None else None
    own = (extra[0], extra[1]) if p.case.own_ratio is not None else None
    return CaseRecords(calls.get(p.call_id, NOT_RUN_CALL), companion, own)


def passes_without_reference(case: Case) -> bool:
    """Whether a case can pass on evidence other than the reference value: a property, an own ratio."""
    return case.expect is Expect.SAME_AS or case.own_ratio is not None


def _pass_says_something(exercise: Exercise, plan: list[CallPlan], calls: Mapping[int, CallRecord]) -> bool:
    """Whether a group that passed did so on evidence that says something.

    ``0 == 2 * 0`` holds for a stub that returns 0, and a helper that returns a constant divides its
    own values to 1. So where a group's cases may pass on evidence other than the reference value,
    the group counts only if (a) on one of those cases the value is not 0 where the reference is
    not 0, and (b) if a case passed only through the student's own ratio, the two own values differ
    on one of the group's cases. Honest variants of the computation pass both; an exercise's
    property groups should also hold a reference case that no constant meets.
    """
    cases = [(p, _records(p, calls)) for p in plan if passes_without_reference(p.case)]
    if not cases:
        return True
    # what the notebook's helper cell collects per case: (value, the definition's value, passed only
    # through the own ratio, the own values differ); a value that is missing says as little as 0
    seen = []
    for p, r in cases:
        value = _numeric(r.call)
        through_own = p.case.own_ratio is not None and value is not None and not _primary(exercise, p.case, value, r)
        seen.append((0.0 if value is None else value, exercise.expected(p.case), through_own, _own_distinct(r)))
    try:
        # the rule itself is the helper cell's, the one the notebook's tests run; its message names
        # the function (only whether it raises matters here)
        check_not_vacuous(SimpleNamespace(__name__=plan[0].case.function), seen)
    except AssertionError:
        return False
    return True


def _own_distinct(records: CaseRecords) -> bool:
    """Whether the student's helper gave the two own-ratio calls different values."""
    if records.own_ratio is None:
        return False
    top, bottom = (_numeric(r) for r in records.own_ratio)
    return top is not None and bottom is not None and top != bottom


def observed_values(records: Mapping[Call, CallRecord]) -> dict[Call, float]:
    """Every number the student's functions returned on ``records``' calls, ``inf`` and NaN included."""
    return {call: value for call, record in records.items() if (value := _numeric(record)) is not None}


def _helpers(plan: list[CallPlan], calls: Mapping[int, CallRecord], exercise: Exercise) -> set[str]:
    """The functions whose own values a group's passing cases leaned on (an own ratio)."""
    leaned = set()
    for p in plan:
        records = _records(p, calls)
        value = _numeric(records.call)
        if p.case.own_ratio is not None and value is not None and not _primary(exercise, p.case, value, records):
            leaned.add(p.case.own_ratio[0].function)
    return leaned


def _unfounded(
    exercise: Exercise, group: TestGroup, plan: list[CallPlan], calls: Mapping[int, CallRecord],
    resembles: Callable[[str], bool], unchecked: frozenset[str] = frozenset(),
) -> str | None:
    """Why a group whose cases all passed earns nothing, or None if its pass says something.

    Values can meet a group's cases without computing the measure at all: a constant meets every
    property, ``0 == 2 * 0``, a lookup table meets known inputs. So beyond the contract, a pass
    counts only where the function behaves like *some* way of computing the measure (the
    exercise's :attr:`~.definition.exercise.Exercise.resembles`, on what it returned on the test calls and on
    the witness calls drawn for this submission), and an own ratio only where the helper it divides
    does too. ``unchecked`` are the functions some of whose witness calls were not run.
    """
    if group.contract:
        return None
    if not _pass_says_something(exercise, plan, calls):
        return (
            f"the values of `{group.function}` on this group's cases say nothing: they are 0 where the "
            "definition's are not, or match only your own helper where it returns the same value everywhere"
        )
    if not resembles(group.function) and group.function in unchecked:
        return (
            f"not checked: the calls drawn for your submission to show that `{group.function}` computes it were "
            "not all run (the submission used up its time, or one of them hung), so meeting this group's cases "
            "proves nothing"
        )
    if not resembles(group.function):
        # said where the cases were met: what the group checks, and why meeting it earns nothing here
        return (
            f"this group checks that {group.description}; your `{group.function}` meets its cases, but on other "
            "rankings (some drawn for your submission) its values are not those of any DCG (a sum of grades "
            f"weighted by rank), so meeting the cases proves nothing: make `{group.function}` compute the "
            "definition and the group counts"
        )
    helpers = sorted(h for h in _helpers(plan, calls, exercise) if not resembles(h))
    if helpers:
        return (
            f"`{group.function}` matches only the ratio of your own `{helpers[0]}` values, and `{helpers[0]}` does "
            "not compute what the definition asks for, so that says nothing"
        )
    return None


def _explained_record(case: Case, records: CaseRecords) -> CallRecord:
    """The record a failure's sentence is about: the companion's when that is what failed, else the call's."""
    companion = records.companion
    if case.companion is not None and companion is not None and _numeric(companion) is None:
        return companion if _numeric(records.call) is not None else records.call
    return records.call


def score(
    exercise: Exercise, plan: list[CallPlan], calls: Mapping[int, CallRecord], timeout: float,
    witnesses: Mapping[Call, CallRecord] | None = None,
) -> list[TestResult]:
    """Score every test group of ``exercise`` from the call records (``{call_id: record}``).

    ``plan`` holds the cases graded (with one submission's drawn instances, if any); the groups
    come in the exercise's order. ``witnesses`` are the records of the exercise's witness calls
    drawn for the submission (:attr:`~.definition.exercise.Exercise.witnesses`): with the test calls' own
    values, they tell whether a function computes anything like the measure.
    """
    by_group: dict[str, list[CallPlan]] = {}
    for p in plan:
        by_group.setdefault(p.group.grade_id, []).append(p)
    # The function must compute one way of the measure on the witnesses (ordinary rankings, where every
    # way shows its shape) *and* on the test calls that earn the points: a function that could tell the
    # witness calls apart (by their number, their order) and compute a DCG only there earns nothing.
    graded = {
        call: calls.get(call_id, NOT_RUN_CALL)
        for p in plan for call_id, call in zip(p.ids, (p.case.call, *p.case.extra_calls), strict=True)
    }
    observed = {**observed_values(graded), **observed_values(witnesses or {})}
    resemblance: dict[str, bool] = {}
    # a function whose witnesses were not run is told so, not that it computes nothing known
    unchecked = frozenset(c.function for c, r in (witnesses or {}).items() if r.outcome is CallOutcome.NOT_RUN)

    def resembles(function: str) -> bool:
        if function not in resemblance:
            resemblance[function] = exercise.resembles(function, observed)
        return resemblance[function]

    failing = {
        g.grade_id: [p for p in by_group.get(g.grade_id, []) if not case_passes(exercise, p.case, _records(p, calls))]
        for g in exercise.groups
    }
    # the exceptions the visible rows show (a row shows its group's first failure): a hidden case may say it raised
    # the same; one raised on a later visible case is on no row, and "the same as above" would point at nothing
    shown: dict[str, set[str]] = {}
    for first in (failing[g.grade_id][0] for g in exercise.groups if g.visible and failing[g.grade_id]):
        record = _explained_record(first.case, _records(first, calls))
        if record.outcome is CallOutcome.RAISED and record.error:
            shown.setdefault(first.case.function, set()).add(record.error)
    results = []
    for group in exercise.groups:
        mine = by_group.get(group.grade_id, [])
        failures = failing[group.grade_id]
        unfounded = None if failures else _unfounded(exercise, group, mine, calls, resembles, unchecked)
        if unfounded is not None:
            failures = [p for p in mine if p.case.expect is not Expect.NUMBER]
        if not failures:
            message = f"all {len(mine)} cases passed"
        elif unfounded is not None:
            message = unfounded
        else:
            first = failures[0]
            message = explain_failure(
                exercise, first.case, _records(first, calls), group.visible, timeout,
                frozenset(shown.get(first.case.function, ())),
            )
            if len(failures) > 1:
                message += f" ({len(failures)} of {len(mine)} cases failed)"
        results.append(
            TestResult(
                name=group.grade_id, description=group.description, points=0.0 if failures else group.points,
                max_points=group.points, passed=not failures, message=message, visible=group.visible,
                cases_passed=len(mine) - len(failures), cases=len(mine),
                case_results=tuple(CaseResult(p.case.provenance, p not in failures) for p in mine),
            )
        )
    return results
