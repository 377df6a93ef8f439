"""The item clock reads the kernel's counters only where a limit may have been reached, and is never the less fair for it.

A run answers hundreds of calls within milliseconds; reading the run's CPU time and every task's
waiting before each of them cost the grader more CPU time than the rest of its work per student.
Given the most CPU the run can use per second (``cpus``), the clock takes a reading less than
``FRESH`` seconds old as an item's start and lets the item off what the run could have used since
then: an item is never charged its predecessor's CPU time, and gains at most ``cpus x FRESH``.
The machine here is the test's own: a wall clock and counters it moves, and counts of the reads.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.sandbox.runs.deadline import FRESH, ItemClock
from autograder.sandbox.runs.stop_reason import StopReason

CPUS = 2.0
ALLOWANCE = 2.0


class _Machine:
    """The wall clock and the run's CPU time, moved by the test; every reading of the counters counted."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.cpu_reads = self.delay_reads = 0

    def read_cpu(self) -> float:
        self.cpu_reads += 1
        return self.cpu

    def read_delays(self) -> dict[int, float]:
        self.delay_reads += 1
        return {1: 0.0}

    def clock(self, cpus: float | None) -> ItemClock:
        return ItemClock(self.read_cpu, 1000.0, self.read_delays, now=lambda: self.wall, cpus=cpus)


def test_quick_items_read_the_counters_about_once_per_fresh_interval():
    machine = _Machine()
    clock = machine.clock(CPUS)
    items = 1000
    for _ in range(items):
        clock.start(ALLOWANCE)
        machine.wall += 0.0001  # an answer within a tenth of a millisecond, on one CPU
        machine.cpu += 0.0001
        assert clock.overrun() is None
        assert clock.wait() > 0
    elapsed_intervals = items * 0.0001 / FRESH
    assert machine.cpu_reads <= elapsed_intervals + 2, machine.cpu_reads
    assert machine.delay_reads <= elapsed_intervals + 2, machine.delay_reads
    # without the rate, every item and every look reads the CPU time
    eager = _Machine()
    clock = eager.clock(None)
    for _ in range(10):
        clock.start(ALLOWANCE)
        assert clock.overrun() is None
    assert eager.cpu_reads >= 20


def test_an_item_is_not_charged_the_cpu_time_of_the_item_before_it():
    machine = _Machine()
    clock = machine.clock(CPUS)
    clock.start(ALLOWANCE)
    machine.wall += FRESH / 2  # the first item uses both CPUs until the next one starts
    machine.cpu += CPUS * FRESH / 2
    assert clock.overrun() is None
    clock.start(ALLOWANCE)
    machine.wall += 5.0
    machine.cpu += ALLOWANCE - 0.001  # the second item's own CPU time: just under its allowance
    assert clock.overrun() is None, clock.detail
    machine.wall += FRESH  # beyond the allowance by more than the item can have been let off
    machine.cpu += CPUS * FRESH
    assert clock.overrun() is StopReason.TIMEOUT and "CPU time" in clock.detail


_step = st.tuples(
    st.floats(0.0, 0.3),  # wall seconds
    st.floats(0.0, 1.0),  # the share of the run's CPUs used meanwhile
)


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(_step, max_size=20), steps=st.lists(_step, min_size=1, max_size=60),
    starts=st.lists(st.booleans(), max_size=20),
)
def test_the_lazy_clock_never_times_out_earlier_and_at_most_cpus_times_fresh_later(before, steps, starts):
    """Against the clock that reads at every item and every look (the truth), for any run the CPUs allow."""
    machine = _Machine()
    lazy = machine.clock(CPUS)
    truth = ItemClock(lambda: machine.cpu, 1000.0, None, now=lambda: machine.wall)
    # earlier items, quick or slow, started in both clocks at the same moments
    for (wall, share), start in zip(before, starts + [False] * len(before), strict=False):
        machine.wall += wall
        machine.cpu += CPUS * share * wall
        if start:
            lazy.start(ALLOWANCE)
            truth.start(ALLOWANCE)
    lazy.start(ALLOWANCE)
    truth.start(ALLOWANCE)
    item_started_cpu = machine.cpu
    for wall, share in steps:
        machine.wall += wall
        machine.cpu += CPUS * share * wall
        lazy_says = lazy.overrun()
        truth_says = truth.overrun()
        used = machine.cpu - item_started_cpu
        if lazy_says is StopReason.TIMEOUT:
            assert truth_says is StopReason.TIMEOUT, f"early: the item used {used} s"
        if used >= ALLOWANCE + CPUS * FRESH:
            assert lazy_says is StopReason.TIMEOUT, f"late: the item used {used} s"
        assert lazy.wait() >= 0
