"""`make clean` deletes only what commands regenerate; grades go only with `make clean-grades CONFIRM=yes`."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from doc_commands import ROOT

STUDENT_WORK = ("submitted/alice/ndcg/ndcg.ipynb", "exchange/inbound/alice+ndcg+t/ndcg.ipynb", ".grading-secret")
GRADES = ("gradebook.db", "graded/results.json", "autograded/alice/ndcg/ndcg.ipynb",
          "feedback/alice/ndcg/ndcg.html", "grades.csv", "moodle.csv", "canvas.csv")
REGENERABLE = ("demo/graded/results.json", ".pytest_cache/x", "autograder/__pycache__/x.pyc")


def _course(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "Makefile", course)
    for name in STUDENT_WORK + GRADES + REGENERABLE:
        (course / name).parent.mkdir(parents=True, exist_ok=True)
        (course / name).write_text("x")
    return course


def _makefile_only(course):
    """A folder with the Makefile and empty files for the venv's prerequisites."""
    course.mkdir()
    shutil.copy(ROOT / "Makefile", course)
    for name in ("pyproject.toml", "constraints.txt", "nbgrader_config.py"):
        (course / name).write_text("")
    return course


def _make(course, *args):
    # as a tutor types it in a shell: under `make test` the MAKELEVEL it exports would make this make a
    # sub-make, which prints "Entering directory" lines around the output (it did, in CI)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MAKE", "MFLAGS"))}
    return subprocess.run(["make", *args], cwd=course, capture_output=True, text=True, timeout=60, env=env)


def test_make_clean_keeps_student_work_and_grades(tmp_path):
    course = _course(tmp_path)
    assert _make(course, "clean").returncode == 0
    assert all((course / name).exists() for name in STUDENT_WORK + GRADES)
    assert not any((course / name).exists() for name in REGENERABLE)


def test_clean_grades_asks_first(tmp_path):
    course = _course(tmp_path)
    refused = _make(course, "clean-grades")
    # a clear answer, not a failure: exit 0, no make error line, what it would delete and the command to confirm
    assert refused.returncode == 0 and "Error" not in refused.stdout + refused.stderr and not refused.stderr
    lines = refused.stdout.splitlines()
    assert lines[0].startswith("Nothing was deleted. make clean-grades would delete every grade here:")
    for top in sorted({name.split("/")[0] for name in GRADES}):
        assert f" {top}" in lines[0], top
    assert lines[-1] == "To delete them: make clean-grades CONFIRM=yes"
    assert all((course / name).exists() for name in STUDENT_WORK + GRADES)
    assert _make(course, "clean-grades", "CONFIRM=yes").returncode == 0
    assert not any((course / name).exists() for name in GRADES)
    assert all((course / name).exists() for name in STUDENT_WORK)
    again = _make(course, "clean-grades")  # nothing left: said so
    assert again.returncode == 0 and again.stdout.startswith("Nothing to delete: no grades here")


def test_every_target_runs_from_a_folder_with_a_space(tmp_path):
    """A kit cloned into `.../kit copy/` runs its venv's programs (each recipe quotes the venv's path)."""
    course = _makefile_only(tmp_path / "kit copy")
    log = tmp_path / "ran.log"
    programs = course / ".venv" / "bin"
    programs.mkdir(parents=True)
    for program in ("python", "pip", "ruff", "mypy", "jupyter"):  # stand-ins that say how they were called
        (programs / program).write_text(f'#!/bin/sh\necho "$(basename "$0") $*" >> "{log}"\n')
        (programs / program).chmod(0o755)
    (course / ".venv" / ".installed").touch()  # newer than the files it depends on: no new venv
    targets = ("demo", "grade", "sync", "docs", "release", "lint", "test")
    done = _make(course, *targets, "SYSTEM_PACKAGES=no")  # the system packages' check: its own test below
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        "python -m autograder demo", "python -m autograder grade", "python -m autograder sync",
        "python -m autograder docs", "python -m autograder release", "ruff check .", "mypy ",
        "python -m pytest -n 2 --dist loadfile -m not serial --durations=25", "python -m pytest -m serial",
    ]


def test_assignment_reaches_every_target_that_works_on_an_exercise(tmp_path):
    """`make grade ASSIGNMENT=ap` grades ap, as sync and release work on it: none silently works on nDCG."""
    course = _makefile_only(tmp_path / "course")
    log = tmp_path / "ran.log"
    programs = course / ".venv" / "bin"
    programs.mkdir(parents=True)
    (programs / "python").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n')  # says how it was called
    (programs / "python").chmod(0o755)
    (course / ".venv" / ".installed").touch()
    done = _make(course, "grade", "sync", "release", "ASSIGNMENT=ap", "SYSTEM_PACKAGES=no")
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        f"-m autograder {command} --assignment ap" for command in ("grade", "sync", "release")]


def test_only_dependency_files_reinstall_the_venv(tmp_path):
    """An edit of nbgrader_config.py (the exchange, a penalty) leaves the venv alone; a switch to PostgreSQL does not."""
    course = _makefile_only(tmp_path / "course")
    (course / ".venv").mkdir()
    (course / ".venv" / ".installed").touch()
    later = time.time() + 10  # the edits come after the install, whatever the file system's clock resolution
    (course / "nbgrader_config.py").write_text('c.LateSubmissionPlugin.penalty_method = "zero"\n')
    os.utime(course / "nbgrader_config.py", (later, later))
    assert _make(course, "-q", ".venv/.installed").returncode == 0
    (course / "nbgrader_config.py").write_text('c.CourseDirectory.db_url = "postgresql://grader@db/ir"\n')
    assert _make(course, "-q", ".venv/.installed").returncode == 1  # the driver: installed once
    (course / "pyproject.toml").write_text("[project]\n")
    os.utime(course / "pyproject.toml", (later, later))
    (course / "nbgrader_config.py").write_text("")
    assert _make(course, "-q", ".venv/.installed").returncode == 1


def test_missing_system_packages_are_named_in_one_command(tmp_path):
    """Not root (or no apt-get): the script names what is missing in the one command to run, and the target goes on."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "id").write_text("#!/bin/sh\necho 1000\n")  # a normal user; no bwrap, prlimit or apt-get on this PATH
    (stubs / "id").chmod(0o755)
    done = subprocess.run(["/bin/bash", str(ROOT / "scripts" / "system_packages.sh"), "demo"], capture_output=True,
                          text=True, env={"PATH": str(stubs)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ("missing system packages: bubblewrap util-linux; "
                                   "install them with: sudo apt-get install bubblewrap util-linux")
