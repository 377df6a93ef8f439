"""Differently written correct solutions, and ways to run trusted solutions in-process: on the probes, on the test cases."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping

from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.diagnosis import ALL_PROBES
from autograder.exercises.ndcg.diagnosis.probes import k_of, rels_of
from autograder.grading import Call, Case, Exercise, TestResult, drawn_groups, drawn_witnesses
from autograder.grading.definition.calls import plan_calls
from autograder.grading.scoring import CaseRecords, case_passes, score
from autograder.grading.scoring import _records as _case_records
from autograder.sandbox import CallOutcome, CallRecord

CORRECT_SOLUTIONS: dict[str, tuple[str, str]] = {
    "exam": (
        "import math\n\n\ndef dcg(rels, k):\n    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))",
        "def ndcg(rels, k):\n    ideal = dcg(sorted(rels, reverse=True), k)\n    return dcg(rels, k) / ideal if ideal else 0.0",
    ),
    "loop": (
        "import math\n\n\ndef dcg(rels, k):\n    total = 0.0\n    for rank, rel in enumerate(rels, start=1):\n"
        "        if rank > k:\n            break\n        total += rel / math.log2(rank + 1)\n    return total",
        "def ndcg(rels, k):\n    best = list(rels)\n    best.sort(reverse=True)\n    ideal = dcg(best, k)\n"
        "    if ideal == 0:\n        return 0.0\n    return dcg(rels, k) / ideal",
    ),
    "numpy_float64": (
        "import numpy as np\n\n\ndef dcg(rels, k):\n    top = np.asarray(rels[:k], dtype=float)\n"
        "    return np.sum(top / np.log2(np.arange(2, top.size + 2)))",
        "import numpy as np\n\n\ndef ndcg(rels, k):\n    ideal = dcg(np.sort(np.asarray(rels))[::-1], k)\n"
        "    return dcg(rels, k) / ideal if ideal > 0 else np.float64(0.0)",
    ),
    "recursion": (
        "import math\n\n\ndef dcg(rels, k, rank=1):\n    if k == 0 or not rels:\n        return 0.0\n"
        "    return rels[0] / math.log2(rank + 1) + dcg(rels[1:], k - 1, rank + 1)",
        "def ndcg(rels, k):\n    ideal = dcg(sorted(rels)[::-1], k)\n    return 0.0 if ideal == 0 else dcg(rels, k) / ideal",
    ),
    "heapq": (
        "from math import log\n\n\ndef dcg(rels, k):\n    return sum(r / log(i + 2, 2) for i, r in enumerate(rels[:k]))",
        "import heapq\n\n\ndef ndcg(rels, k):\n    best = heapq.nlargest(k, rels)\n    ideal = dcg(best, k)\n"
        "    return dcg(rels, k) / ideal if ideal else 0.0",
    ),
    "try_except_zero": (
        "import math\n\n\ndef dcg(rels, k):\n    return math.fsum(r / math.log2(i + 1) for i, r in zip(range(1, k + 1), rels))",
        "def ndcg(rels, k):\n    try:\n        return dcg(rels, k) / dcg(sorted(rels, reverse=True), k)\n"
        "    except ZeroDivisionError:\n        return 0.0",
    ),
    "fractions_and_helpers": (
        "import math\n\n\ndef discount(rank):\n    return 1 / math.log(rank + 1, 2)\n\n\n"
        "def dcg(rels, k):\n    k = min(k, len(rels))\n    return float(sum(rels[i] * discount(i + 1) for i in range(k)))",
        "def ndcg(rels, k):\n    ranked = dcg(rels, k)\n    ideal = dcg(sorted(rels, key=lambda r: -r), k)\n"
        "    return ranked / ideal if ideal != 0 else 0.0",
    ),
}


def call_records(dcg_source: str, ndcg_source: str, calls: Iterable[Call]) -> dict[Call, CallRecord]:
    """Run trusted solution code in this process on ``calls``, making the records the runner would."""
    namespace: dict = {}
    exec(dcg_source, namespace)
    exec(ndcg_source, namespace)
    return records_of(namespace, calls)


def records_of(functions: Mapping[str, Callable], calls: Iterable[Call]) -> dict[Call, CallRecord]:
    """The records the runner would make of trusted ``functions[call.function](rels, k)`` on ``calls``."""
    records = {}
    for call in calls:
        argument = list(rels_of(call))
        try:
            function = functions[call.function]
        except KeyError:
            records[call] = CallRecord(CallOutcome.UNDEFINED)
            continue
        try:
            value = function(argument, k_of(call))
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                record = CallRecord(CallOutcome.VALUE, value=float(value))
            else:
                try:  # as the runner does: what float() makes of it, for the diagnosis
                    numeric = None if isinstance(value, (str, bytes, list, tuple, dict)) else float(value)
                except Exception:
                    numeric = None
                empty = isinstance(value, (str, list, tuple, dict)) and not value
                empty = empty or (type(value).__name__ == "ndarray" and value.size == 0)
                record = CallRecord(
                    CallOutcome.NOT_A_NUMBER, value=numeric, type_name=type(value).__name__, empty=empty
                )
        except Exception as error:
            record = CallRecord(CallOutcome.RAISED, error=type(error).__name__, message=str(error))
        records[call] = CallRecord(**{**record.__dict__, "after": tuple(float(v) for v in argument)})
    return records


def probe_records(dcg_source: str, ndcg_source: str) -> dict[Call, CallRecord]:
    """Every probe's record for trusted solution code, run in this process."""
    return call_records(dcg_source, ndcg_source, ALL_PROBES)


