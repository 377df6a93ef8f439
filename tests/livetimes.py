"""A pytest plugin that logs each test phase's wall and CPU time as it ends (see tests/README.md).

CPU time is this process's and every child's it waited for (nbgrader, the grader, the sandboxes), so
it says what a test costs whatever the machine's load; a run stopped half-way has still logged
what it did. ``LIVETIMES`` names the file (tab-separated: time, phase, wall, CPU, test id).
"""
import os
import resource
import time

import pytest

_OUT = os.environ.get("LIVETIMES", "test-times.tsv")


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _log(item, when, wall, cpu):
    with open(_OUT, "a") as f:
        f.write(f"{time.time():.0f}\t{when}\t{wall:.2f}\t{cpu:.2f}\t{item.nodeid}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    w, c = time.perf_counter(), _cpu()
    yield
    _log(item, "setup", time.perf_counter() - w, _cpu() - c)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    w, c = time.perf_counter(), _cpu()
    yield
    _log(item, "call", time.perf_counter() - w, _cpu() - c)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    w, c = time.perf_counter(), _cpu()
    yield
    _log(item, "teardown", time.perf_counter() - w, _cpu() - c)
