"""One student, several tutors: ``grade --student``, one grader per course, a gradebook held elsewhere.

- ``grade --student alice`` grades alice again and reuses everyone else's saved result (their
  resume-cache files are not even rewritten), and the outputs still cover the whole class;
- a second ``grade`` on a course another grader is working on refuses in one line naming the
  holder (exit 3), or with ``--wait`` waits for it; ``nbgrader autograde`` (the formgrader's
  button) refuses beside a running ``grade`` too;
- a gradebook that another program holds locked (an exclusive SQLite transaction, as an open
  ``sqlite3`` shell leaves it) is not updated, with a message naming that program and what to do
  (exit 1), and the results on disk are complete.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.course.setup.lock import LOCK_NAME, grading_lock
from autograder.exercises.ndcg import EXERCISE
from autograder.grading.batch import STATE, state_name

from grading_run import ROOT, add_student, generated_course, grade, new_course, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

#: Two cells that sleep (no CPU: not a timeout): the run lasts long enough for a second grader to meet it.
SLEEPY = ("import time\ntime.sleep(3)",)  # in each of its three processes: the second grader comes meanwhile


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory) -> Path:
    """Three students graded once for the module; each test gets a copy (:func:`course`)."""
    root = new_course(tmp_path_factory.mktemp("graded") / "course")
    for student in ("alice", "bob", "carol"):
        add_student(root, student)
    done = grade(root)
    assert done.returncode == 0, done.stderr[-2000:]
    return root


@pytest.fixture
def course(graded_course, tmp_path) -> Path:
    # the saved results hold no path of the course (a copy reuses them: the first test checks it)
    return Path(shutil.copytree(graded_course, tmp_path / "course", symlinks=True))


def _state(root: Path, student: str) -> Path:
    return root / "graded" / STATE / state_name(student)


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


def test_student_option_regrades_only_that_student(course):
    before = {student: _state(course, student).stat().st_mtime_ns for student in ("alice", "bob", "carol")}
    kept = {student: _state(course, student).read_bytes() for student in ("bob", "carol")}
    time.sleep(0.01)  # mtimes differ for a file written now
    done = grade(course, "--student", "alice")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "re-graded: alice" in done.stdout
    assert _state(course, "alice").stat().st_mtime_ns > before["alice"]
    for student in ("bob", "carol"):
        assert _state(course, student).stat().st_mtime_ns == before[student], student
        assert _state(course, student).read_bytes() == kept[student], student
    scores = {student: result["score"] for student, result in results(course).items()}
    assert scores == pytest.approx(dict.fromkeys(("alice", "bob", "carol"), EXERCISE.max_score))
    report = (course / "graded" / "report.html").read_text(encoding="utf-8")
    assert all(student in report for student in ("alice", "bob", "carol"))


def test_student_option_is_repeatable_and_names_an_unknown_student(course):
    before = _state(course, "carol").stat().st_mtime_ns
    done = grade(course, "--student", "alice", "--student", "bob")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "re-graded: alice, bob" in done.stdout
    assert _state(course, "carol").stat().st_mtime_ns == before
    wrong = grade(course, "--student", "alcie")
    assert wrong.returncode == 2
    assert "--student alcie: no such folder in submitted" in _one_line(wrong.stderr)


def test_a_second_grader_refuses_while_the_first_runs(course):
    add_student(course, "sleepy", extra=SLEEPY)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", "--quiet"], cwd=course, env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lock = course / LOCK_NAME
        deadline = time.monotonic() + 120
        while f"pid {first.pid}," not in (lock.read_text() if lock.exists() else ""):
            assert first.poll() is None and time.monotonic() < deadline, "the first grader never took the lock"
            time.sleep(0.02)
        second = grade(course, "--force")
        assert first.poll() is None, "the first grader finished before the second started: no overlap tested"
        assert second.returncode == 3, second.stderr
        line = _one_line(second.stderr)
        assert f"another grader is working on this course: pid {first.pid}, python -m autograder grade" in line
        assert "--wait" in line
        _, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err[-2000:]
    graded = results(course)
    assert set(graded) == {"alice", "bob", "carol", "sleepy"}
    assert graded["sleepy"]["status"] == "graded" and graded["sleepy"]["score"] == pytest.approx(EXERCISE.max_score)
    assert lock.read_text() == ""  # released: nobody grades


@pytest.mark.cold_start  # the imports happen in a process of its own
def test_the_second_grader_is_refused_before_the_course_loads(tmp_path):
    # the course's config and the grading modules import nbgrader, numpy and matplotlib (seconds on a busy
    # machine: a second tutor waited 11.9 s to be told); the refusal comes before any of them is imported
    course = new_course(tmp_path / "course")
    with grading_lock(course, who="the test's own holder"):
        done = grade(course, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert done.returncode == 3, done.stderr[-2000:]
    assert "another grader is working on this course" in done.stderr and "the test's own holder" in done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "autograder.cli" in imported, done.stderr[:3000]  # the import log is there: the check below can fail
    assert not {"nbgrader", "matplotlib", "autograder.pipeline"} & imported, sorted(imported)


def test_wait_starts_when_the_holder_is_done(course):
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    with grading_lock(course, who="the test's own holder"):
        waiting = subprocess.Popen(
            [sys.executable, "-m", "autograder", "grade", "--quiet", "--wait", "--student", "bob"], cwd=course,
            env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert waiting.stderr is not None
            line = waiting.stderr.readline()  # the first thing it says; it blocks until then
            assert "waiting for the other grader to finish: pid" in line and "the test's own holder" in line
            assert waiting.poll() is None
        except BaseException:
            waiting.kill()
            raise
    out, err = waiting.communicate(timeout=300)
    assert waiting.returncode == 0, err[-2000:]
    assert "re-graded: bob" in out


def test_nbgrader_autograde_refuses_beside_a_running_grader(tmp_path):
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    course = generated_course(tmp_path / "course")
    add_student(course, "alice")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    with grading_lock(course, who="python -m autograder grade"):
        refused = api.autograde("ndcg", "alice")
    assert refused["success"] is False
    assert "not autograded, no score written: another grader is working on this course" in refused["error"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook, pytest.raises(MissingEntry):
        gradebook.find_submission("ndcg", "alice")
    assert api.autograde("ndcg", "alice")["success"] is True  # the lock is free again


def test_a_locked_gradebook_gets_a_message_naming_who_holds_it(course):
    holder = sqlite3.connect(course / "gradebook.db", isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        done = grade(course, "--student", "alice")
    finally:
        holder.close()
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("gradebook:")]
    assert "gradebook: NOT updated:" in line and "is locked by another program" in line
    assert f"pid {os.getpid()} (" in line  # this test holds it
    assert "run the same command again" in line
    assert "OperationalError" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    document = json.loads((course / "graded" / "results.json").read_text())
    assert {student["student_id"] for student in document["students"]} == {"alice", "bob", "carol"}
    again = grade(course)  # the program is gone: the same command records the results
    assert again.returncode == 0, again.stdout + again.stderr
