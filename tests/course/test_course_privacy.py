"""A course folder other accounts can read (it holds the hidden tests) is refused, or with the tutor's word warned about.

On a JupyterHub with the usual 0755 homes, any account read the checkout: the source notebook with
``BEGIN HIDDEN TESTS``, the exercise's cases, the gradebook, every student's work. ``grade``,
``release`` and ``nbgrader autograde`` now refuse such a course in one line naming the ``chmod``;
``--allow-readable-course`` or ``c.CoursePrivacy.allow_readable_course = True`` go on with one
warning. pytest's own temporary folders sit in a 0700 folder, so the open courses here are made in a
folder of the test's own under the system's temporary folder, opened to all (0755) and removed after.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.course.setup.privacy import ALLOW_OPTION, open_way
from autograder.gradebook.scores import tool_environment

from grading_run import ROOT, add_student, generated_course, grade, gradebook_submissions, results

CHMOD = "chmod 700"


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A new folder all accounts may enter, under a temporary folder all accounts may enter (``/tmp``)."""
    folder = Path(tempfile.mkdtemp(prefix="ndcg-open-course-"))
    folder.chmod(0o755)
    if open_way(folder) is None:
        shutil.rmtree(folder)
        pytest.skip(f"{Path(tempfile.gettempdir())} or a folder above it keeps other accounts out here")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _course(folder: Path) -> Path:
    root = generated_course(folder / "course")
    root.chmod(0o755)
    add_student(root, "ada")
    return root


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    return subprocess.run([nbgrader, *args], cwd=root, env=tool_environment(), capture_output=True, text=True,
                          timeout=600)



def test_the_way_is_open_only_when_every_folder_lets_others_in(open_folder):
    inner = open_folder / "a" / "b"
    inner.mkdir(parents=True)
    for folder in (open_folder / "a", inner):
        folder.chmod(0o755)
    way = open_way(inner)
    assert way is not None and way.folders[-1][0] == inner and way.folders[-1][2] == "all accounts"
    (open_folder / "a").chmod(0o711)  # search alone is enough to read a file whose name is known
    assert open_way(inner) is not None
    (open_folder / "a").chmod(0o700)  # one closed folder on the way keeps everyone out
    assert open_way(inner) is None
    (open_folder / "a").chmod(0o755)
    inner.chmod(0o700)
    assert open_way(inner) is None


def test_a_group_whose_only_member_is_the_owner_lets_no_one_in(open_folder):
    mine = os.stat(open_folder)
    group_members = [entry for entry in pwd.getpwall() if entry.pw_gid == mine.st_gid]
    if len(group_members) != 1 or grp.getgrgid(mine.st_gid).gr_mem:
        pytest.skip("this user's primary group has other members here")
    open_folder.chmod(0o750)
    assert open_way(open_folder) is None


@pytest.mark.slow
def test_grade_refuses_an_open_course_in_one_line(open_folder):
    root = _course(open_folder)
    refused = grade(root, "--gradebook", "none")
    assert refused.returncode == 2, refused.stderr[-2000:]
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{CHMOD} {root}" in lines[0] and ALLOW_OPTION in lines[0]
    assert not (root / "graded").exists()


@pytest.mark.slow
def test_grade_goes_on_with_one_warning_when_allowed(open_folder):
    root = _course(open_folder)
    allowed = grade(root, "--gradebook", "none", ALLOW_OPTION, "--timeout", "5")
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    assert allowed.stderr.count("warning: the course folder") == 1
    assert results(root)["ada"]["score"] == results(root)["ada"]["max_score"]


@pytest.mark.slow
def test_the_course_setting_allows_it_for_grade_and_nbgrader(open_folder):
    root = _course(open_folder)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\nc.CoursePrivacy.allow_readable_course = True\n")
    done = _nbgrader(root, "autograde", "ndcg")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "can be read by other accounts" in done.stderr
    assert gradebook_submissions(root) == ["ada"]


@pytest.mark.slow
def test_nbgrader_autograde_refuses_an_open_course_before_any_submission(open_folder):
    root = _course(open_folder)
    refused = _nbgrader(root, "autograde", "ndcg")
    assert refused.returncode == 1
    assert f"{CHMOD} {root}" in refused.stderr
    assert not (root / "autograded").exists()
    assert gradebook_submissions(root) == []


@pytest.mark.slow
def test_release_refuses_an_open_course(open_folder):
    root = _course(open_folder)
    before = (root / "release" / "ndcg" / "ndcg.ipynb").stat().st_mtime_ns
    refused = subprocess.run([sys.executable, "-m", "autograder", "release"], cwd=root, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert refused.returncode == 2
    assert f"{CHMOD} {root}" in refused.stderr
    assert (root / "release" / "ndcg" / "ndcg.ipynb").stat().st_mtime_ns == before


@pytest.mark.slow
def test_a_closed_course_grades_without_a_word(tmp_path):
    root = generated_course(tmp_path / "course")
    assert open_way(root) is None  # pytest's folders are in a 0700 one
    add_student(root, "ada")
    done = grade(root, "--gradebook", "none", "--timeout", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "can be read by other accounts" not in done.stderr
