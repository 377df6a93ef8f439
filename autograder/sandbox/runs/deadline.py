"""Has the item in progress overrun? Judged on what the sandbox did, not on how busy the machine was.

A wall-clock limit charges the machine's load to the student: beside busy neighbours an honest
``import matplotlib.pyplot`` can take several seconds, and at a load of 39 on 2 cores three runs
of an honest notebook with many ``%time`` lines took longer than the submission's wall-clock
budget. So where the run has a cgroup:

- an item may use ``allowance`` seconds of the *sandbox's* CPU time (all its processes together);
- code that sleeps or blocks instead of computing is stopped by a backstop,
  ``max(3 x allowance, allowance + 30 s)``, and the submission by its budget, both counted in
  *charged* seconds: wall-clock time minus the time the sandbox was ready to run but waited for
  a CPU (the kernel's ``run_delay`` of its tasks,
  :meth:`~autograder.sandbox.resources.cgroups.RunGroup.task_delays`). Idle,
  charged time is wall time; on a loaded machine the waiting is not the student's;
- waiting is the machine's only while the sandbox does not use its own CPU share: a submission whose
  own busy processes hold its cgroup's whole CPU quota makes its runner wait too, and that waiting is
  its own. So a run is charged at least its CPU time divided by its share (:class:`ItemClock`'s
  ``share``): busy children beside a sleeping call use up the budget as on an idle machine;
- when even so ``OVERLOAD_FACTOR`` times a limit passes on the wall clock, the grader gives up
  on the submission as ``overloaded``: it is left ungraded with a message that says so
  (:class:`MachineOverloaded`), never given a score it did not earn.

Without a cgroup there is no CPU time to judge by: the allowance, the backstop and the budget are wall-clock time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .stop_reason import StopReason

#: Longest pause between two looks at the CPU time and the waiting time.
POLL = 0.5
#: How many times its limit an item or a submission may take on the wall clock while the machine
#: makes it wait, before the grader gives up on it as overloaded (code that sleeps is stopped by its
#: charged limits long before; an honest notebook at a load of 40 on 2 cores takes about 20 times its CPU time).
OVERLOAD_FACTOR = 10.0
#: Seconds between two readings of the waiting counters while an item runs: often enough that a task
#: which ends (and takes its counter with it) is seen, rarely enough that quick calls read none.
READ_EVERY = 0.05
#: Seconds after a reading of the counters within which a new item takes it as its start (see :class:`ItemClock`).
FRESH = 0.01


class MachineOverloaded(RuntimeError):
    """The machine gave a sandbox too little CPU to judge it in time: the submission stays ungraded.

    The message says so, with the sandbox's CPU time and wall time; grading it again on a
    quieter machine gives its result.
    """


#: How an item the budget stopped is described (the start of its detail).
OUT_OF_BUDGET = "no answer before the submission's time budget"
#: The default budget of a submission: this many per-item timeouts, at least ``MIN_BUDGET`` seconds.
BUDGET_TIMEOUTS = 10
MIN_BUDGET = 60.0
#: The default as the tutor reads it (the options' help).
DEFAULT_BUDGET_TEXT = f"max({MIN_BUDGET:g}, {BUDGET_TIMEOUTS} x timeout)"


def default_budget(timeout: float) -> float:
    """Charged seconds one submission may take in all by default: ten timeouts, at least one minute.

    The one place of the default (``grade --budget`` and ``c.SandboxedExecute.budget_seconds`` change it).
    """
    return max(MIN_BUDGET, BUDGET_TIMEOUTS * timeout)


def backstop(allowance: float) -> float:
    """Wall-clock seconds (charged: waiting for a CPU excluded) an item may take when its CPU time is judged."""
    return max(3 * allowance, allowance + 30.0)


@dataclass
class Budget:
    """A submission's time over all its runs: ``seconds`` charged, at most ``OVERLOAD_FACTOR`` x that on the wall."""

    seconds: float
    #: Charged seconds the runs so far took.
    spent: float = 0.0
    #: ``time.monotonic()`` after which the grader gives up on the submission as overloaded.
    give_up: float = field(default=0.0)

    def __post_init__(self) -> None:
        if not self.give_up:
            self.give_up = time.monotonic() + OVERLOAD_FACTOR * self.seconds

    @property
    def left(self) -> float:
        """Charged seconds left."""
        return max(0.0, self.seconds - self.spent)


def _waited(delays: dict[int, float], baseline: dict[int, float]) -> float:
    """The longest a task has waited for a CPU since ``baseline`` (a new task: since it started)."""
    return max((delay - baseline.get(task, 0.0) for task, delay in delays.items()), default=0.0)


