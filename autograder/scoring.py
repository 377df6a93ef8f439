"""Turn what the student's functions returned into points, in the grader's own process.

A case passes when the call returned a plain number within :data:`~autograder.cases.REL_TOL`
of the reference value (and, where asked, left its input list unchanged). A test group scores
its points when every one of its cases passes, like an nbgrader grade cell.

Messages are written for the student. For a hidden case they say which property failed and
how (a wrong value, an exception's built-in type, a timeout), never the input, the expected
value or text the student's code produced while it held the input.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import asdict, dataclass

from .cases import ABS_TOL, GROUPS, REL_TOL, Case, TestGroup, expected

#: Type names shown as they are; any other name could be chosen by the student to carry data.
#: (Built-in type names are shown too, see _type_name.)
_SHOWN_TYPES = {"ndarray", "float64", "float32", "int64", "int32", "Decimal", "Fraction", "NoneType"}


@dataclass(frozen=True)
class CallPlan:
    """Which call id belongs to which case (the runner only ever sees the ids and inputs)."""

    call_id: int
    group: TestGroup
    case: Case


@dataclass
class TestResult:
    """One test group's result, as reported in ``results.json``."""

    name: str
    description: str
    points: float
    max_points: float
    passed: bool
    message: str
    visible: bool
    cases_passed: int
    cases: int

    def to_dict(self) -> dict:
        return asdict(self)


def plan_calls(first_id: int = 0) -> list[CallPlan]:
    """One call per test case, numbered from ``first_id``."""
    plan = []
    for group in GROUPS:
        for case in group.cases:
            plan.append(CallPlan(first_id + len(plan), group, case))
    return plan


def runner_call(call_id: int, function: str, rels: tuple, k: int) -> dict:
    """One call as sent to the runner: id, function name and arguments, nothing else."""
    return {"id": call_id, "function": function, "rels": list(rels), "k": k}


def runner_calls(plan: list[CallPlan]) -> list[dict]:
    """The test calls as sent to the runner."""
    return [runner_call(p.call_id, p.case.function, p.case.rels, p.case.k) for p in plan]


def same_group(plan: list[CallPlan]):
    """For a call that timed out: the other calls of its group (the group has failed already)."""
    groups = {p.call_id: p.group.grade_id for p in plan}

    def others(call_id: int) -> list[int]:
        return [p.call_id for p in plan if p.group.grade_id == groups.get(call_id) and p.call_id != call_id]

    return others


def _exception_name(name: str) -> str:
    candidate = getattr(builtins, name, None)
    if isinstance(candidate, type) and issubclass(candidate, BaseException):
        return name
    return "an exception of its own class"


def _type_name(name: str) -> str:
    return name if name in _SHOWN_TYPES or isinstance(getattr(builtins, name, None), type) else "an object of its own class"


def case_passes(case: Case, record: dict) -> bool:
    """Whether the call's record meets the case (number, value within tolerance, input unchanged)."""
    if record.get("outcome") != "value":
        return False
    value = record["value"]
    if not math.isclose(value, expected(case), rel_tol=REL_TOL, abs_tol=ABS_TOL):
        return False
    if case.check_unchanged and record.get("after") != [float(v) for v in case.rels]:
        return False
    return True


def explain_failure(case: Case, record: dict, visible: bool, timeout: float) -> str:
    """A student-facing sentence on why ``case`` failed, safe for hidden cases."""
    outcome = record.get("outcome")
    what = case.call if visible else f"a hidden case ({case.provenance.removeprefix('constructed: ')})"
    function = f"`{case.function}`"
    if outcome == "undefined":
        return f"your notebook does not define a function {function}"
    if outcome == "value":
        value = record["value"]
        if not math.isclose(value, expected(case), rel_tol=REL_TOL, abs_tol=ABS_TOL):
            if visible:
                return f"{what} returned {value!r}; expected {expected(case)!r}"
            if math.isnan(value):
                return f"{function} returned NaN on {what}"
            return f"{function} returned a wrong value on {what}"
        return f"{function} changed the caller's list on {what}; do not modify `rels` (use sorted(rels), not rels.sort())"
    if outcome == "not-a-number":
        return f"{function} returned {_type_name(record['type'])}, not a number, on {what}"
    if outcome == "raised":
        name = record["error"] if visible else _exception_name(record["error"])
        detail = f": {record['message']}" if visible and record.get("message") else ""
        return f"{function} raised {name}{detail} on {what}"
    if outcome == "timeout":
        return f"{function} did not finish within {timeout:g} s on {what}"
    if outcome == "crashed":
        return f"{function} ended the Python process on {what} (os._exit, sys.exit in a thread, a crash?)"
    return f"{what} was not run (the submission used up its time)"


def score(plan: list[CallPlan], calls: dict[int, dict], timeout: float) -> list[TestResult]:
    """Score every test group from the call records (``{call_id: record}``)."""
    results = []
    for group in GROUPS:
        mine = [p for p in plan if p.group.grade_id == group.grade_id]
        failures = [p for p in mine if not case_passes(p.case, calls.get(p.call_id, {"outcome": "not-run"}))]
        passed = not failures
        if passed:
            message = f"all {len(mine)} cases passed"
        else:
            first = failures[0]
            message = explain_failure(first.case, calls.get(first.call_id, {"outcome": "not-run"}), group.visible, timeout)
            if len(failures) > 1:
                message += f" ({len(failures)} of {len(mine)} cases failed)"
        results.append(
            TestResult(
                name=group.grade_id, description=group.description, points=group.points if passed else 0.0,
                max_points=group.points, passed=passed, message=message, visible=group.visible,
                cases_passed=len(mine) - len(failures), cases=len(mine),
            )
        )
    return results
