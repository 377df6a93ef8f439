"""The students' nbgrader settings come from the course's own: course id and exchange."""

from __future__ import annotations

import shutil

import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.student_config import student_config
from autograder.errors import CourseError

from grading_run import ROOT


def _course(tmp_path, extra: str = ""):
    course = tmp_path / "course"
    course.mkdir()
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
