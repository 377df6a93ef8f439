"""What every sandbox shares: resource limits, the launch command's shape, the sandbox interface.

A sandbox is anything with ``name``, ``isolated`` and ``launch(scratch, slot) -> Launch``: the
grader starts the returned command and talks to the runner through its standard input and
output. :mod:`.bubblewrap` isolates; :mod:`.rlimits` only limits (a loud fallback).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

#: The script the sandboxed Python runs (standard library only; see its docstring).
RUNNER = Path(__file__).with_name("runner.py")


class SandboxUnavailable(RuntimeError):
    """The requested isolation cannot be had on this machine."""

    #: Exit code of the command line: the tool cannot do its job as asked.
    exit_code = 2


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed process."""

    memory_bytes: int = 2 * 1024**3
    cpu_seconds: int = 600
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256


@dataclass(frozen=True)
class Launch:
    """What to run for one sandboxed process."""

    argv: list[str]
    cwd: str
    env: dict[str, str]


class Sandbox(Protocol):
    """Where student code runs."""

    #: Shown to tutors and written into ``results.json``.
    name: str
    #: False for the fallback that only limits resources.
    isolated: bool

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The command that runs the runner with ``scratch`` as its (empty, writable) home."""
        ...


def sandbox_environment(home: str, python_bin: str) -> dict[str, str]:
    """The whole environment of the sandboxed Python (nothing is inherited from the grader)."""
    return {
        "HOME": home,
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def prlimit_prefix(limits: Limits, processes: int) -> list[str]:
    """``prlimit`` with the limits, to put before a command (empty if prlimit is missing)."""
    tool = shutil.which("prlimit")
    if tool is None:
        return []
    return [
        tool,
        f"--as={limits.memory_bytes}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        f"--nproc={processes}",
        "--core=0",
        "--",
    ]


def own_process_count() -> int:
    """How many processes this user id runs (RLIMIT_NPROC counts them all, not only the sandbox's)."""
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count
