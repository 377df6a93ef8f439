"""Expensive test set-ups (an nbgrader course generated, a course autograded) built once per test run.

Under pytest-xdist each worker is a process of its own, so a session fixture is built once per
worker; the folders here are built by the first worker that asks, under a file lock in the run's
shared temporary folder, and the other workers wait for that build and use it. Callers treat a
built folder as read-only and copy it before changing anything.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

#: The folder the run's workers share (pytest's base temporary folder of the run; set by conftest.py).
shared: list[Path] = []
#: What this process built or found, by name.
_built: dict[str, Path] = {}


def share(folder: Path) -> None:
    """Build into ``folder`` (pytest removes it with the run's other temporary folders)."""
    shared[:] = [folder]


def built_once(name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name`` after ``build(folder)``, run once per test run whatever the number of workers.

    A build that failed left no mark: the next caller builds again (and fails in its own test).
    """
    if name in _built:
        return _built[name]
    if not shared:
        raise RuntimeError("tests/conftest.py did not set the shared folder (built_once.share)")
    folder, done = shared[0] / f"built-{name}", shared[0] / f"built-{name}.done"
    with open(shared[0] / f"built-{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait here while the first builds
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed half way
            folder.mkdir()
            build(folder)
            done.touch()
    _built[name] = folder
    return folder
