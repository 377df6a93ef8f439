"""The runner's wire protocol, seen from the grader: typed records built from untrusted JSON lines.

Everything the runner writes can be forged by the student's code (it runs in the same process),
so every field is checked for its type and length here, and anything else is a
:class:`ProtocolError`. What leaves this module is plain data of known shape: numbers, short
texts, and outcome names from the enums below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .paths import redact_paths

#: Longest exception type name and message kept from a report.
MAX_NAME = 200
MAX_MESSAGE = 400
#: The compiled record's bounds, as the runner's (``runner.MAX_COMPILED`` ...): texts kept for a submission,
#: characters of one text, characters in all (a forged report gets no more than an honest runner sends).
MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL = 64, 32_768, 131_072
#: The largest count of texts left out that is kept (a forged count is a number like any other).
MAX_DROPPED = 10**9


class CellOutcome(StrEnum):
    """How one of the student's code cells ended."""

    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    NOT_RUN = "not-run"


class CallOutcome(StrEnum):
    """How one call of a student's function ended."""

    VALUE = "value"
    NOT_A_NUMBER = "not-a-number"
    RAISED = "raised"
    UNDEFINED = "undefined"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    NOT_RUN = "not-run"


#: Outcomes after which the function really ran (so its argument can be inspected).
RAN = frozenset({CallOutcome.VALUE, CallOutcome.NOT_A_NUMBER, CallOutcome.RAISED})


class ProtocolError(Exception):
    """A report line that does not follow the protocol."""


@dataclass(frozen=True)
class CellRecord:
    """What happened to one code cell."""

    outcome: CellOutcome
    #: Built-in or student-chosen exception type name (``ERROR`` only).
    error: str | None = None
    message: str | None = None
    #: The grader's own words on a timeout or crash.
    detail: str | None = None
    #: The texts the student's code compiled while the cell ran (untrusted data, never run), and how many
    #: more the runner's bounds left out (:class:`CompiledRoom` bounds them again).
    compiled: tuple[str, ...] = ()
    dropped: int = 0


@dataclass(frozen=True)
class CallRecord:
    """What one call returned or raised, and its first argument afterwards."""

    outcome: CallOutcome
    value: float | None = None
    #: The type name of a result that is not a number (``NOT_A_NUMBER`` only).
    type_name: str | None = None
    #: Whether that result was an empty list, tuple, dict, string or array (``NOT_A_NUMBER`` only).
    empty: bool = False
    error: str | None = None
    message: str | None = None
    #: The first argument after the call, if it was a list: numbers, ``None`` for non-numbers.
    after: tuple[float | None, ...] | None = None
    detail: str | None = None

    @property
    def number(self) -> float | None:
        """The value if the call returned a number, else None."""
        return self.value if self.outcome is CallOutcome.VALUE else None


NOT_RUN_CALL = CallRecord(CallOutcome.NOT_RUN)


def _text(record: dict[str, Any], key: str, limit: int) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise ProtocolError(f"field {key!r} is not text")
    # no path of the tutor's machine (see .paths), redacted before cutting so no piece of one is left;
    # JSON can carry lone surrogates ("\udcff"), which no file can hold as UTF-8: keep them as escapes
    return redact_paths(value)[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _finite_or_big(value: int | float) -> float | None:
    """``value`` as a float; None for an integer too large for one (it is no number a float can compare)."""
    try:
        return float(value)
    except OverflowError:
        return None


#: What the runner writes into an ``after`` list, and what a forged one may hold that still reads as numbers.
_AFTER_AS_WRITTEN = frozenset({float, type(None)})
_AFTER_NUMBERS = _AFTER_AS_WRITTEN | {int}


def _after(record: dict[str, Any]) -> tuple[float | None, ...] | None:
    after = record.get("after")
    if not isinstance(after, list):
        return None
    # one look at the types in C: a report per call, hidden inputs of hundreds of grades
    kinds = set(map(type, after))
    if kinds <= _AFTER_AS_WRITTEN:
        return tuple(after)
    if kinds <= _AFTER_NUMBERS:
        return tuple(None if v is None else _finite_or_big(v) for v in after)
    return None


def cell_record(record: dict[str, Any]) -> CellRecord:
    """Check one ``{"cell": ..., "ok": ...}`` report and return it typed."""
    compiled, dropped = record.get("compiled", []), record.get("dropped", 0)
    if type(compiled) is not list or any(type(text) is not str for text in compiled):
        raise ProtocolError("field 'compiled' is not a list of texts")
    if type(dropped) is not int or dropped < 0:
        raise ProtocolError("field 'dropped' is not a count")
    # the bounds again (the line is bounded already); lone surrogates kept as escapes, as in _text
    texts = tuple(text[:MAX_COMPILED_CHARS].encode("utf-8", "backslashreplace").decode("utf-8")
                  for text in compiled[:MAX_COMPILED])
    dropped = min(dropped + max(0, len(compiled) - MAX_COMPILED), MAX_DROPPED)
    if record.get("ok") is True:
        return CellRecord(CellOutcome.OK, compiled=texts, dropped=dropped)
    if record.get("ok") is False:
        return CellRecord(
            CellOutcome.ERROR, error=_text(record, "error", MAX_NAME), message=_text(record, "message", MAX_MESSAGE),
            compiled=texts, dropped=dropped,
        )
    raise ProtocolError(f"malformed cell report {str(record)[:200]}")


@dataclass
class CompiledRoom:
    """What is left of one submission's compiled record: its runs' cell reports together stay within the bounds.

    ``None`` texts: the run's record is not kept at all (a process that holds hidden inputs).
    """

    texts: int | None = MAX_COMPILED
    chars: int = MAX_COMPILED_TOTAL

    def take(self, record: CellRecord) -> CellRecord:
        """``record`` with the compiled texts that fit (the rest counted as dropped); their room used up."""
        if not record.compiled and not record.dropped:
            return record
        if self.texts is None:
            return replace(record, compiled=(), dropped=0)
        kept: list[str] = []
        for text in record.compiled:
            if self.texts > 0 and len(text) <= self.chars:
                kept.append(text)
                self.texts -= 1
                self.chars -= len(text)
        dropped = min(record.dropped + len(record.compiled) - len(kept), MAX_DROPPED)
        return replace(record, compiled=tuple(kept), dropped=dropped)


def call_record(record: dict[str, Any]) -> CallRecord:
    """Check one ``{"call": ..., "status": ...}`` report and return it typed."""
    status = record.get("status")
    if status == "value":
        value = record.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProtocolError(f"call value is not a number: {str(value)[:100]}")
        number = _finite_or_big(value)
        if number is None:
            return CallRecord(CallOutcome.NOT_A_NUMBER, type_name="int", after=_after(record))
        return CallRecord(CallOutcome.VALUE, value=number, after=_after(record))
    if status == "not-a-number":
        # what float() makes of it (a 0-d array, a Decimal), for the diagnosis; never a passed test
        value = record.get("value")
        numeric = _finite_or_big(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        return CallRecord(
            CallOutcome.NOT_A_NUMBER, value=numeric, type_name=_text(record, "type", 100), after=_after(record),
            empty=record.get("empty") is True,
        )
    if status == "raised":
        return CallRecord(
            CallOutcome.RAISED, error=_text(record, "error", MAX_NAME), message=_text(record, "message", MAX_MESSAGE),
            after=_after(record),
        )
    if status == "undefined":
        return CallRecord(CallOutcome.UNDEFINED)
    raise ProtocolError(f"malformed call report {str(record)[:200]}")
