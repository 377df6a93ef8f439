"""The course's gradebook is the course folder's, whichever folder nbgrader runs in.

A JupyterHub's formgrader service runs in the grader's home with the course as its
``CourseDirectory.root``. With the config's old relative ``sqlite:///gradebook.db``, nbgrader opened
(and created) ``gradebook.db`` in the home: the service showed a second, empty gradebook. Here the
same set-up with a real ``nbgrader`` command run in a "home" whose ``nbgrader_config.py`` names the
course (in a folder with a space) as its root, as nbgrader's multiple-courses recipe writes it.
"""

from __future__ import annotations

import subprocess

import pytest
from nbgrader.api import Gradebook

from autograder.gradebook.scores import tool_environment

from grading_run import generated_course

pytestmark = [pytest.mark.slow]


def test_nbgrader_in_another_folder_opens_the_courses_gradebook(tmp_path):
    course = generated_course(tmp_path / "a course")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "ir-ranking-evaluation") as gradebook:
        gradebook.add_student("ada", first_name="Ada")
    home = tmp_path / "grader home"
    home.mkdir()
    (home / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\n",
                                             encoding="utf-8")
    listed = subprocess.run(["nbgrader", "db", "student", "list"], cwd=home, env=tool_environment(),
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "ada (None, Ada)" in listed.stdout
    assert not (home / "gradebook.db").exists()
