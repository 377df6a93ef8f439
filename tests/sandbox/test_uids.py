"""Two sandboxes alive at the same time never share a user id, even when two graders start them.

As root, ``RLIMIT_NPROC`` is a budget per user id: sandboxes sharing an id would share it, and a
fork bomb in one would starve the other. The hostile code here makes only sleeping children of its
own, which end by themselves within seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.sandbox.bubblewrap import Bubblewrap
from autograder.sandbox.limits import FIRST_SANDBOX_UID, Limits, SandboxUnavailable
from autograder.sandbox.uids import LEASE_BASE_VARIABLE, LEASE_FOLDER, lease_uid


@pytest.fixture
def leases_in(tmp_path, monkeypatch):
    monkeypatch.setenv(LEASE_BASE_VARIABLE, str(tmp_path))
    return tmp_path / LEASE_FOLDER


def test_leases_held_at_once_are_distinct_and_come_back(leases_in):
    first, second = lease_uid(0), lease_uid(0)
    assert first.uid == FIRST_SANDBOX_UID
    assert second.uid == FIRST_SANDBOX_UID + 1
    first.release()
    third = lease_uid(0)
    assert third.uid == FIRST_SANDBOX_UID  # given back
    second.release()
    third.release()


def test_an_id_another_grader_holds_is_skipped_until_it_ends(leases_in):
    lease_uid(0).release()  # makes the folder
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         f"fd = os.open({str(leases_in / str(FIRST_SANDBOX_UID))!r}, os.O_RDWR)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        lease = lease_uid(0)
        assert lease.uid == FIRST_SANDBOX_UID + 1
        lease.release()
    finally:
        holder.kill()
        holder.wait()
    lease = lease_uid(0)  # the kernel dropped the dead grader's lock
    assert lease.uid == FIRST_SANDBOX_UID
    lease.release()


def test_a_lease_folder_others_can_write_is_refused(leases_in):
    leases_in.mkdir()
    leases_in.chmod(0o777)
    with pytest.raises(SandboxUnavailable, match="only this user can write"):
        lease_uid(0)


def test_a_lease_folder_that_is_a_link_is_refused(leases_in, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    leases_in.symlink_to(elsewhere)
    with pytest.raises(SandboxUnavailable, match="only this user can write"):
        lease_uid(0)


# 60 sleeping children (the budget is 64 per user id), kept for a few seconds
SPAWN_AND_HOLD = """
import os, sys, time
made = 0
for _ in range(60):
    try:
        if os.fork() == 0:
            time.sleep(6)
            os._exit(0)
        made += 1
    except OSError:
        break
print(made, flush=True)
time.sleep(6)
"""
# an honest student's code running ten threads at once (a thread counts against the budget too)
TEN_THREADS = """
import threading
go = threading.Event()
threads = [threading.Thread(target=go.wait) for _ in range(10)]
for t in threads:
    t.start()
go.set()
for t in threads:
    t.join()
print("ok")
"""


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="user ids are leased when the grader runs as root")
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_two_graders_slot_0_sandboxes_do_not_share_a_process_budget():
    sandbox = Bubblewrap("bwrap", Limits())
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        hog_launch = sandbox.launch(Path(one), slot=0)
        honest_launch = sandbox.launch(Path(two), slot=0)  # another grader's first worker
        try:
            reuid = [[a for a in launch.argv if a.startswith("--reuid=")] for launch in (hog_launch, honest_launch)]
            assert reuid[0] != reuid[1]
            hog = subprocess.Popen(
                [*hog_launch.argv[:-1], "-c", SPAWN_AND_HOLD], cwd=hog_launch.cwd, env=hog_launch.env,
                pass_fds=hog_launch.pass_fds, stdout=subprocess.PIPE, text=True,
            )
            try:
                assert int(hog.stdout.readline()) >= 50  # the hog holds (nearly) its whole budget
                honest = subprocess.run(
                    [*honest_launch.argv[:-1], "-c", TEN_THREADS], cwd=honest_launch.cwd,
                    env=honest_launch.env, pass_fds=honest_launch.pass_fds, capture_output=True, text=True,
                    timeout=30,
                )
                assert honest.returncode == 0 and honest.stdout.strip() == "ok", honest.stderr[-1000:]
            finally:
                hog.kill()
                hog.wait()
        finally:
            hog_launch.end()
            honest_launch.end()
