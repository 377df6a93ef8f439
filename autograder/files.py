"""Files the grader writes and reads for itself: atomic writes, digests of source trees."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from .errors import KitError


class DiskFull(KitError):
    """The grader's own disk is full: what was saved stays, and the next run resumes from it."""


def _current_umask() -> int:
    """The process's umask, read without changing it (os.umask sets it too, racing other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # at import time, before any worker thread exists
    os.umask(mask)
    return mask


#: Files are created as the user's umask says (mkstemp alone would make them 0600).
FILE_MODE = 0o666 & ~_current_umask()


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    with open_atomic(path) as stream:
        stream.write(text)


@contextlib.contextmanager
def open_atomic(path: Path) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` in one step when the ``with`` block ends without error.

    For files written piece by piece (``results.json`` of 50,000 students): readers see the old
    file or the whole new one, never half of it, and the writer never holds the whole text.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(
                f"the disk is full: cannot write {path}. What was saved is kept; free some space and run the "
                "same command again: it goes on where it stopped"
            ) from None
        raise


def source_digest(folder: Path) -> str:
    """SHA-256 over every ``.py`` file below ``folder`` (names and contents): changes with any edit."""
    digest = hashlib.sha256()
    for source in sorted(folder.rglob("*.py")):
        digest.update(source.relative_to(folder).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def holders(path: Path) -> list[str]:
    """Other processes that have ``path`` open, as ``pid N (command)``, where ``/proc`` lets us see them.

    What ``fuser`` does, for one message: which program holds a busy gradebook. Processes of
    other users are invisible to an unprivileged grader; the list is then shorter, never wrong.
    """
    target = os.path.realpath(path)
    try:
        pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []
    found = []
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(_link(f"/proc/{pid}/fd/{fd}") == target for fd in fds):
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    command = cmdline.read(400).replace(b"\0", b" ").decode("utf-8", "replace").strip()
                found.append(f"pid {pid} ({command[:120] or '?'})")
        except OSError:  # gone meanwhile, or another user's
            continue
    return found


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None
