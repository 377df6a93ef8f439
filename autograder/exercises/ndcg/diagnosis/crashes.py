"""Which probe a crash points at: a pattern of raising that has one cause (a grade above 2, a fraction).

Real code that fails only on some grades raises on exactly the probes that hold them: the probe a
pattern singles out is the counterexample the diagnosis shows.
"""

from __future__ import annotations

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
