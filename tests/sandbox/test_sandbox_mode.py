"""The grader says how it grades: one mode line, in the batch's output and in nbgrader's (the formgrader's) log.

A JupyterHub's grader account often has no writable cgroup: its limits then hold per process only and
its time limits are wall-clock time. The tutor (and the hub admin reading the formgrader service's log)
learns it from one line naming the isolation and where the limits hold, checked here against what
this machine really offers (:func:`autograder.sandbox.resources.cgroups.detect`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.gradebook.scores import tool_environment
from autograder.sandbox.isolation.launch import PER_PROCESS_LIMITS
from autograder.sandbox.resources.cgroups import CgroupsUnavailable, detect
from autograder.sandbox.resources.limits import Limits

from grading_run import add_student, generated_course, grade

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the mode line of the bubblewrap sandbox"),
]


def _expected_limits() -> str:
    try:
        cgroups = detect(Limits())
    except CgroupsUnavailable:
        return PER_PROCESS_LIMITS
    try:
        return f"limited per sandbox by cgroup v{cgroups.version}"
    finally:
        cgroups.close()


def test_both_paths_name_the_sandbox_and_where_its_limits_hold(tmp_path):
    root = generated_course(tmp_path / "course")
    add_student(root, "ada")
    expected = _expected_limits()
    batch = grade(root, "--gradebook", "none", "--timeout", "5")
    assert batch.returncode == 0, batch.stderr[-2000:]
    lines = [line for line in batch.stdout.splitlines() if line.startswith("sandbox: ")]
    assert len(lines) == 1 and lines[0].startswith("sandbox: bubblewrap sandbox") and expected in lines[0], batch.stdout
    nbgrader = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", "ndcg", "--force"], cwd=root,
                              env=tool_environment(), capture_output=True, text=True, timeout=600)
    assert nbgrader.returncode == 0, nbgrader.stderr[-3000:]
    logged = [line for line in nbgrader.stderr.splitlines() if "sandbox: bubblewrap sandbox" in line]
    assert len(logged) == 1 and expected in logged[0], nbgrader.stderr[-3000:]
