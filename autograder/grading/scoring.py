"""Turn what the student's functions returned into points, in the grader's own process.

A case passes when the call returned a plain number that agrees with the exercise's reference
value (and, where asked, left its input list unchanged). A test group scores its points when
every one of its cases passes, like an nbgrader grade cell.

Messages are written for the student. For a hidden case they say which property failed and
how (a wrong value, an exception's built-in type, a timeout), never the input, the expected
value or text the student's code produced while it held the input.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..sandbox import NOT_RUN_CALL, CallOrder, CallOutcome, CallRecord
from .exercise import Case, Exercise, TestGroup
from .model import CaseResult, TestResult

#: Type names shown as they are; any other name could be chosen by the student to carry data.
#: (Built-in type names are shown too, see :func:`type_name`.)
_SHOWN_TYPES = {"ndarray", "float64", "float32", "int64", "int32", "Decimal", "Fraction", "NoneType"}


@dataclass(frozen=True)
class CallPlan:
    """Which call id belongs to which case (the runner only ever sees the ids and inputs)."""

    call_id: int
    group: TestGroup
    case: Case


def plan_calls(exercise: Exercise, first_id: int = 0) -> list[CallPlan]:
    """One call per test case of ``exercise``, numbered from ``first_id``."""
    plan: list[CallPlan] = []
    for group in exercise.groups:
        for case in group.cases:
            plan.append(CallPlan(first_id + len(plan), group, case))
    return plan


def call_orders(plan: list[CallPlan]) -> list[CallOrder]:
    """The test calls as sent to the runner: ids, function names and inputs, nothing else."""
    return [CallOrder(p.call_id, p.case.call.function, p.case.call.args) for p in plan]


def same_group(plan: list[CallPlan]) -> Callable[[int], list[int]]:
    """For a call that timed out: the other calls of its group (the group has failed already)."""
    members: dict[str, list[int]] = {}
    for p in plan:
        members.setdefault(p.group.grade_id, []).append(p.call_id)
    group_of = {p.call_id: p.group.grade_id for p in plan}

    def others(call_id: int) -> list[int]:
        return [other for other in members.get(group_of.get(call_id, ""), []) if other != call_id]

    return others


def exception_name(name: str) -> str:
    """A raised exception's type name if it is a built-in one, else a neutral phrase (it could carry data)."""
    candidate = getattr(builtins, name, None)
    if isinstance(candidate, type) and issubclass(candidate, BaseException):
        return name
    return "an exception of its own class"


def type_name(name: str) -> str:
    """A returned object's type name if it is a well-known one, else a neutral phrase."""
    known = name in _SHOWN_TYPES or isinstance(getattr(builtins, name, None), type)
    return name if known else "an object of its own class"


def case_passes(exercise: Exercise, case: Case, record: CallRecord) -> bool:
    """Whether the call's record meets the case (a number, agreeing with the reference, input unchanged)."""
    if record.value is None or record.outcome is not CallOutcome.VALUE:
        return False
    if not exercise.agrees(record.value, exercise.expected(case)):
        return False
    return not (case.check_unchanged and record.after != tuple(float(v) for v in case.call.args[0]))


def explain_failure(exercise: Exercise, case: Case, record: CallRecord, visible: bool, timeout: float) -> str:
    """A student-facing sentence on why ``case`` failed, safe for hidden cases."""
    what = case.call.text if visible else f"a hidden case ({case.provenance.removeprefix('constructed: ')})"
    function = f"`{case.function}`"
    outcome = record.outcome
    if outcome is CallOutcome.UNDEFINED:
        return f"your notebook does not define a function {function}"
    if outcome is CallOutcome.VALUE and record.value is not None:
        value, expected = record.value, exercise.expected(case)
        if not exercise.agrees(value, expected):
            if visible:
                return f"{what} returned {value!r}; expected {expected!r}"
            if math.isnan(value):
                return f"{function} returned NaN on {what}"
            return f"{function} returned a wrong value on {what}"
        return f"{function} changed the caller's list on {what}; {exercise.unchanged_hint}"
    if outcome is CallOutcome.NOT_A_NUMBER:
        return f"{function} returned {type_name(record.type_name or '')}, not a number, on {what}"
    if outcome is CallOutcome.RAISED:
        name = record.error if visible else exception_name(record.error or "")
        detail = f": {record.message}" if visible and record.message else ""
        return f"{function} raised {name}{detail} on {what}"
    if outcome is CallOutcome.TIMEOUT:
        return f"{function} did not finish within {timeout:g} s on {what}"
    if outcome is CallOutcome.CRASHED:
        return f"{function} ended the Python process on {what} (os._exit, sys.exit in a thread, a crash?)"
    return f"{what} was not run (the submission used up its time)"


def score(
    exercise: Exercise, plan: list[CallPlan], calls: Mapping[int, CallRecord], timeout: float
) -> list[TestResult]:
    """Score every test group of ``exercise`` from the call records (``{call_id: record}``)."""
    by_group: dict[str, list[CallPlan]] = {}
    for p in plan:
        by_group.setdefault(p.group.grade_id, []).append(p)
    results = []
    for group in exercise.groups:
        mine = by_group.get(group.grade_id, [])
        failures = [p for p in mine if not case_passes(exercise, p.case, calls.get(p.call_id, NOT_RUN_CALL))]
        if not failures:
            message = f"all {len(mine)} cases passed"
        else:
            first = failures[0]
            record = calls.get(first.call_id, NOT_RUN_CALL)
            message = explain_failure(exercise, first.case, record, group.visible, timeout)
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
