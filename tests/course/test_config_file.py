"""The course's nbgrader_config.py is loaded once per version of the file (a grade run asked four times)."""

from __future__ import annotations

import os
import shutil

import pytest

from autograder.course_config import course_config
from autograder.errors import CourseError

from grading_run import ROOT


def test_loaded_once_per_version_and_each_caller_gets_its_own_copy(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    counter = tmp_path / "loads"
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        # counts its own loads: nbgrader's loader runs the file each time it loads it
        config.write(f"\nwith open({str(counter)!r}, 'a') as _loads:\n    _loads.write('x')\n")
    first = course_config(course)
    second = course_config(course)
    assert counter.read_text() == "x"  # one load for both
    assert first == second and first is not second
    second.CourseDirectory.course_id = "changed by a caller"
    assert course_config(course).CourseDirectory.course_id == first.CourseDirectory.course_id
    # an edited file (another size, another time) is loaded again
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write("\nc.CourseDirectory.course_id = 'edited'\n")
    stat = (course / "nbgrader_config.py").stat()
    os.utime(course / "nbgrader_config.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert course_config(course).CourseDirectory.course_id == "edited"
    assert counter.read_text() == "xx"


def test_outside_a_course_an_empty_config_and_a_broken_file_one_line(tmp_path):
    assert course_config(None) == course_config(tmp_path) == type(course_config(None))()
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Exchange.root = undefined_name\n")
    with pytest.raises(CourseError, match=r"cannot load .*nbgrader_config.py: NameError"):
        course_config(tmp_path)
