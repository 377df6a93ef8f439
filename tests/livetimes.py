"""A pytest plugin that logs each test phase's wall and CPU time as it ends (see tests/README.md).

Two CPU clocks, because neither alone tells the whole cost:

- ``getrusage(SELF + CHILDREN)``: this process's and every child's it waited for (nbgrader, the
  grader); a sandbox killed with its cgroup is reaped by no one pytest waits for, so its time is
  missing here;
- the CPU time of the cgroup pytest was started in (``cpuacct.usage`` on cgroup v1, ``cpu.stat``'s
  ``usage_usec`` on v2), which the kernel charges for every process below it, sandboxes in their
  own child cgroups included, and keeps when those are removed. It is read only when pytest runs in
  a cgroup of its own (``scripts/profile_tests.py`` starts it so): the root cgroup's would count
  every engineer's work on the machine.

A run stopped half-way has still logged what it did. ``LIVETIMES`` names the file (tab-separated:
time, phase, wall, rusage CPU, cgroup CPU or ``-``, test id).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_OUT = os.environ.get("LIVETIMES", "test-times.tsv")


def _rusage_cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _cgroup_mounts() -> dict[str, Path]:
    """Mount point per v1 controller (``cpuacct``) and of the v2 hierarchy (``""``)."""
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        fstype = fields[dash + 1]
        if fstype == "cgroup2":
            mounts.setdefault("", Path(fields[4]))
        elif fstype == "cgroup" and "cpuacct" in fields[dash + 3].split(","):
            mounts.setdefault("cpuacct", Path(fields[4]))
    return mounts


def cgroup_clock() -> Callable[[], float] | None:
    """Seconds of CPU time used so far in this process's cgroup and below, or None.

    None in the root cgroup (every process on the machine is charged there) or where nothing can be
    read. Resolved once: the grader moves pytest into a leaf cgroup of its own on v2, below this one.
    """
    mounts = _cgroup_mounts()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if path == "/":
            continue
        if "cpuacct" in controllers.split(",") and "cpuacct" in mounts:
            usage = mounts["cpuacct"] / path.lstrip("/") / "cpuacct.usage"
            if usage.exists():
                return lambda: int(usage.read_text()) / 1e9
        if controllers == "" and "" in mounts:
            stat = mounts[""] / path.lstrip("/") / "cpu.stat"
            if stat.exists():
                return lambda: _usage_usec(stat)
    return None


def _usage_usec(stat: Path) -> float:
    """``usage_usec`` of a v2 ``cpu.stat``, in seconds."""
    for entry in stat.read_text().splitlines():
        key, _, value = entry.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    return float("nan")


_CGROUP = cgroup_clock()


def _log(item: pytest.Item, when: str, wall: float, cpu: float, group: float | None) -> None:
    group_text = "-" if group is None else f"{group:.2f}"
    with open(_OUT, "a") as f:
        f.write(f"{time.time():.0f}\t{when}\t{wall:.2f}\t{cpu:.2f}\t{group_text}\t{item.nodeid}\n")


def _timed(item: pytest.Item, when: str) -> Iterator[None]:
    group_start = _CGROUP() if _CGROUP else None
    wall, cpu = time.perf_counter(), _rusage_cpu()
    yield
    group = _CGROUP() - group_start if _CGROUP and group_start is not None else None
    _log(item, when, time.perf_counter() - wall, _rusage_cpu() - cpu, group)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "teardown")
