"""Two sandboxes alive at the same time never share a user id, even when two graders start them.

As root, ``RLIMIT_NPROC`` is a budget per user id: sandboxes sharing an id would share it, and a
fork bomb in one would starve the other. The hostile code here makes only sleeping children of its
own, which end by themselves within seconds.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.sandbox.isolation.bubblewrap import Bubblewrap
from autograder.sandbox.resources.limits import FIRST_SANDBOX_UID, Limits, SandboxUnavailable
from autograder.sandbox.resources.uids import (
    LEASE_BASE_VARIABLE,
    LEASE_FOLDER,
    LOWEST_FIRST_UID,
    RANGE_VARIABLE,
    lease_uid,
)

from grading_run import add_student, grade, new_course


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


def _an_account_id() -> int:
    """The user id of an account this machine lists, at or above the lowest id a range may start at."""
    for entry in pwd.getpwall():
        if LOWEST_FIRST_UID <= entry.pw_uid < 65535:
            return entry.pw_uid
    pytest.skip("this machine lists no account with a user id from 1000 on (Debian has 'nobody', 65534)")


def test_the_range_variable_names_the_ids(leases_in, monkeypatch):
    monkeypatch.setenv(RANGE_VARIABLE, "70000-70001")
    first, second = lease_uid(0), lease_uid(0)
    assert (first.uid, second.uid) == (70000, 70001)
    with pytest.raises(SandboxUnavailable, match=r"all 2 sandbox user ids \(70000-70001\) are in use"):
        lease_uid(0)
    first.release()
    second.release()


@pytest.mark.parametrize("value", ["61000", "abc-def", "65095-61000", "0-100", "999-2000", "-1-5"])
def test_a_range_set_wrong_is_refused_naming_the_variable(leases_in, monkeypatch, value):
    monkeypatch.setenv(RANGE_VARIABLE, value)
    with pytest.raises(SandboxUnavailable, match=RANGE_VARIABLE):
        lease_uid(0)


def test_a_range_holding_an_account_is_refused(leases_in, monkeypatch):
    taken = _an_account_id()
    monkeypatch.setenv(RANGE_VARIABLE, f"{max(taken - 1, LOWEST_FIRST_UID)}-{taken}")  # the account is not first
    with pytest.raises(SandboxUnavailable, match=rf"sandbox user id {taken} .* is the user '{pwd.getpwuid(taken).pw_name}'"):
        lease_uid(0)


def test_an_account_a_directory_does_not_list_is_refused_when_its_id_is_leased(leases_in, monkeypatch):
    """A directory (LDAP) that answers getpwuid but lists nobody: the id is looked up when it is leased."""
    taken = _an_account_id()
    monkeypatch.setenv(RANGE_VARIABLE, f"{taken}-{taken}")
    monkeypatch.setattr(pwd, "getpwall", list)  # lists no one, as such a directory does
    monkeypatch.setattr(grp, "getgrall", list)
    with pytest.raises(SandboxUnavailable, match=rf"sandbox user id {taken} "):
        lease_uid(0)
    fd = os.open(leases_in / str(taken), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the refused id's lock was let go
    finally:
        os.close(fd)


@pytest.mark.skipif(os.geteuid() != 0, reason="sandbox user ids are leased as root only")
def test_grade_refuses_in_one_line_when_the_range_holds_an_account(tmp_path):
    taken = _an_account_id()
    course = new_course(tmp_path / "course")
    add_student(course, "ada")
    result = grade(course, "--gradebook", "none", "--sandbox", "required",
                   env={RANGE_VARIABLE: f"{taken}-{taken}", LEASE_BASE_VARIABLE: str(tmp_path)})
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"sandbox user id {taken}" in result.stderr and RANGE_VARIABLE in result.stderr
    assert "Traceback" not in result.stderr


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
