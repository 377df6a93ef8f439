"""No sandbox, no score: nbgrader's autograde refuses loudly and leaves the gradebook as it was.

Once, without bubblewrap, the formgrader's Autograde button said "Successfully autograded" and
recorded 0/10 for a student who had 10. Now ``nbgrader autograde`` exits 1 with one line naming the
reason, the API the button calls returns ``success: False`` with that reason, and the gradebook
keeps what it had: no submission for a new student, the old score and timestamp for a graded one.
The "no bubblewrap" here is a PATH without ``bwrap`` (the course's config requires it); the
overloaded machine is the real deadline check with its factor lowered, as in
``tests/sandbox/test_machine_load.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook, MissingEntry

from autograder.course.autograde import preprocessor
from autograder.course.autograde.sandbox_guard import REFUSED
from autograder.course.materials.nbgrader_commands import run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.gradebook.scores import tool_environment
from autograder.sandbox.runs import deadline

from grading_run import add_student, generated_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading a first time needs bubblewrap here"),
]


@pytest.fixture
def course(tmp_path) -> Path:
    """A course where alice was graded (full marks) with the sandbox; bob submitted since."""
    root = generated_course(tmp_path / "course")
    add_student(root, "alice")
    run_nbgrader(root, "autograde", "ndcg", "--force")
    assert _score(root, "alice") == EXERCISE.max_score
    add_student(root, "bob")
    return root


def _score(root: Path, student: str) -> float | None:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        try:
            return float(gradebook.find_submission("ndcg", student).score)
        except MissingEntry:
            return None


def _students(root: Path) -> set[str]:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {student.id for student in gradebook.students}


def _path_without_bwrap() -> str:
    """A PATH with the venv's programs (nbgrader runs alembic) and nothing else: no bwrap on it."""
    assert shutil.which("bwrap", path=str(Path(sys.executable).parent)) is None
    return str(Path(sys.executable).parent)


def test_nbgrader_autograde_without_bubblewrap_exits_1_and_writes_no_score(course):
    env = {**tool_environment(), "PATH": _path_without_bwrap()}
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    done = subprocess.run([nbgrader, "autograde", "ndcg", "--force"], cwd=course, env=env, capture_output=True,
                          text=True, timeout=300)
    log = done.stdout + done.stderr
    assert done.returncode == 1, log[-2000:]
    [line] = [line for line in log.splitlines() if REFUSED in line]
    assert "bwrap is not installed" in line and "c.SandboxedExecute.sandbox" in line
    assert "Traceback" not in log
    assert _score(course, "alice") == EXERCISE.max_score  # not 0: the run changed nothing
    assert _score(course, "bob") is None and "bob" not in _students(course)
    assert (course / "autograded" / "alice" / "ndcg" / "ndcg.ipynb").is_file()


def _api(root: Path):
    """The API the formgrader's buttons call, configured from the course's nbgrader_config.py."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def test_the_autograde_button_without_bubblewrap_fails_with_the_reason(course, monkeypatch):
    monkeypatch.setenv("PATH", _path_without_bwrap())
    monkeypatch.setattr(preprocessor, "_SANDBOXES", {})  # this process may have found bwrap before
    result = _api(course).autograde("ndcg", "bob")
    assert result["success"] is False
    assert REFUSED in result["error"] and "bwrap is not installed" in result["error"]
    assert _score(course, "bob") is None and "bob" not in _students(course)
    assert not (course / "autograded" / "bob").exists()


def test_an_overloaded_machine_leaves_the_gradebook_as_it_was(course, monkeypatch):
    monkeypatch.chdir(course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        stamp = gradebook.find_submission("ndcg", "alice").timestamp
    (course / "submitted" / "alice" / "ndcg" / "timestamp.txt").write_text("2030-01-01 10:00:00.000000 UTC")
    api = _api(course)
    quiet = deadline.OVERLOAD_FACTOR
    # a wall-clock allowance far below what starting a sandbox takes: every run is "overloaded"
    monkeypatch.setattr(deadline, "OVERLOAD_FACTOR", 1e-4)
    for student in ("alice", "bob"):
        result = api.autograde("ndcg", student)
        assert result["success"] is False, student
        assert f"{student}: " in result["error"] and "the machine was overloaded" in result["error"], student
        assert REFUSED in result["log"]
    assert _score(course, "alice") == EXERCISE.max_score
    assert "bob" not in _students(course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_submission("ndcg", "alice").timestamp == stamp  # not the new submission's
    monkeypatch.setattr(deadline, "OVERLOAD_FACTOR", quiet)  # a quiet machine again: bob is graded
    assert api.autograde("ndcg", "bob")["success"] is True
    assert _score(course, "bob") == EXERCISE.max_score
    assert os.path.isfile(course / "autograded" / "bob" / "ndcg" / "ndcg.ipynb")


def test_a_bad_limit_in_nbgrader_config_refuses_autograde_in_one_line(tmp_path):
    root = generated_course(tmp_path / "course")
    add_student(root, "bob")
    with (root / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write("\nc.SandboxedExecute.memory_mb = -5\n")
    result = _api(root).autograde("ndcg", "bob")
    assert result["success"] is False
    refusal = next(line for line in result["error"].splitlines() if REFUSED in line)
    assert "c.SandboxedExecute.memory_mb must be a whole number of MiB from 64 to 1048576, got '-5'" in refusal
    assert "bob" not in _students(root) and not (root / "autograded" / "bob").exists()
