"""The students' nbgrader settings come from the course's own: course id and exchange; on a hub, no course id."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.setup.student_config import KERNEL_ENCRYPTION, hub_student_config, student_config
from autograder.errors import CourseError

from grading_run import ROOT


def _course(tmp_path, extra: str = ""):
    course = tmp_path / "course"
    course.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    if extra:
        with (course / "nbgrader_config.py").open("a") as config:
            config.write(extra)
    return course


def _load(text: str, tmp_path):
    (tmp_path / "student").mkdir(exist_ok=True)
    (tmp_path / "student" / "nbgrader_config.py").write_text(text)
    return PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path / "student")).load_config()


def test_the_default_exchange_is_the_course_s_own_folder(tmp_path):
    course = _course(tmp_path)
    course_config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    settings = _load(student_config(course), tmp_path)
    assert settings.CourseDirectory.course_id == course_config.CourseDirectory.course_id
    assert settings.Exchange.root == str(course.resolve() / "exchange") == course_config.Exchange.root
    assert (course / "exchange").is_dir()  # made by the config, so the formgrader finds it before a release
    assert course_config.CourseDirectory.root == str(course.resolve())  # absolute: no "root '.'" warning


def test_a_changed_exchange_reaches_the_students(tmp_path):
    shared = tmp_path / "shared-exchange"
    course = _course(tmp_path, f"\nc.Exchange.root = {str(shared)!r}\n")
    assert _load(student_config(course), tmp_path).Exchange.root == str(shared)
    assert not shared.exists()  # only the course's own default folder is ever created


def test_no_course_id_is_one_line(tmp_path):
    course = _course(tmp_path, "\nc.CourseDirectory.course_id = ''\n")
    with pytest.raises(CourseError, match=r"sets no c\.CourseDirectory\.course_id"):
        student_config(course)


def test_a_broken_config_is_one_line(tmp_path):
    course = _course(tmp_path, "\ndef (:\n")
    with pytest.raises(CourseError, match=r"cannot load .*nbgrader_config\.py: SyntaxError"):
        student_config(course)


# --- a JupyterHub's file (student-config --hub): every course of the hub, none pinned -------------------------------

def test_the_hub_file_names_no_course_and_shares_the_exchange(tmp_path):
    shared = tmp_path / "srv" / "exchange"
    course = _course(tmp_path, f"\nc.Exchange.root = {str(shared)!r}\n")
    text = hub_student_config(course)
    settings = _load(text, tmp_path)
    assert "course_id" not in settings.CourseDirectory  # a course id would hide every other course
    assert settings.Exchange.root == str(shared)
    assert settings.Exchange.path_includes_course is True
    # nbgrader itself resolves the plugin named there: its JupyterHub one
    from nbgrader.auth import Authenticator, JupyterHubAuthPlugin

    assert isinstance(Authenticator(config=settings).plugin, JupyterHubAuthPlugin)


def test_the_hub_file_refuses_an_exchange_inside_the_course(tmp_path):
    course = _course(tmp_path)  # the default: exchange/ in the course folder, which the hub's students must not reach
    with pytest.raises(CourseError, match=r"exchange .* is inside the course folder.*c\.Exchange\.root"):
        hub_student_config(course)
    assert student_config(course)  # the one-account file is still fine


def test_the_command_line_writes_the_hub_file(tmp_path):
    shared = tmp_path / "srv" / "exchange"
    course = _course(tmp_path, f"\nc.Exchange.root = {str(shared)!r}\n")
    done = subprocess.run([sys.executable, "-m", "autograder", "student-config", "--hub"], cwd=course,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == hub_student_config(course)
    refused = subprocess.run([sys.executable, "-m", "autograder", "student-config", "--hub"], cwd=_course(tmp_path / "b"),  # default exchange
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "inside the course folder" in refused.stderr


# --- what the students' (and the course's) file does for `nbgrader validate` ----------------------------------------

def _validate(folder, home):
    """``nbgrader validate`` on the released notebook in ``folder`` (whose nbgrader_config.py it reads), as a student."""
    shutil.copy(ROOT / "release" / "ndcg" / "ndcg.ipynb", folder)
    env = {**os.environ, "HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JUPYTER_CONFIG_DIR", None)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "validate", "ndcg.ipynb"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_validate_with_the_students_file_prints_no_tcp_warning(tmp_path):
    course = _course(tmp_path)
    text = student_config(course)
    assert KERNEL_ENCRYPTION in text and KERNEL_ENCRYPTION in hub_student_config(
        _course(tmp_path / "hub", f"\nc.Exchange.root = {str(tmp_path / 'srv')!r}\n"))
    runs = {}
    for name, config in (("with", text), ("without", text.replace(KERNEL_ENCRYPTION, ""))):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "nbgrader_config.py").write_text(config, encoding="utf-8")
        runs[name] = _validate(folder, tmp_path)
    assert "Validating" in runs["with"] and "VALIDATION FAILED" in runs["with"]  # it ran the (unanswered) notebook
    assert "without encryption" not in runs["with"], runs["with"][-2000:]
    assert "without encryption" in runs["without"]  # what students saw before: the check can fail
    # the course's own file (the tutor's and the formgrader's validate) asks the same
    course_config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    assert course_config.KernelManager.transport_encryption == "auto"
