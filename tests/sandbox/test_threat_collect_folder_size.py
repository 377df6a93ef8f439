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
  grows, or is swapped for a link, between the walk and the copy);
- a sparse file that is collected keeps its holes (a few blocks in ``submitted/``, not its apparent
  size: four made-up ids with a sparse 70 MiB file each wrote 280 MiB) and its exact bytes;
- a run is held to its total (``CourseCollect.max_total_mb``): made-up ids (valid, in no roster)
  that would pass it are not collected, one escaped line each, while every student of the
  gradebook's roster is, and so is every later entry still within the total; entries a run does not
  copy (already collected) count nothing.

The limits come from the settings' defaults (``SandboxedExecute.max_folder_mb`` +
``max_notebook_mb``, ``max_folder_files``, ``CourseCollect.max_total_mb``), never written out here.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.autograde.collect import DEFAULT_MAX_TOTAL_MB, ENTRY_COST
from autograder.course.materials.nbgrader_commands import tool_environment
from autograder.grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from autograder.grading.reading.notebook import DEFAULT_MAX_NOTEBOOK_BYTES
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
#: Where a collected sparse file holds data (the rest, and its end, are holes), and its apparent size.
DATA_AT, SPARSE_SIZE = {0: b"head", 21 * 1024**2 + 3: b"middle" * 5000, 50 * 1024**2: b"late"}, 60 * 1024**2
#: Allocated bytes that count as "kept its holes": the data's few blocks, the notebook, nbgrader's files.
FEW_BLOCKS = 2 * 1024**2
#: The made-up ids' padding: the per-entry bound less room for the notebook; enough of them pass the total.
PAD = DEFAULT_MAX_FOLDER_BYTES
MADE_UP = [f"a{number:02}" for number in range(math.ceil(DEFAULT_MAX_TOTAL_MB * 1024**2 / PAD) + 2)]
#: What each roster student hands in beside the notebook (figures, a data set): together more than a
#: made-up entry leaves of the total, so only the roster's going first collects them both.
ROSTER, ROSTER_PAD = ["alice", "bob"], 40 * 1024**2


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


def _apparent(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def _cost(folder: Path) -> int:
    """What an entry counts against the run's total (its files' apparent bytes, a block per file and folder)."""
    return _apparent(folder) + ENTRY_COST * sum(1 for _ in folder.rglob("*"))


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


def test_sparse_files_collected_keep_their_holes_and_their_bytes(course):
    course, exchange, inbound = course
    evil = _entry(inbound, "mallory")
    _sparse(evil / "pad.bin", SPARSE_SIZE)
    with open(evil / "pad.bin", "r+b") as handle:
        for offset, data in DATA_AT.items():
            handle.seek(offset)
            handle.write(data)
    if _disk(evil) >= FEW_BLOCKS:
        pytest.skip("this file system allocates a sparse file's holes")
    done = _collect(course, exchange)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    copied = course / "submitted" / "mallory" / "ndcg" / "pad.bin"
    assert copied.stat().st_size == SPARSE_SIZE and copied.read_bytes() == (evil / "pad.bin").read_bytes()
    assert _disk(course / "submitted" / "mallory") < FEW_BLOCKS, f"{_disk(course / 'submitted' / 'mallory'):,} bytes written"
    assert (course / "submitted" / "alice" / "ndcg" / "ndcg.ipynb").is_file()


def test_made_up_ids_beyond_the_total_are_not_collected_every_roster_student_is(course):
    course, exchange, inbound = course
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")
        for student in ROSTER:  # the tutor's roster (nbgrader db student add)
            gradebook.update_or_create_student(student)
    entries = {"alice": next(inbound.glob("alice+*")), "bob": _entry(inbound, "bob")}
    for student in ROSTER:
        _sparse(entries[student] / "figures.bin", ROSTER_PAD)
    honest = entries["alice"] / "ndcg.ipynb"
    for student in MADE_UP:  # sorted before the roster: taken in id order, they would take the total first
        entries[student] = inbound / f"{student}+ndcg+{EARLY}+1"
        entries[student].mkdir()
        shutil.copy(honest, entries[student])
        _sparse(entries[student] / "pad.bin", PAD - 2 * honest.stat().st_size)
    entries["zz9"] = _entry(inbound, "zz9")  # last, small: within the total after the refusals
    done = _collect(course, exchange)
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in log, log[-3000:]
    submitted = course / "submitted"
    collected = set(os.listdir(submitted))
    refused = {student for student in entries if f"Not collected: {student} ({entries[student].name}): it would "
               "pass this run's total" in log}
    assert {*ROSTER, "zz9"} <= collected and refused and collected.isdisjoint(refused)
    assert collected | refused == set(entries), log[-3000:]
    total = DEFAULT_MAX_TOTAL_MB * 1024**2
    used = sum(_cost(entries[student]) for student in collected)
    assert used <= total
    assert all(used + _cost(entries[student]) > total for student in refused)  # each would have passed it
    # the others are taken in id order (code points), the same every run: those collected come first
    taken = sorted(collected - {*ROSTER, "zz9"})
    assert taken == MADE_UP[:len(taken)], taken
    assert all("c.CourseCollect.max_total_mb" in line for line in log.splitlines() if "this run's total" in line)
    assert _apparent(submitted) <= total


def test_a_run_counts_only_what_it_copies(course):
    course, exchange, inbound = course
    for student in ["alice", "bob"]:
        entry = next(inbound.glob(f"{student}+*"), None) or _entry(inbound, student)
        _sparse(entry / "figures.bin", ROSTER_PAD)
    assert _collect(course, exchange).returncode == 0
    before = {student: (course / "submitted" / student / "ndcg" / "figures.bin").stat().st_ctime_ns
              for student in ["alice", "bob"]}
    _sparse(_entry(inbound, "carol") / "figures.bin", ROSTER_PAD)
    # a total for one such entry (set on the command line, as a tutor would): the two already collected,
    # which nbgrader's step skips, count nothing; carol's entry fits
    done = _collect(course, exchange, f"--CourseCollect.max_total_mb={1.5 * ROSTER_PAD / 1024**2:g}")
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "Not collected" not in log, log[-3000:]
    assert sorted(os.listdir(course / "submitted")) == ["alice", "bob", "carol"]
    assert before == {student: (course / "submitted" / student / "ndcg" / "figures.bin").stat().st_ctime_ns
                      for student in ["alice", "bob"]}
