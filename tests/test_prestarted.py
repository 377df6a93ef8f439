"""A command forked from the pre-started interpreter (prestarted.py) gives what a new process gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import prestarted
import pytest

from grading_run import ROOT, whole_course

pytestmark = pytest.mark.slow  # starts nbgrader and the grader as programs


def _both(args: list[str], cwd: Path, env: dict | None = None) -> tuple[subprocess.CompletedProcess, ...]:
    kind = prestarted.command_kind(args)
    assert kind is not None
    cold = prestarted.real_run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    forked = prestarted.run_forked(args, kind, cwd=cwd, env=env, text=True, timeout=120)
    return cold, forked


def test_an_error_exit_its_message_and_the_folder_are_the_same(tmp_path):
    # no submitted/ folder here: the grader refuses in one line with exit 2
    cold, forked = _both([sys.executable, "-m", "autograder", "grade", "--quiet"], tmp_path)
    assert cold.returncode == 2 and "submitted" in cold.stderr
    assert (forked.returncode, forked.stdout, forked.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_nbgraders_output_is_the_same(tmp_path):
    course = whole_course(tmp_path / "course")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    args = [prestarted.NBGRADER, "db", "student", "add", "ada", "--last-name=Lovelace"]
    cold = prestarted.real_run(args, cwd=course, env=env, capture_output=True, text=True, timeout=120)
    listed = [prestarted.NBGRADER, "db", "student", "list"]
    cold_list, forked_list = _both(listed, course, env)
    assert cold.returncode == 0 and "ada" in cold_list.stdout + cold_list.stderr
    assert (forked_list.returncode, forked_list.stdout) == (cold_list.returncode, cold_list.stdout)


def test_a_command_past_its_timeout_is_killed_and_says_so(tmp_path):
    whole_course(tmp_path / "course")
    with pytest.raises(subprocess.TimeoutExpired):
        prestarted.run_forked([sys.executable, "-m", "autograder", "demo"], "autograder", cwd=tmp_path / "course",
                              timeout=0.05)


def test_a_missing_folder_is_refused_as_subprocess_refuses_it(tmp_path):
    with pytest.raises(FileNotFoundError):
        prestarted.real_run([prestarted.NBGRADER, "--version"], cwd=tmp_path / "gone", capture_output=True)
    with pytest.raises(FileNotFoundError):
        prestarted.run_forked([prestarted.NBGRADER, "--version"], "nbgrader", cwd=tmp_path / "gone")


def test_a_copy_of_the_kit_starts_cold(tmp_path):
    copy = tmp_path / "kit"
    (copy / "autograder").mkdir(parents=True)
    (copy / "autograder" / "__init__.py").write_text("")
    assert not prestarted.imports_this_kit("autograder", copy, {})
    assert not prestarted.imports_this_kit("nbgrader", tmp_path, {"PYTHONPATH": str(copy)})
    assert prestarted.imports_this_kit("nbgrader", copy, {})  # nbgrader does not look in its folder
    assert prestarted.imports_this_kit("autograder", tmp_path, {"PYTHONPATH": str(ROOT)})


def test_only_captured_commands_of_nbgrader_and_the_grader_are_forked():
    assert prestarted.command_kind([prestarted.NBGRADER, "--version"]) == "nbgrader"
    assert prestarted.command_kind([sys.executable, "-m", "autograder", "grade"]) == "autograder"
    assert prestarted.command_kind([sys.executable, "-m", "nbgrader"]) is None
    assert prestarted.command_kind("nbgrader --version") is None
