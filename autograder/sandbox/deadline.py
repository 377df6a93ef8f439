"""Has the item in progress overrun? Judged on the sandbox's own CPU time where a cgroup measures it.

A wall-clock limit charges the machine's load to the student: beside busy neighbours an honest
``import matplotlib.pyplot`` can take several seconds. So where the run has a cgroup, an item may
use ``allowance`` seconds of the *sandbox's* CPU time (all its processes together), with a
generous wall-clock backstop, ``max(3 x allowance, allowance + 30 s)``, for code that sleeps or
blocks instead of computing. Without a cgroup the allowance is wall-clock time, as before. The
submission's whole budget is wall-clock time in both cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Longest pause between two looks at the CPU time.
POLL = 0.5


def backstop(allowance: float) -> float:
    """Wall-clock seconds an item may take when its CPU time is what is judged."""
    return max(3 * allowance, allowance + 30.0)


class ItemClock:
    """The clock of one sandboxed run: ``start`` each item, then ask ``overrun`` and ``wait``.

    Parameters
    ----------
    cpu_seconds : callable or None
        The run's CPU time so far (None when it cannot be read); None for wall-clock judging.
    budget : float
        Wall-clock seconds left for the whole run.
    """

    def __init__(self, cpu_seconds: Callable[[], float | None] | None, budget: float) -> None:
        self._cpu = cpu_seconds
        self._end = time.monotonic() + budget
        self.allowance = 0.0
        self._wall_limit = 0.0
        self._started = time.monotonic()
        self._cpu_start: float | None = None
        self._why = ""

    @property
    def on_cpu_time(self) -> bool:
        """True when items are judged on CPU time."""
        return self._cpu is not None

    def start(self, allowance: float) -> None:
        """A new item begins now and may take ``allowance`` seconds."""
        self.allowance = allowance
        self._started = time.monotonic()
        self._cpu_start = self._cpu() if self._cpu is not None else None
        self._wall_limit = backstop(allowance) if self._cpu_start is not None else allowance

    def _cpu_used(self) -> float | None:
        if self._cpu is None or self._cpu_start is None:
            return None
        now = self._cpu()
        return None if now is None else now - self._cpu_start

    def overrun(self) -> str | None:
        """None while the item may go on; else ``"budget"`` or ``"timeout"`` (see :attr:`detail`)."""
        now = time.monotonic()
        if now >= self._end:
            self._why = f"no answer within {self.allowance:g} s (the submission's time budget ran out)"
            return "budget"
        if now - self._started >= self._wall_limit:
            self._why = f"no answer within {self._wall_limit:g} s"
            return "timeout"
        used = self._cpu_used()
        if used is not None and used >= self.allowance:
            self._why = f"no answer after {self.allowance:g} s of CPU time"
            return "timeout"
        return None

    @property
    def detail(self) -> str:
        """Why the last :meth:`overrun` said so."""
        return self._why

    def wait(self) -> float:
        """Seconds to wait for the sandbox before asking :meth:`overrun` again."""
        now = time.monotonic()
        left = min(self._started + self._wall_limit, self._end) - now
        used = self._cpu_used()
        if used is not None:
            left = min(left, max(0.01, min(self.allowance - used, POLL)))
        return max(0.0, left)
