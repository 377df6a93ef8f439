"""Without the kit, nothing is graded: nbgrader's commands and the formgrader's server stop with one line.

A JupyterHub's usual environment has nbgrader but not this kit. There, the course's
``nbgrader_config.py`` could not import the kit; nbgrader *ignores* a config file that raises and
then grades with its own ``Execute``: the student's code ran as the grader, unsandboxed, and the
hidden tests were written into ``autograded/``. The config now ends the command itself (exit 2, one
line naming the environment to use) before anything reads a submission or touches the gradebook.

The environment without the kit is a real one (:mod:`without_the_kit`, shared with the hub test):
a new venv that sees this venv's installed packages but not the kit. Its Python runs with ``-I``,
so neither the course folder nor ``PYTHONPATH`` brings the kit in. The control runs the same
command with the config's old ending (the import error raised): nbgrader then grades with its own
``Execute`` and the student's cell writes the canary, so the test can fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grading_run import add_student, generated_course, gradebook_submissions
from without_the_kit import make_environment_without_the_kit

pytestmark = [pytest.mark.slow, pytest.mark.cold_start]

#: What the student's first cell does when it runs: write this file next to the course (a canary of the test's own).
CANARY_CELL = "open({path!r}, 'w').write('ran as the grader')"
#: The config's sentinel ends the command; the control puts back what the config did before it: raise.
SENTINEL_END = "    raise SystemExit(2) from None\n"


@pytest.fixture(scope="module")
def python_without_the_kit(tmp_path_factory) -> Path:
    """A Python that imports nbgrader and Jupyter (this venv's) but cannot import the kit."""
    return make_environment_without_the_kit(tmp_path_factory.mktemp("no-kit") / "env")


@pytest.fixture
def course(tmp_path) -> tuple[Path, Path]:
    """A generated course where mallory handed in a notebook whose first cell writes a canary when run."""
    canary = tmp_path / "canary"
    root = generated_course(tmp_path / "course")
    add_student(root, "mallory", extra=(CANARY_CELL.format(path=str(canary)),))
    return root, canary


def _environment(tmp_path: Path) -> dict[str, str]:
    """The caller's environment with Jupyter's runtime and data folders in the test's own folder."""
    return {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_DATA_DIR": str(tmp_path / "data"),
            "JUPYTER_CONFIG_PATH": str(Path(sys.prefix) / "etc" / "jupyter")}



def _refused_in_one_line(result: subprocess.CompletedProcess, python: Path, root: Path) -> None:
    lines = [line for line in result.stderr.splitlines() if "nbgrader_config.py:" in line]
    assert result.returncode == 2, result.stderr[-3000:]
    assert len(lines) == 1, result.stderr[-3000:]
    assert str(python) in lines[0] and "cannot import" in lines[0]
    assert str(root / ".venv" / "bin") in lines[0] and "Nothing was graded" in lines[0]
    assert "Traceback" not in result.stderr


def test_nbgrader_autograde_without_the_kit_grades_nothing(python_without_the_kit, course, tmp_path):
    root, canary = course
    result = subprocess.run([python_without_the_kit, "-I", "-m", "nbgrader", "autograde", "ndcg", "--force"],
                            cwd=root, env=_environment(tmp_path), capture_output=True, text=True, timeout=300)
    _refused_in_one_line(result, python_without_the_kit, root)
    assert not canary.exists()
    assert not (root / "autograded").exists()
    assert gradebook_submissions(root) == []


def test_the_formgrader_server_without_the_kit_does_not_start(python_without_the_kit, course, tmp_path):
    root, _ = course
    result = subprocess.run(
        [python_without_the_kit, "-I", "-m", "jupyter_server", "--no-browser", "--ServerApp.port=0",
         "--ServerApp.port_retries=0", "--ServerApp.token=test", "--allow-root"],
        cwd=root, env=_environment(tmp_path), capture_output=True, text=True, timeout=300,
    )
    _refused_in_one_line(result, python_without_the_kit, root)


def test_control_without_the_sentinel_nbgrader_grades_unsandboxed(python_without_the_kit, course, tmp_path):
    """What the sentinel prevents, shown: the config's import error alone lets nbgrader run the cell as the grader."""
    root, canary = course
    config = root / "nbgrader_config.py"
    text = config.read_text(encoding="utf-8")
    assert text.count(SENTINEL_END) == 1
    config.write_text(text.replace(SENTINEL_END, "    raise\n"), encoding="utf-8")
    subprocess.run([python_without_the_kit, "-I", "-m", "nbgrader", "autograde", "ndcg", "--force"],
                   cwd=root, env=_environment(tmp_path), capture_output=True, text=True, timeout=300)
    assert canary.read_text(encoding="utf-8") == "ran as the grader"
