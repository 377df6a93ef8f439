"""Which probe a crash points at: a pattern of raising that has one cause (a grade above 2, a fraction).

Real code that fails only on some grades raises on exactly the probes that hold them: the probe a
pattern singles out is the counterexample the diagnosis shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ....grading import Call
from ....sandbox import CallOutcome, CallRecord
from .probes import NDCG_PROBES, k_of, rels_of


def raised(record: CallRecord | None) -> bool:
    """Whether the call was made and raised."""
    return record is not None and record.outcome is CallOutcome.RAISED


def grades_above(call: Call, top: float) -> bool:
    """Whether the probe's list holds a grade above ``top``."""
    return any(r > top for r in rels_of(call))


def _ordinary_crashes(records: Mapping[Call, CallRecord], function: str) -> list[Call]:
    """The ordinary probes of ``function`` that raised (k beyond the list, one document and nothing
    relevant are left out: they have causes of their own)."""
    return [
        p for p in (NDCG_PROBES if function == "ndcg" else records)
        if p.function == function and len(rels_of(p)) >= 2 and k_of(p) <= len(rels_of(p)) and any(rels_of(p))
        and raised(records.get(p))
    ]


def grade_range_crash(records: Mapping[Call, CallRecord], function: str) -> Call | None:
    """A probe on which ``function`` raised because of a grade above 2, if that is its pattern.

    Real code that looks grades up in a table made for 0, 1 and 2 raises on grade 3 (IndexError,
    KeyError), and on nothing with grades 0-2: then the crash, not the list's length or k, is the cause.
    """
    crashed = _ordinary_crashes(records, function)
    if not crashed or any(not grades_above(p, 2) and _integral(p) for p in crashed):
        return None
    return next((p for p in crashed if grades_above(p, 2) and _integral(p)), None)


def fraction_crash(records: Mapping[Call, CallRecord], function: str) -> Call | None:
    """A probe on which ``function`` raised because of a fractional grade, if that is its pattern.

    Real code that keeps grades as text and converts them late (``int(str(rel))``, ``int("2.5")``)
    raises ValueError on a grade such as 2.5 or 1.0 and on no list of Python ints: it assumes
    whole-number grades, which is the truncation mistake made loudly.
    """
    crashed = _ordinary_crashes(records, function)
    if not crashed or any(all(type(r) is int for r in rels_of(p)) for p in crashed):
        return None
    return min(crashed, key=_integral)  # a fractional grade, where one crashed, says it best


def _integral(call: Call) -> bool:
    return all(float(r).is_integer() for r in rels_of(call))


def zero_division_elsewhere(records: Mapping[Call, CallRecord]) -> str | None:
    """Where an ndcg's division by zero is not the zero ideal's: what it does where documents are relevant.

    An ndcg that divides by zero where nothing is relevant lacks the check of a zero ideal DCG, unless it
    divides by zero also where the ideal DCG is not 0: raises ZeroDivisionError there, returns a value
    that is not finite, or returns 0.0 on every such ranking (numpy's x / log2(1) is inf, and DCG / inf
    is 0). Then the zero is inside the computation of a DCG (rank 1 divided by log2(1) = 0), and a check
    of the ideal DCG before dividing would not fix it. None when the ndcg's values say nothing of that.
    """
    seen = [(p, r) for p in NDCG_PROBES if (r := records.get(p)) is not None and any(rels_of(p))]
    crashed = next((p for p, r in seen if raised(r) and r.error == "ZeroDivisionError"), None)
    values = [(p, r.value) for p, r in seen if r.outcome is CallOutcome.VALUE and r.value is not None]
    infinite = next(((p, v) for p, v in values if not math.isfinite(v)), None)
    if crashed is not None:
        did = f"it raises ZeroDivisionError also for rels={list(rels_of(crashed))}, k={k_of(crashed)}"
    elif infinite is not None:
        did = f"it returns {infinite[1]!r} also for rels={list(rels_of(infinite[0]))}, k={k_of(infinite[0])}"
    elif values and all(v == 0.0 for _, v in values):
        did = "it returns 0.0 on every ranking with a relevant document we tried"
    else:
        return None
    return (f"{did}, where the ideal DCG is not 0: the division by zero is inside the formula of a DCG, and a check "
            "of the ideal DCG before dividing does not reach it. Is rank 1 divided by log2(1) = 0? Rank 1 is divided "
            "by log2(2) = 1")
