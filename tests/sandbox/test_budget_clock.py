"""A submission's own busy processes are charged to it; the machine's load is not (fast, no sandbox).

A notebook whose first cell started 60 busy children, each call sleeping 4 s, was still being
graded after 15 minutes: its runner waited for a CPU beside its own children, and waiting was
taken for the machine's load, so the charged seconds of its budget hardly moved. A run is now
charged at least its CPU time over its cgroup's CPU share (:class:`~autograder.sandbox.runs.deadline.ItemClock`'s
``share``): waiting while its own processes hold its whole share is the submission's. The machine
here is the test's own: a wall clock, the run's CPU time and its tasks' waiting, moved by the test.
"""

from __future__ import annotations

import pytest

from autograder.sandbox.runs.deadline import OVERLOAD_FACTOR, Budget, ItemClock, default_budget

TIMEOUT = 2.0
SHARE = 1.0
BUDGET = 20.0


class _Machine:
    """A wall clock, the run's CPU time and the longest waiting of its tasks, moved by the test."""

    def __init__(self) -> None:
        self.wall = self.cpu = self.waited = 0.0

    def clock(self, budget: Budget, share: float | None = SHARE) -> ItemClock:
        return ItemClock(lambda: self.cpu, budget, lambda: {1: self.waited}, now=lambda: self.wall,
                         cpus=2.0, share=share)

    def budget(self) -> Budget:
        return Budget(BUDGET, give_up=self.wall + OVERLOAD_FACTOR * BUDGET)

    def seconds(self, count: int, cpu: float, waited: float) -> None:
        """``count`` seconds, each with ``cpu`` seconds of the run's CPU time and ``waited`` of waiting."""
        for _ in range(count):
            self.wall += 1.0
            self.cpu += cpu
            self.waited += waited


def _calls_until_stopped(machine: _Machine, clock: ItemClock, cpu: float, waited: float) -> tuple[str, float]:
    """Sleeping calls of 1.5 s (under the timeout) one after the other, until the clock stops the run."""
    while machine.wall < 2 * OVERLOAD_FACTOR * BUDGET:
        clock.start(TIMEOUT)
        for _ in range(3):
            machine.wall += 0.5
            machine.cpu += 0.5 * cpu
            machine.waited += 0.5 * waited
            reason = clock.overrun()
            if reason is not None:
                return reason, machine.wall
    raise AssertionError("the clock never stopped the run")


def test_busy_children_beside_sleeping_calls_use_up_the_budget_as_on_an_idle_machine():
    # the children hold the run's whole share, and its runner (like each child) waits nearly all the time
    machine = _Machine()
    budget = machine.budget()
    reason, wall = _calls_until_stopped(machine, machine.clock(budget), cpu=SHARE, waited=0.98)
    assert reason == "budget"
    assert wall == pytest.approx(BUDGET, abs=0.5)


def test_without_the_share_the_same_run_was_taken_for_an_overloaded_machine():
    # what the grader did before: the waiting beside its own children was not charged
    machine = _Machine()
    budget = machine.budget()
    reason, wall = _calls_until_stopped(machine, machine.clock(budget, share=None), cpu=SHARE, waited=0.98)
    assert reason == "overloaded" and wall >= OVERLOAD_FACTOR * BUDGET


def test_waiting_while_the_machine_keeps_the_run_below_its_share_is_not_charged():
    # an honest run on a loaded machine: a tenth of its share, waiting the rest of the time
    machine = _Machine()
    budget = machine.budget()
    clock = machine.clock(budget)
    clock.start(4 * TIMEOUT)  # one long item: 6 s of CPU time in all
    machine.seconds(int(3 * BUDGET), cpu=0.1 * SHARE, waited=0.9)
    assert clock.overrun() is None, clock.detail
    assert clock.charged() == pytest.approx(0.1 * 3 * BUDGET)


def test_a_run_is_never_charged_more_than_the_wall_clock():
    # a quota is enforced per period: a burst may use more than the share for a moment
    machine = _Machine()
    clock = machine.clock(machine.budget())
    clock.start(TIMEOUT)
    machine.seconds(1, cpu=1.5 * SHARE, waited=0.0)
    assert clock.charged() == pytest.approx(1.0)


def test_the_default_budget_is_ten_timeouts_and_at_least_a_minute():
    assert default_budget(2.0) == 60.0
    assert default_budget(10.0) == 10 * 10.0


def test_judging_by_the_share_reads_the_counters_no_more_often():
    # a run answers thousands of quick calls: one reading of its CPU time serves the item and the charge
    reads = {}
    for share in (None, SHARE):
        machine = _Machine()
        count = [0]

        def read_cpu(machine: _Machine = machine, count: list[int] = count) -> float:
            count[0] += 1
            return machine.cpu

        clock = ItemClock(read_cpu, machine.budget(), lambda: {1: 0.0}, now=lambda m=machine: m.wall, cpus=2.0,
                          share=share)
        for _ in range(1000):
            clock.start(TIMEOUT)
            machine.wall += 0.0001
            machine.cpu += 0.0001
            assert clock.overrun() is None
        reads[share] = count[0]
    assert reads[SHARE] <= reads[None] + 2, reads
