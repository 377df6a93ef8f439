"""Before grading, the grader proves that its sandbox user can start the course's Python and read what it needs.

A course inside a folder the sandbox's unprivileged user cannot enter (a parent with mode 0700:
root's home, a ``mktemp -d`` folder) once gave every honest student 0/10 with exit code 0 in the
fallback without bubblewrap. Here the course's Python is reached through such a folder (links to
this environment inside a folder of mode 0700); the grader must then either grade correctly
(bubblewrap binds the environment) or refuse in one line that names the folder and the fix —
never grade anyone 0. Nothing here is hostile.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.sandbox.isolation.preflight import blocked_path

from grading_run import ROOT, add_student, generated_course, new_course, results

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root drops to a user of its own without bubblewrap")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def _private_python(tmp_path: Path, *, own_packages: bool = False) -> tuple[Path, Path]:
    """This environment's Python as seen from inside a folder of mode 0700: (its ``python``, that folder).

    Its packages are reached through a link, or with ``own_packages`` are its own (hard links, so
    that bubblewrap, which binds the environment's folder, sees them; skipped across file systems).
    """
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    venv = private / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))  # as venv links it
    packages = Path(sys.prefix) / "lib"
    if own_packages:
        try:
            shutil.copytree(packages, venv / "lib", symlinks=True, copy_function=os.link)
        except (OSError, shutil.Error) as error:
            pytest.skip(f"cannot hard-link the environment here: {error}")
    else:
        (venv / "lib").symlink_to(packages)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", venv / "pyvenv.cfg")
    return venv / "bin" / "python", private


def _grade(python: Path, course: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    if path is not None:
        environment["PATH"] = path
    return subprocess.run(
        [str(python), "-m", "autograder", "grade", "--gradebook", "none", *args],
        cwd=course, env=environment, capture_output=True, text=True, timeout=600,
    )


def _without_bwrap() -> str:
    return str(Path(sys.executable).parent)


def _names_the_private_folder(line: str, private: Path) -> bool:
    """The refusal names ``private`` or a parent of it as a folder of mode 0700 that others cannot enter."""
    return any(f"cannot enter {folder} (mode 0700)" in line for folder in (private, *private.parents))


# ---------------------------------------------------------------- naming the folder (no sandbox)


STRANGER = 4_000_000  # a user id that owns nothing here


@pytest.fixture
def open_tmp():
    """A temporary folder every user may enter (pytest's own tmp_path may sit below a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="preflight-"))
    if blocked_path(folder.parent, STRANGER) is not None:
        shutil.rmtree(folder)
        pytest.skip("the temporary folder is not one every user may enter")
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def test_the_first_folder_others_cannot_enter_is_named(open_tmp):
    outer = open_tmp / "outer"
    (outer / "inner").mkdir(parents=True)
    target = outer / "inner" / "python"
    target.write_text("")
    outer.chmod(0o711)
    (outer / "inner").chmod(0o700)
    blocked = blocked_path(target, STRANGER)
    assert blocked is not None and (blocked.path, blocked.mode) == (outer / "inner", 0o700)
    assert blocked.fix == f"chmod o+x {outer / 'inner'}" and f"cannot enter {outer / 'inner'}" in str(blocked)
    (outer / "inner").chmod(0o755)
    target.chmod(0o600)
    blocked = blocked_path(target, STRANGER)
    assert blocked is not None and blocked.path == target and f"cannot read {target} (mode 0600)" in str(blocked)
    target.chmod(0o644)
    assert blocked_path(target, STRANGER) is None


def test_a_link_is_followed_to_where_it_points(open_tmp):
    hidden = open_tmp / "hidden"
    (hidden / "bin").mkdir(parents=True)
    (hidden / "bin" / "python3").write_text("")
    hidden.chmod(0o700)
    (open_tmp / "python").symlink_to(hidden / "bin" / "python3")
    blocked = blocked_path(open_tmp / "python", STRANGER)
    assert blocked is not None and blocked.path == hidden


# ---------------------------------------------------------------- the grader, from a course behind a 0700 folder


@pytest.mark.slow
@as_root
def test_without_bubblewrap_the_grader_refuses_in_one_line_naming_the_folder(tmp_path):
    python, private = _private_python(tmp_path)
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    done = _grade(python, course, "--sandbox", "auto", path=_without_bwrap())
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert _names_the_private_folder(errors[0], private), errors[0]
    assert "chmod o+x" in errors[0] and "install bubblewrap" in errors[0] and "--sandbox none" in errors[0]
    assert not (course / "graded" / "results.json").exists()


@pytest.mark.slow
@as_root
def test_sandbox_none_runs_as_root_there_and_says_why(tmp_path):
    python, private = _private_python(tmp_path)
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    done = _grade(python, course, "--sandbox", "none", path=_without_bwrap())
    assert done.returncode == 0, done.stderr[-2000:]
    assert "AS ROOT" in done.stderr and _names_the_private_folder(done.stderr, private), done.stderr[-2000:]
    assert results(course)["alice"]["score"] == EXERCISE.max_score


@pytest.mark.slow
@needs_bwrap
def test_bubblewrap_grades_a_course_behind_a_private_folder(tmp_path):
    python, _ = _private_python(tmp_path, own_packages=True)
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    done = _grade(python, course, "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    record = results(course)["alice"]
    assert (record["status"], record["score"]) == ("graded", EXERCISE.max_score), record["message"]


@pytest.mark.slow
@as_root
def test_nbgrader_autograde_fails_loudly_instead_of_recording_zero(tmp_path):
    python, private = _private_python(tmp_path)
    course = generated_course(tmp_path / "course")
    add_student(course, "alice")
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": _without_bwrap()}
    done = subprocess.run(
        [str(python), "-m", "nbgrader", "autograde", "ndcg", "--force", "--SandboxedExecute.sandbox=auto"],
        cwd=course, env=environment, capture_output=True, text=True, timeout=600,
    )
    log = done.stdout + done.stderr
    assert done.returncode != 0, log[-3000:]
    assert _names_the_private_folder(log, private), log[-3000:]
    assert not (course / "autograded" / "alice" / "ndcg" / "ndcg.ipynb").exists()
