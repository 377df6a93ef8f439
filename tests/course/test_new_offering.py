"""A new offering of the course gets its own course id, Task 1.2 salt and grading secret, before anything is handed in.

Two offerings on one machine met in one exchange under the one fixed course id, and every offering's
by-hand lists came from one salt. ``python -m autograder new-offering ID`` is run here in a
generated course (its gradebook made by nbgrader), and refused in one with a submission.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.setup.secret import SECRET_NAME, course_secret
from autograder.course_config import course_config
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant

from grading_run import ROOT, add_student, generated_course

pytestmark = [pytest.mark.slow]


def _new_offering(root: Path, course_id: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "new-offering", "--", course_id], cwd=root,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)


def _salt(root: Path) -> str:
    return published_variant(nbformat.read(root / "source" / "ndcg" / "ndcg.ipynb", as_version=4))[0]


def test_a_new_offering_gets_its_own_id_salt_and_secret(tmp_path):
    root = generated_course(tmp_path / "course")
    old_salt, old_secret = _salt(root), course_secret(root)
    done = _new_offering(root, "ir-ws2027")
    assert done.returncode == 0, done.stderr[-2000:]
    assert course_config(root).CourseDirectory.course_id == "ir-ws2027"
    salt = _salt(root)
    assert salt != old_salt and salt.startswith("ir-ws2027-byhand-") and salt in done.stdout
    assert not (root / SECRET_NAME).exists() and course_secret(root) != old_secret
    again = _new_offering(root, "ir-ws2027")  # a fresh salt each time: never one a past offering could know
    assert again.returncode == 0 and _salt(root) != salt


def test_an_offering_with_submissions_keeps_its_identity(tmp_path):
    root = generated_course(tmp_path / "course")
    add_student(root, "ada")
    config, salt = (root / "nbgrader_config.py").read_text(encoding="utf-8"), _salt(root)
    refused = _new_offering(root, "ir-ws2027")
    assert refused.returncode == 2
    assert "has submissions (1 in submitted/)" in refused.stderr and "Traceback" not in refused.stderr
    assert (root / "nbgrader_config.py").read_text(encoding="utf-8") == config and _salt(root) == salt


@pytest.mark.parametrize("course_id", ["../up", "a b", "", "-x", "x" * 65, "ir\nc.Exchange.root = '/'"])
def test_a_course_id_that_is_no_safe_name_is_refused(tmp_path, course_id):
    root = generated_course(tmp_path / "course")
    config = (root / "nbgrader_config.py").read_text(encoding="utf-8")
    refused = _new_offering(root, course_id)
    assert refused.returncode == 2 and "a course id is" in refused.stderr
    assert (root / "nbgrader_config.py").read_text(encoding="utf-8") == config
