"""Waiting for a run's processes to be gone, told by the kernel rather than found by polling.

At the end of every run (three per submission) its cgroup is emptied and removed. Sleeping in
10 ms steps until ``cgroup.procs`` reads empty cost about 10 ms per run, most of it waiting for
processes that were already dying (bubblewrap's inner processes die shortly after the outer one,
by ``PR_SET_PDEATHSIG``). The kernel can say when that has happened:

- a **pidfd** (``pidfd_open``, Linux 5.3) becomes readable when its process has exited; once it
  has, the process has left its cgroups, so ``rmdir`` succeeds (cgroup v1 and v2);
- cgroup v2's ``cgroup.events`` says ``populated 0`` when no process is left in the group, and
  the kernel wakes ``poll`` on it (``POLLPRI``) whenever that line changes.

Where neither is available (an old kernel) the functions return False and the caller polls as
before.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Iterable
from pathlib import Path


def open_pidfds(pids: Iterable[int]) -> dict[int, int]:
    """Pidfds of those of ``pids`` that still exist, by pid (close them after); empty if the kernel has none."""
    handles: dict[int, int] = {}
    for pid in pids:
        try:
            handles[pid] = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # gone already
        except (OSError, AttributeError):
            break  # no pidfds here (before Linux 5.3): the caller polls
    return handles


def kill(pids: Iterable[int], handles: dict[int, int]) -> None:
    """SIGKILL ``pids``: through their pidfd where there is one (it cannot name a recycled pid), else by pid."""
    for pid in pids:
        try:
            if pid in handles:
                signal.pidfd_send_signal(handles[pid], signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def wait_exits(handles: list[int], until: float) -> bool:
    """Wait until every process behind ``handles`` has exited or ``until`` (monotonic) passes.

    Returns whether all have exited. Closes ``handles``.
    """
    try:
        poller = select.poll()
        for handle in handles:
            poller.register(handle, select.POLLIN)
        left = len(handles)
        while left:
            wait = until - time.monotonic()
            if wait <= 0:
                return False
            for handle, _ in poller.poll(wait * 1000):
                poller.unregister(handle)
                left -= 1
        return True
    finally:
        for handle in handles:
            os.close(handle)


def wait_unpopulated(events: Path, until: float) -> bool:
    """Wait until cgroup v2's ``cgroup.events`` says ``populated 0``, or ``until`` (monotonic) passes.

    Returns whether the group is empty; False also when the file cannot be read.
    """
    try:
        handle = os.open(events, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        poller = select.poll()
        poller.register(handle, select.POLLPRI | select.POLLERR)
        while True:
            # read first, then sleep: a change between the read and the poll still wakes the poll
            os.lseek(handle, 0, os.SEEK_SET)
            if b"populated 0" in os.read(handle, 4096):
                return True
            wait = until - time.monotonic()
            if wait <= 0:
                return False
            poller.poll(wait * 1000)
    except OSError:
        return False
    finally:
        os.close(handle)
