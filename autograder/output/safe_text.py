"""Text that is safe to show: whatever a student chose (folder names, exception messages) cannot
draw on the tutor's terminal, run in a spreadsheet, or break the writing of a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..grading import Status, StudentResult

#: C0 and C1 control characters and DEL, the bidirectional overrides that reorder a line, and lone
#: surrogates (a file name's bytes that are not UTF-8, or a broken exception message).
_UNSAFE = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection rule).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def printable(text: str) -> str:
    """``text`` with bytes that are not UTF-8 and control characters written as escapes (``\\xff``, ``\\x1b``).

    Examples
    --------
    >>> printable("bob\\x1b[2J\\r")
    'bob\\\\x1b[2J\\\\r'
    >>> printable("caf\\udce9")  # os.fsdecode(b"caf\\xe9"), a Latin-1 name from an old archive
    'caf\\\\xe9'
    """
    # a backslash is escaped too, so that a name that is literally "caf\\xe9" is never shown like the bytes
    return text if text.isprintable() and "\\" not in text else _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    named = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    return named or char.encode("unicode_escape", "backslashreplace").decode("ascii")


def csv_cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: :func:`printable`, and a formula start neutralised with ``'``.

    Examples
    --------
    >>> csv_cell('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    """
    text = printable(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def first_few(names: Sequence[str], shown: int, show: Callable[[str], str] = printable) -> str:
    """The first ``shown`` of ``names``, each as ``show`` writes it, and how many more: a log or note line.

    Examples
    --------
    >>> first_few(["a", "b\\x1b", "c"], 2)
    'a, b\\\\x1b and 1 more'
    """
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(show(name) for name in names[:shown]) + more


def shown_student(student: StudentResult) -> str:
    """The student's id as text: :func:`printable`, but a refused folder's as it is (the rule escaped it already).

    A refused folder's id is its name in Python's ``ascii()`` form (:mod:`autograder.grading.reading.student_ids`):
    printable ASCII whose backslashes are escapes; :func:`printable` would double them.
    """
    return student.student_id if student.status is Status.REFUSED else printable(student.student_id)
