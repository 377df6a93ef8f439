"""A full disk stops the batch with one clear error, keeps what was saved, and the next run resumes."""

from __future__ import annotations

import errno
import os

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.files import DiskFull
from autograder.grading import grade_batch
from autograder.sandbox import choose_sandbox

from grading_run import add_student, new_course, release_settings

pytestmark = pytest.mark.slow


def test_a_full_disk_stops_cleanly_and_the_next_run_resumes(tmp_path, monkeypatch):
    course = new_course(tmp_path / "course")
    for student in ("a", "b", "c", "d"):
        add_student(course, student)
    settings = release_settings(5.0)
    sandbox = choose_sandbox("auto")
    real_fsync, writes = os.fsync, []

    def fsync_until_full(fd: int) -> None:
        if len(writes) >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        writes.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_until_full)
    with pytest.raises(DiskFull, match=r"the disk is full.*run the same command again"):
        grade_batch(course / "submitted", course / "out", settings, sandbox, workers=1, progress=False)
    monkeypatch.setattr(os, "fsync", real_fsync)
    state = course / "out" / ".state"
    saved = {path.name: path.stat().st_mtime_ns for path in state.glob("*.json")}
    assert len(saved) == 2 and not list(state.glob(".*.tmp"))  # no half-written file left behind

    results = grade_batch(course / "submitted", course / "out", settings, sandbox, workers=1, progress=False)
    assert [r.score for r in results] == [EXERCISE.max_score] * 4
    assert all((state / name).stat().st_mtime_ns == mtime for name, mtime in saved.items())  # not graded again
