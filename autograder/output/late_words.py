"""Lateness in words, the same in the terminal table, the class report and the student's page."""

from __future__ import annotations

from datetime import datetime

from ..grading import Lateness


def duration(seconds: float) -> str:
    """A short duration: ``29 s``, ``4 min 10 s``, ``2 h 5 min``, ``3 d 4 h``.

    Examples
    --------
    >>> duration(29.4), duration(250), duration(2 * 3600 + 300), duration(3 * 86400 + 4 * 3600 + 59)
    ('29 s', '4 min 10 s', '2 h 5 min', '3 d 4 h')
    """
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "min"), (secs, "s")]
    first = next((i for i, (n, _) in enumerate(parts) if n), len(parts) - 1)
    return " ".join(f"{n} {unit}" for n, unit in parts[first : first + 2] if n or (unit == "s" and first == 3))


def utc(moment: datetime) -> str:
    """A gradebook time (UTC, naive) as a tutor reads it: ``2026-12-01 17:00:00 UTC``."""
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def due_text(late: Lateness) -> str:
    """The due date that applied: the assignment's, or the student's extension.

    Examples
    --------
    >>> from datetime import datetime
    >>> due_text(Lateness(datetime(2026, 12, 1, 17), datetime(2026, 12, 8, 12), None, None, 0.0))
    'due 2026-12-08 12:00:00 UTC (extension; the assignment: 2026-12-01 17:00:00 UTC)'
    """
    if late.extended_due is None:
        return f"due {utc(late.due)}"
    return f"due {utc(late.extended_due)} (extension; the assignment: {utc(late.due)})"


def lateness_text(late: Lateness | None) -> str:
    """One clause: ``late 29 s, penalty 10``, ``on time``, ``lateness unknown ...``; empty without a due date.

    Examples
    --------
    >>> from datetime import datetime
    >>> lateness_text(Lateness(datetime(2026, 12, 1, 17), None, datetime(2026, 12, 1, 17, 0, 29), 29.0, 10.0))
    'late 29 s, penalty 10'
    >>> lateness_text(Lateness(datetime(2026, 12, 1, 17), None, None, None, 0.0))
    'lateness unknown (no readable submission time)'
    """
    if late is None:
        return ""
    if late.seconds_late is None:
        return "lateness unknown (no readable submission time)"
    if late.seconds_late <= 0:
        return "on time" + (" (extension)" if late.extended_due is not None else "")
    penalty = f", penalty {late.penalty:g}" if late.penalty else ", no penalty"
    return f"late {duration(late.seconds_late)}" + penalty


def lateness_note(late: Lateness | None) -> str:
    """:func:`lateness_text` where there is something to say (late, unknown, an extension); else empty."""
    text = lateness_text(late)
    return "" if text == "on time" else text
