"""The submission time in ``timestamp.txt``: bytes a student controls, read without trusting them.

``nbgrader submit`` writes the file into the exchange, where the student can write anything
instead, and ``nbgrader collect`` copies it into ``submitted/``. nbgrader's reader
(``nbgrader.utils.parse_utc``) hands the time zone word to dateutil's ``gettz``, which takes it
for a file path: a 300-character zone raises ``OSError`` (name too long), ``:../x`` a
``FutureWarning`` that dateutil turns into an error, an absolute path opens that file. So only
a short line of printable ASCII whose zone is a plain zone name or a number reaches
``parse_utc``; every failure is a :class:`TimestampProblem`, which callers report as that
student's warning ("timestamp unknown"), never a stop for the others. For the timestamps
nbgrader writes the value is ``parse_utc``'s, so the gradebook agrees with the formgrader.
"""

from __future__ import annotations

import re
import warnings
from datetime import datetime

#: Longer than any timestamp nbgrader writes (``2024-05-01 09:30:00.123456 UTC`` is 30).
MAX_LENGTH = 100
#: A zone word ``gettz`` may look up: a name (``UTC``, ``Europe/Berlin``, ``Etc/GMT+1``) or an
#: offset in seconds as nbgrader allows; never a path (no ``..``, no leading ``/`` or ``:``).
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,31}(?:/[A-Za-z0-9_+\-]{1,32}){0,2}|[+\-]?[0-9]{1,6}")


class TimestampProblem(ValueError):
    """``timestamp.txt`` holds no time this course can read; the message says why, in one clause."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse_timestamp(data: bytes) -> datetime:
    """The submission time (UTC, naive, as nbgrader stores it) that ``timestamp.txt``'s ``data`` holds.

    Parameters
    ----------
    data : bytes
        The file's content, untrusted.

    Returns
    -------
    datetime
        The time as ``nbgrader.utils.parse_utc`` reads it.

    Raises
    ------
    TimestampProblem
        For anything else: not ASCII, empty, too long, an unusable zone, not a time.

    Examples
    --------
    >>> parse_timestamp(b"2024-05-01 09:30:00.123456 UTC\\n")
    datetime.datetime(2024, 5, 1, 9, 30, 0, 123456)
    >>> parse_timestamp(b"2024-05-01 09:30:00 :../x")
    Traceback (most recent call last):
    ...
    autograder.output.timestamps.TimestampProblem: its time zone is not a zone name
    """
    if len(data) > 4 * MAX_LENGTH:
        raise TimestampProblem(f"it is {len(data)} bytes long, not one short line")
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise TimestampProblem("it is not plain ASCII text") from None
    if not text:
        raise TimestampProblem("it is empty")
    if len(text) > MAX_LENGTH or not text.isprintable():
        raise TimestampProblem("it is not one short line of text")
    parts = text.split(" ")
    if len(parts) == 3 and not _ZONE.fullmatch(parts[2]):  # parse_utc passes exactly this word to gettz
        raise TimestampProblem("its time zone is not a zone name")
    from ..nbgrader_adapter import parse_utc

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # dateutil's "unknown zone" and "deprecated key" warnings
            parsed = parse_utc(text)
    except Exception as error:  # dateutil raises ValueError, OverflowError, OSError, warnings, ...
        raise TimestampProblem(f"it is not a time nbgrader can read ({type(error).__name__})") from None
    if not isinstance(parsed, datetime):
        raise TimestampProblem("it is not a time nbgrader can read")
    return parsed
