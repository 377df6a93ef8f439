"""Threat: one inbound entry fills the course's disk through ``nbgrader collect``.

The course's ``collect`` replaced nbgrader's copy, which refused an entry over
``CourseDirectory.max_dir_size``, and checked no size: three sparse 99 MB files (40 KB of the
student's disk) became 297 MB in ``submitted/``, and N such files scale linearly. Must hold, with
real ``nbgrader collect`` and the course's config, beside an honest classmate who is collected:

- an entry over the grading's folder bounds (its bytes by apparent size, so sparse files count
  fully; its entries), or over ``max_dir_size`` where that is smaller, is not collected, in one
  escaped line naming the student and the limit, and nothing of it lands in ``submitted/``;
- a refused newer entry leaves the student's previous copy in ``submitted/`` as it was (``--update``);
- a file over ``max_file_size`` is left out as nbgrader leaves it out, its name escaped in the log;
- the copy itself holds to what was measured (``tests/course/test_bounded_copy.py``: an entry that
  grows, or is swapped for a link, between the walk and the copy).

The limits come from the settings' defaults (``SandboxedExecute.max_folder_mb`` +
``max_notebook_mb``, ``max_folder_files``), never written out here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.nbgrader import tool_environment
from autograder.grading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from autograder.grading.notebook import DEFAULT_MAX_NOTEBOOK_BYTES
from autograder.output.safe_text import printable

from grading_run import add_student, generated_course

pytestmark = pytest.mark.slow
NBGRADER = Path(sys.executable).parent / "nbgrader"
COURSE_ID = "ir-ranking-evaluation"
EARLY, LATE = "2026-11-30 10:15:00.000000 UTC", "2026-11-30 11:15:00.000000 UTC"
#: The most apparent bytes an entry may hold (the notebook's own limit on top of the folder's).
MAX_BYTES = DEFAULT_MAX_FOLDER_BYTES + DEFAULT_MAX_NOTEBOOK_BYTES
#: Each under nbgrader's per-file limit (100 MB), together over the bound.
SPARSE_FILES, EACH = 3, 99 * 10**6
ESCAPED_NAME = "\x1b[2K\rbig.bin"


def _entry(inbound: Path, student: str, stamp: str = EARLY) -> Path:
    folder = inbound / f"{student}+ndcg+{stamp}+{abs(hash((student, stamp))) % 10**8}"
    notebook = add_student(inbound.parent / "scratch", student)
    shutil.move(notebook.parent, folder)
    (folder / "timestamp.txt").write_text(stamp)
    return folder


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)  # no disk used: a copy writes every byte


def _disk(folder: Path) -> int:
    return sum(path.lstat().st_blocks * 512 for path in folder.rglob("*"))


def _collect(course: Path, exchange: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(NBGRADER), "collect", "ndcg", f"--Exchange.root={exchange}", *args], cwd=course,
                          env=tool_environment(), capture_output=True, text=True, timeout=600, errors="surrogateescape")


@pytest.fixture
def course(tmp_path):
    course = generated_course(tmp_path / "course")
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    _entry(inbound, "alice")
    return course, tmp_path / "exchange", inbound


def test_sparse_files_over_the_bound_are_not_collected(course):
    course, exchange, inbound = course
    evil = _entry(inbound, "mallory")
    for number in range(SPARSE_FILES):
        _sparse(evil / f"pad{number}.bin", EACH)
    assert SPARSE_FILES * EACH > MAX_BYTES and EACH < 100_000 * 1000  # each under nbgrader's max_file_size
    done = _collect(course, exchange)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    refusals = [line for line in log.splitlines() if "Not collected: mallory " in line]
    assert len(refusals) == 1 and f"more than {MAX_BYTES / 1024**2:g} MiB of files" in refusals[0], log[-3000:]
    assert "max_dir_size" in refusals[0]
    assert not (course / "submitted" / "mallory").exists()
    assert (course / "submitted" / "alice" / "ndcg" / "ndcg.ipynb").is_file()
    assert _disk(course / "submitted") < 10 * 1024**2


def test_a_smaller_max_dir_size_is_the_bound(course):
    course, exchange, inbound = course
    _sparse(_entry(inbound, "mallory") / "data.bin", 2 * 10**6)
    done = _collect(course, exchange, "--CourseDirectory.max_dir_size=1000")  # kB: 1 MB, below the folder bound
    log = done.stdout + done.stderr
    assert "Not collected: mallory (mallory+ndcg+" in log and f"more than {10**6 / 1024**2:g} MiB" in log, log
    assert sorted(os.listdir(course / "submitted")) == ["alice"]


def test_too_many_entries_are_not_collected(course):
    course, exchange, inbound = course
    evil = _entry(inbound, "mallory")
    for number in range(DEFAULT_MAX_FOLDER_FILES):
        (evil / f"empty-{number}").touch()
    done = _collect(course, exchange)
    log = done.stdout + done.stderr
    assert f"more than {DEFAULT_MAX_FOLDER_FILES:,} files and folders" in log and "Not collected: mallory " in log
    assert sorted(os.listdir(course / "submitted")) == ["alice"]


def test_a_refused_update_keeps_the_previous_copy(course):
    course, exchange, inbound = course
    _entry(inbound, "mallory")
    assert _collect(course, exchange).returncode == 0
    before = (course / "submitted" / "mallory" / "ndcg" / "ndcg.ipynb").read_bytes()
    later = _entry(inbound, "mallory", stamp=LATE)
    _sparse(later / "pad.bin", MAX_BYTES + 1)
    done = _collect(course, exchange, "--update")
    assert "Not collected: mallory " in done.stdout + done.stderr
    assert (course / "submitted" / "mallory" / "ndcg" / "ndcg.ipynb").read_bytes() == before
    assert (course / "submitted" / "mallory" / "ndcg" / "timestamp.txt").read_text() == EARLY


def test_a_file_over_max_file_size_is_left_out_its_name_escaped(course):
    course, exchange, inbound = course
    evil = _entry(inbound, "mallory")
    _sparse(evil / ESCAPED_NAME, 2 * 10**6)
    done = _collect(course, exchange, "--CourseDirectory.max_file_size=1000")  # kB
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "\x1b" not in log and "\r" not in log, log[-3000:]
    assert f"{printable(ESCAPED_NAME)} (over CourseDirectory.max_file_size)" in log
    assert sorted(os.listdir(course / "submitted" / "mallory" / "ndcg")) == ["ndcg.ipynb", "timestamp.txt"]
