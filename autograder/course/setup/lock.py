"""One grader at a time per course: a lock on ``<course>/.grading.lock``.

Two ``python -m autograder grade`` runs on one course would write the same feedback pages,
``autograded/`` notebooks and gradebook rows at once, and both "succeed". Each run (and each
``nbgrader autograde`` of the course, the formgrader's button included: :mod:`..autograde.sandbox_guard`)
holds an exclusive ``flock`` on the course's lock file while it grades; a second one refuses in
one line naming the holder (its pid, what it is and when it started), or with ``--wait`` waits
for it. The kernel drops the lock when the holder's file is closed, so also when the holder dies,
even by SIGKILL: a stale lock cannot outlive its process. The file itself stays (deleting a lock
file races a process that just opened it); it is empty while nobody grades.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from ...errors import KitError
from ...output.safe_text import printable

LOCK_NAME = ".grading.lock"


class CourseBusy(KitError):
    """Another grader holds the course's lock (the message names it)."""

    exit_code = 3


def _holder(fd: int) -> str:
    """What the holder wrote into the lock file, or a plain description while it has not yet."""
    text = os.pread(fd, 300, 0).decode("utf-8", "replace").strip()
    return printable(text) if text else "another grader"


def _busy(holder: str, path: Path) -> CourseBusy:
    return CourseBusy(
        f"another grader is working on this course: {holder}. Let it finish, then run this again "
        f"(`grade --wait` starts as soon as it has); the lock is {path}"
    )


def refuse_if_held(folder: Path) -> None:
    """Refuse at once if another grader holds ``folder``'s lock; take nothing.

    The command line asks this before it loads the course (its configuration imports nbgrader: seconds),
    so a second tutor is told at once; the run itself still takes the lock (:func:`grading_lock`).

    Raises
    ------
    CourseBusy
        When another process holds the lock.
    """
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return  # no lock file (never graded) or none to read: the run's own lock decides
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(_holder(fd), path) from None
    finally:
        os.close(fd)


@contextmanager
def grading_lock(folder: Path, *, who: str, wait: bool = False) -> Iterator[None]:
    """Hold the grading lock of ``folder`` (the course directory) while the block runs.

    Parameters
    ----------
    folder : Path
        The course directory (created if missing), where ``.grading.lock`` lives.
    who : str
        What this grader is, for the message another one shows (``python -m autograder grade``).
    wait : bool
        Wait for the holder to finish instead of refusing.

    Raises
    ------
    CourseBusy
        When another process holds the lock and ``wait`` is false.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                raise _busy(holder, path) from None
            print(f"waiting for the other grader to finish: {holder}", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        started = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, {who}, started {started}\n".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # nobody grades now (a reader that races this sees "another grader")
    finally:
        os.close(fd)  # releases the lock
