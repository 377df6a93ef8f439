"""Scratch folders: none stays behind, not even after a grader was killed with SIGKILL mid-run.

Only folders named for a dead grader and locked by nobody are removed; a live grader's, another
process's lock, a link (to a canary folder the test made) are left alone.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.sandbox.resources.scratch import PREFIX, scratch_folder, sweep_leftovers

from grading_run import ROOT


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_only_a_dead_graders_unlocked_folders_are_swept(tmp_path):
    dead = _dead_pid()
    leftover = tmp_path / f"{PREFIX}{dead}-abc123"
    (leftover / "deep").mkdir(parents=True)
    (leftover / "deep" / "file").write_text("x")
    os.chmod(leftover / "deep", 0o000)  # what a run may leave: still removed
    live = tmp_path / f"{PREFIX}{os.getpid()}-live01"
    live.mkdir()
    locked = tmp_path / f"{PREFIX}{dead}-locked"  # a live owner in another pid namespace holds its lock
    locked.mkdir()
    holder = os.open(locked, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "keep").write_text("keep")
    (tmp_path / f"{PREFIX}{dead}-link99").symlink_to(canary)
    other = tmp_path / "ndcg-scratch-unrelated"
    other.mkdir()
    try:
        removed = sweep_leftovers(str(tmp_path))
    finally:
        os.close(holder)
    assert removed == [leftover.name]
    assert not leftover.exists() and live.is_dir() and locked.is_dir() and other.is_dir()
    assert (canary / "keep").read_text() == "keep"


def test_a_runs_folder_is_locked_while_in_use_and_gone_afterwards(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    with scratch_folder() as folder:
        assert folder.parent == tmp_path and folder.name.startswith(f"{PREFIX}{os.getpid()}-")
        probe = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
    assert not folder.exists()


GRADE_ONE = """
import sys
from autograder.sandbox import choose_sandbox, run_submission
sandbox = choose_sandbox("auto")
print("started", flush=True)
run_submission(sandbox, [sys.argv[1]], [], timeout=30, budget=60)
"""


@pytest.mark.slow
def test_the_next_run_removes_what_a_killed_grader_left(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    grader = subprocess.Popen([sys.executable, "-c", GRADE_ONE, "import time; time.sleep(60)"], env=env,
                              stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    mine = f"{PREFIX}{grader.pid}-"
    while not any(p.name.startswith(mine) for p in tmp_path.iterdir()):
        assert time.monotonic() < deadline and grader.poll() is None, "the grader never started a run"
        time.sleep(0.05)
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(mine)], "the killed grader left nothing"
    # the next grader's first run sweeps it
    done = subprocess.run([sys.executable, "-c", GRADE_ONE, "x = 1"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(PREFIX)] == []