class ItemClock:
    """The clock of one sandboxed run: ``start`` each item, then ask ``overrun`` and ``wait``.

    Reading the kernel's counters costs a file read each (the waiting: one per task), and a run
    answers hundreds of items within milliseconds. Given ``cpus``, the most CPU seconds the run
    can use per wall-clock second, the clock reads them only where a limit may have been reached:
    an item that started within ``FRESH`` seconds of the last reading takes that reading as its
    start, and is charged ``cpus`` times that gap less (so an item is never charged its
    predecessor's CPU time; the longest an item gains is ``cpus x FRESH``), and the CPU time is
    read again only once the run could have used the item's allowance since the last reading.

    Parameters
    ----------
    cpu_seconds : callable or None
        The run's CPU time so far (None when it cannot be read); None for wall-clock judging.
    budget : float or Budget
        The submission's budget (a number: a budget of its own for this run).
    task_delays : callable or None
        Seconds each live task of the run has waited for a CPU so far
        (:meth:`~autograder.sandbox.resources.cgroups.RunGroup.task_delays`);
        only with ``cpu_seconds`` (without a CPU limit a submission's own busy children would count as load).
    now : callable
        The wall clock (``time.monotonic``; tests pass their own).
    cpus : float or None
        The most CPU seconds the run can use in a second of wall time (the CPUs it may run on);
        None: read the counters at every item and every look.
    share : float or None
        The CPU seconds per wall second the run's cgroup may have (its quota, at most ``cpus``): the
        run is charged at least its CPU time over this, so that waiting beside its own busy processes
        is not taken for load. None: charged is wall time minus waiting.
    """

    def __init__(
        self, cpu_seconds: Callable[[], float | None] | None, budget: float | Budget,
        task_delays: Callable[[], dict[int, float]] | None = None, now: Callable[[], float] = time.monotonic,
        cpus: float | None = None, share: float | None = None,
    ) -> None:
        self._cpu = cpu_seconds
        self._share = share if share is not None and share > 0 else None
        self._delays = task_delays if cpu_seconds is not None else None
        self._now = now
        self._cpus = cpus
        self.budget = budget if isinstance(budget, Budget) else Budget(budget, give_up=now() + OVERLOAD_FACTOR * budget)
        self._run_started = self._started = now()
        #: The last reading of the run's CPU time: (wall time, CPU seconds); None where it cannot be read.
        self._reading: tuple[float, float] | None = None
        self._run_cpu = self._read_cpu()
        self._delays_seen = self._look()
        self._run_baseline = self._item_baseline = self._delays_seen
        self._run_waited = self._item_waited = 0.0
        self._read_at = self._now()
        #: Charged seconds of the run up to ``_read_at`` (see :meth:`charged`), and the CPU time then.
        self._run_charge = 0.0
        self._charge_cpu = self._run_cpu
        self.allowance = 0.0
        self._wall_limit = 0.0
        #: The item's CPU baseline (a reading's value) and the CPU time it is let off (see the class).
        self._cpu_start: float | None = None
        self._cpu_slack = 0.0
        self._why = ""

    def _look(self) -> dict[int, float]:
        return self._delays() if self._delays is not None else {}

    def _read_cpu(self) -> float | None:
        """The run's CPU time now (None where it cannot be read), kept as the last reading."""
        if self._cpu is None:
            return None
        value = self._cpu()
        self._reading = None if value is None else (self._now(), value)
        return value

    def _fresh(self, now: float, since: float) -> bool:
        return self._cpus is not None and now - since < FRESH

    def start(self, allowance: float) -> None:
        """A new item begins now and may take ``allowance`` seconds."""
        self.allowance = allowance
        now = self._started = self._now()
        self._cpu_slack = 0.0
        if self._reading is not None and self._cpus is not None and self._fresh(now, self._reading[0]):
            self._cpu_start = self._reading[1]
            self._cpu_slack = self._cpus * (now - self._reading[0])
        else:
            self._cpu_start = self._read_cpu()
        self._wall_limit = backstop(allowance) if self._cpu_start is not None else allowance
        if not self._fresh(now, self._read_at):
            self._read_waiting()
        # waiting since that reading counts as the item's: it only ever lowers what is charged
        self._item_baseline = self._delays_seen
        self._item_waited = 0.0

    def _cpu_used(self, since: float | None) -> float | None:
        if self._cpu is None or since is None:
            return None
        now = self._read_cpu()
        return None if now is None else now - since

    def _item_cpu(self) -> float | None:
        """CPU seconds charged to the item so far, or (without reading) a bound that it has not yet passed."""
        if self._cpu_start is None:
            return None
        if self._cpus is not None and self._reading is not None:
            read_at, value = self._reading
            bound = value - self._cpu_start + self._cpus * (self._now() - read_at) - self._cpu_slack
            if bound < self.allowance:
                return bound
        used = self._cpu_used(self._cpu_start)
        return None if used is None else used - self._cpu_slack

    def _read_waiting(self) -> None:
        """Bring the waiting for a CPU up to date from the kernel's counters (where they can be read)."""
        if self._delays is None:
            return
        before, since = self._delays_seen, self._read_at
        delays = self._delays_seen = self._look()
        self._read_at = self._now()
        # the most any one task waited: the runner's own thread is what the items wait for
        self._item_waited = max(self._item_waited, _waited(delays, self._item_baseline))
        self._run_waited = max(self._run_waited, _waited(delays, self._run_baseline))
        self._charge(self._read_at - since, _waited(delays, before))

    def _charge(self, interval: float, waited: float) -> None:
        """Add the interval since the last reading to the run's charge (see :meth:`charged`)."""
        charged = interval - waited
        if self._share is not None:
            # a reading just made (an item's start) serves: what it missed counts in the next interval
            fresh = self._reading is not None and self._read_at - self._reading[0] < FRESH
            cpu = self._reading[1] if fresh and self._reading is not None else self._read_cpu()
            if cpu is not None and self._charge_cpu is not None:
                charged = max(charged, (cpu - self._charge_cpu) / self._share)
            self._charge_cpu = cpu
        self._run_charge += min(interval, max(0.0, charged))

    def charged(self) -> float:
        """Seconds of this run charged to the submission so far: wall time minus waiting for a CPU.

        Summed between two readings of the counters: each interval is charged its wall time less
        the most a task waited in it, but at least the run's CPU time in it over its ``share`` (the
        waiting of a run whose own processes held its whole CPU quota is its own doing, not the
        machine's), and at most its wall time.
        """
        self._read_waiting()
        return self._run_charged(self._now())

    def _run_charged(self, now: float) -> float:
        """:meth:`charged` from the last readings (none made here): the time since then counted in full."""
        return self._run_charge + max(0.0, now - self._read_at)

    def overrun(self) -> StopReason | None:
        """None while the item may go on; else ``TIMEOUT``, ``BUDGET`` or ``OVERLOADED`` (see :attr:`detail`)."""
        now = self._now()
        # The waiting counters (a file per task) are read every READ_EVERY seconds or where a wall-clock
        # limit may have been reached: most items answer within milliseconds, thousands of them a run.
        if self._wall_limit_reached(now) or now - self._read_at >= READ_EVERY:
            self._read_waiting()
        used = self._item_cpu()
        if used is not None and used >= self.allowance:
            self._why = f"no answer after {self.allowance:g} s of CPU time"
            return StopReason.TIMEOUT
        if now - self._started - self._item_waited >= self._wall_limit:
            self._why = f"no answer within {self._wall_limit:g} s"
            return StopReason.TIMEOUT
        if self.budget.spent + self._run_charged(now) >= self.budget.seconds:
            self._why = f"{OUT_OF_BUDGET} of {self.budget.seconds:g} s ran out"
            return StopReason.BUDGET
        if now - self._started >= OVERLOAD_FACTOR * self._wall_limit or now >= self.budget.give_up:
            self._read_waiting()
            cpu = self._cpu_used(self._run_cpu)
            self._why = (
                f"not graded: the machine was overloaded (the sandbox waited {self._run_waited:.0f} s for a CPU "
                f"and got {cpu if cpu is not None else 0:.1f} s of CPU time in {now - self._run_started:.0f} s); "
                "grade it again when the machine is less busy"
            )
            return StopReason.OVERLOADED
        return None

    def _wall_limit_reached(self, now: float) -> bool:
        """Whether a limit on the wall clock is reached with the waiting known so far (it only grows)."""
        item = now - self._started - self._item_waited >= self._wall_limit
        run = self.budget.spent + self._run_charged(now) >= self.budget.seconds
        return item or run

    @property
    def detail(self) -> str:
        """Why the last :meth:`overrun` said so."""
        return self._why

    def wait(self) -> float:
        """Seconds to wait for the sandbox before asking :meth:`overrun` again."""
        now = self._now()
        left = min(
            self._started + self._item_waited + self._wall_limit,
            now + self.budget.seconds - self.budget.spent - self._run_charged(now),
            self._started + OVERLOAD_FACTOR * self._wall_limit,
            self.budget.give_up,
        ) - now
        if self._delays is not None:
            left = min(left, POLL)  # waiting moves the limits: look again soon
        used = self._item_cpu()
        if used is not None:
            # a bound is not yet the allowance: it cannot be reached sooner than at the run's full speed
            left = min(left, max(0.01, min((self.allowance - used) / (self._cpus or 1.0), POLL)))
        return max(0.0, left)
