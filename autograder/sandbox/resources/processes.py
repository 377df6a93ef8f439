"""A run's process as the grader drives it: its three pipes, how it ended, and how to kill it.

Two kinds: a command the grader starts itself (:class:`StartedProcess`, ``subprocess``), and a
run a zygote forked (:class:`~autograder.sandbox.isolation.zygotes.ForkedRun`). The driver
(:mod:`~autograder.sandbox.runs.execution`) sees only
:class:`RunProcess`.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import IO, Protocol


class RunProcess(Protocol):
    """What the driver needs of a run's process."""

    #: The runner's standard input (the orders), output (the reports) and error output.
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    @property
    def returncode(self) -> int | None:
        """How it ended (negative: killed by that signal), None while running or if unknown."""
        ...

    def wait(self) -> int | None:
        """Wait until it has ended; its :attr:`returncode`."""
        ...

    def kill(self) -> None:
        """Kill it and everything it started that is still in its process group; wait for it."""
        ...


class StartedProcess:
    """A command the grader started itself, in a session of its own."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self.stdin, self.stdout, self.stderr = process.stdin, process.stdout, process.stderr

    @property
    def returncode(self) -> int | None:
        """See :class:`RunProcess`."""
        return self._process.returncode

    def wait(self) -> int | None:
        """See :class:`RunProcess`."""
        return self._process.wait()

    def kill(self) -> None:
        """See :class:`RunProcess`."""
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self._process.kill()
        except ProcessLookupError:
            pass
        self._process.wait()
