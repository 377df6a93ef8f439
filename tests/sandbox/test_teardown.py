"""A run's processes are known to be gone by the kernel's word (pidfds, cgroup v2's ``cgroup.events``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.sandbox.resources.cgroups import _mounts, _own_paths, detect
from autograder.sandbox.resources.limits import Limits
from autograder.sandbox.resources.teardown import kill, open_pidfds, wait_exits, wait_unpopulated

from grading_run import needs_cgroups

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd_open in this Python")


def _sleeper(join: Path | None = None) -> subprocess.Popen[bytes]:
    """``sleep 60``, put in the cgroup whose ``cgroup.procs`` is ``join`` first."""
    script = f'echo $$ > "{join}" || exit 126; exec sleep 60' if join else "exec sleep 60"
    return subprocess.Popen(["/bin/sh", "-c", script])


def test_a_pidfd_says_when_its_process_is_gone() -> None:
    process = _sleeper()
    try:
        handles = open_pidfds([process.pid])
        assert list(handles) == [process.pid]
        assert not wait_exits([os.dup(handles[process.pid])], time.monotonic() + 0.2)  # still sleeping
        kill([process.pid], handles)
        assert wait_exits(list(handles.values()), time.monotonic() + 30)
    finally:
        process.kill()
        process.wait()
    assert open_pidfds([process.pid]) == {}  # reaped: nothing to open


def _v2_folder() -> Path | None:
    """A writable folder under the grader's own cgroup v2 (hybrid machines mount it at .../unified)."""
    try:
        mount = next(m for m in _mounts(Path("/proc/self")) if m.fstype == "cgroup2")
        own = _own_paths(Path("/proc/self"))[""]
    except (StopIteration, KeyError, OSError):
        return None
    base = mount.point / own.lstrip("/") if mount.root == "/" else None
    if base is None or not os.access(base, os.W_OK):
        return None
    return base


@pytest.mark.skipif(_v2_folder() is None, reason="no writable cgroup v2 here")
def test_cgroup_events_say_when_a_v2_group_is_empty() -> None:
    folder = _v2_folder() / f"ndcg-teardown-test-{os.getpid()}"  # type: ignore[operator]
    folder.mkdir()
    process = None
    try:
        process = _sleeper(folder / "cgroup.procs")
        until = time.monotonic() + 30
        while not (folder / "cgroup.procs").read_text().split() and time.monotonic() < until:
            time.sleep(0.01)  # the shell joins the group right after it starts
        assert process.poll() is None, "could not join the cgroup"
        assert not wait_unpopulated(folder / "cgroup.events", time.monotonic() + 0.2)  # still sleeping
        process.kill()
        assert wait_unpopulated(folder / "cgroup.events", time.monotonic() + 30)
    finally:
        if process is not None:
            process.kill()
            process.wait()
        folder.rmdir()


@needs_cgroups
def test_a_run_group_is_emptied_and_removed_with_processes_that_left_the_session() -> None:
    """Children that moved to sessions of their own, and their children, die with the group."""
    cgroups = detect(Limits())
    try:
        group = cgroups.new_run()
        spawner = (
            "import os, time\n"
            "for _ in range(3):\n"
            "    if os.fork() == 0:\n"
            "        os.setsid()\n"
            "        os.fork()\n"
            "        time.sleep(60)\n"
            "        os._exit(0)\n"
            "print('started', flush=True)\n"
            "time.sleep(60)\n"
        )
        process = subprocess.Popen(
            [*group.enter_prefix(), sys.executable, "-c", spawner], stdout=subprocess.PIPE, start_new_session=True
        )
        assert process.stdout is not None and process.stdout.readline() == b"started\n"
        members = {int(pid) for pid in (group.folders[0] / "cgroup.procs").read_text().split()}
        assert len(members) >= 4  # the spawner, three session leaders, and their children as they start
        group.remove()
        process.wait()
        # a cgroup folder can be removed only once no process is left in it
        assert all(not folder.exists() for folder in group.folders)
    finally:
        cgroups.close()