def scored(functions: Mapping[str, Callable], seed: bytes | None = None, exercise: Exercise = EXERCISE) -> list[TestResult]:
    """Every test group's result for trusted ``functions``, scored by the real scoring from in-process records.

    With a ``seed``: with the fresh instances that seed draws beside the fixed cases.
    """
    return scored_and_met(functions, seed, exercise)[0]


def scored_and_met(
    functions: Mapping[str, Callable], seed: bytes | None = None, exercise: Exercise = EXERCISE,
) -> tuple[list[TestResult], set[str]]:
    """:func:`scored`, and the groups every one of whose cases ``functions`` meet (before the evidence rule)."""
    plan = plan_calls(exercise, groups=None if seed is None else drawn_groups(exercise, seed))
    calls = [(call_id, call) for p in plan for call_id, call in zip(p.ids, (p.case.call, *p.case.extra_calls), strict=True)]
    records = records_of(functions, dict.fromkeys(call for _, call in calls))
    witnesses = None if seed is None or exercise.witnesses is None else records_of(functions, drawn_witnesses(exercise, seed))
    by_id = {call_id: records[call] for call_id, call in calls}
    failed = {p.group.grade_id for p in plan if not case_passes(exercise, p.case, _case_records(p, by_id))}
    met = {group.grade_id for group in exercise.groups} - failed
    return score(exercise, plan, by_id, 10.0, witnesses), met


def instance_passes(functions: Mapping[str, Callable], case: Case) -> bool:
    """Whether trusted ``functions`` pass one case (with its companion and own-ratio calls), as scoring judges it."""
    records = records_of(functions, (case.call, *case.extra_calls))
    extra = [records[call] for call in case.extra_calls]
    companion = extra.pop(0) if case.companion is not None else None
    own = (extra[0], extra[1]) if case.own_ratio is not None else None
    return case_passes(EXERCISE, case, CaseRecords(records[case.call], companion, own))


def functions_of(dcg_source: str, ndcg_source: str) -> dict:
    """The namespace trusted solution code defines."""
    namespace: dict = {}
    exec(dcg_source, namespace)
    exec(ndcg_source, namespace)
    return namespace


def lost_groups(dcg_source: str, ndcg_source: str, seed: bytes | None = None) -> set[str]:
    """The test groups trusted solution code loses (with the fresh instances ``seed`` draws, if given)."""
    return {test.name for test in scored(functions_of(dcg_source, ndcg_source), seed) if not test.passed}


def points_for(functions: Mapping[str, Callable]) -> float:
    """The points trusted ``functions`` (``{"dcg": ..., "ndcg": ...}``) earn."""
    return sum(test.points for test in scored(functions))
