"""Scratch folders of sandbox runs, and the removal of those a killed grader left behind.

Each run gets a fresh folder ``<tmp>/ndcg-scratch-<pid>-<random>/`` that is removed when the run
ends. A grader (or a Dask worker) killed with SIGKILL cannot remove its folders, so every process
sweeps once, before its first run, the ones whose owner is gone: a folder is left behind when the
process named in it no longer exists **and** nobody holds the ``flock`` its owner takes on it for
as long as it lives (the lock covers a reused pid and a process in another pid namespace). A folder
of another user (but, as root, the sandbox users'), a link, or one of a live grader is never touched.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .limits import SandboxUnavailable
from .uids import sandbox_uid_range

PREFIX = "ndcg-scratch-"
#: ``ndcg-scratch-<pid>-<what mkdtemp adds>``
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-[A-Za-z0-9_]+\Z")
_swept: set[str] = set()
_sweep_lock = threading.Lock()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return True


def _ours(uid: int) -> bool:
    """Whether a folder owned by ``uid`` can be ours: our own user's, or (as root) a sandbox user's.

    As root, the weak sandbox hands its run's folder to the run's own user id
    (:mod:`~autograder.sandbox.isolation.rlimits`).
    """
    if uid == os.geteuid():
        return True
    try:
        return os.geteuid() == 0 and uid in sandbox_uid_range()
    except SandboxUnavailable:  # a range set wrong: the grader refuses at its first lease and says why
        return False


def _lock(folder: str | Path, *, wait: bool) -> int | None:
    """An open descriptor holding an exclusive ``flock`` on ``folder``, or None if another holds it."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        raise
    return fd


def sweep_leftovers(base: str | None = None) -> list[str]:
    """Remove the scratch folders under ``base`` (default: the temporary folder) whose grader is gone.

    Returns
    -------
    list of str
        The names of the folders removed.
    """
    base = base or tempfile.gettempdir()
    removed: list[str] = []
    try:
        names = [name for name in os.listdir(base) if _NAME.match(name)]
    except OSError:
        return removed
    for name in names:
        match = _NAME.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or not _ours(info.st_uid):
                continue
            fd = _lock(path, wait=False)
        except OSError:
            continue
        if fd is None:  # its owner lives on (another pid namespace): not a leftover
            continue
        try:
            _remove(path)
        finally:
            os.close(fd)
        removed.append(name)
    return removed


def _remove(path: str) -> None:
    """Remove a scratch folder, also what its run made unreadable or unwritable (as TemporaryDirectory does)."""

    def retry(function: Callable[..., object], name: str, _: object) -> None:
        try:
            os.chmod(os.path.dirname(name), 0o700)
            if not os.path.islink(name):
                os.chmod(name, 0o700)
            function(name)
        except OSError:
            pass  # gone meanwhile, or truly stuck: the next run's sweep tries again

    shutil.rmtree(path, onerror=retry)  # fd-based on Linux: a link inside is removed, never followed


def _sweep_once(base: str) -> None:
    with _sweep_lock:
        if base in _swept:
            return
        _swept.add(base)
    sweep_leftovers(base)


@contextmanager
def scratch_folder() -> Iterator[Path]:
    """A fresh, empty folder for one run (mode 0700), locked while it exists and removed afterwards."""
    base = tempfile.gettempdir()
    _sweep_once(base)
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base)
    fd = _lock(path, wait=True)
    try:
        yield Path(path)
    finally:
        try:
            _remove(path)
        finally:
            if fd is not None:
                os.close(fd)
