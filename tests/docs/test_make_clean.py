"""`make clean` deletes only what commands regenerate; grades go only with `make clean-grades CONFIRM=yes`."""

from __future__ import annotations

import shutil
import subprocess

from doc_commands import ROOT

STUDENT_WORK = ("submitted/alice/ndcg/ndcg.ipynb", "exchange/inbound/alice+ndcg+t/ndcg.ipynb", ".grading-secret")
GRADES = ("gradebook.db", "graded/results.json", "autograded/alice/ndcg/ndcg.ipynb",
          "feedback/alice/ndcg/ndcg.html", "grades.csv", "moodle.csv", "canvas.csv")
REGENERABLE = ("demo/graded/results.json", ".pytest_cache/x", "autograder/__pycache__/x.pyc")


def _course(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "Makefile", course)
    for name in STUDENT_WORK + GRADES + REGENERABLE:
        (course / name).parent.mkdir(parents=True, exist_ok=True)
        (course / name).write_text("x")
    return course


def _make(course, *args):
    return subprocess.run(["make", *args], cwd=course, capture_output=True, text=True, timeout=60)


def test_make_clean_keeps_student_work_and_grades(tmp_path):
    course = _course(tmp_path)
    assert _make(course, "clean").returncode == 0
    assert all((course / name).exists() for name in STUDENT_WORK + GRADES)
    assert not any((course / name).exists() for name in REGENERABLE)


def test_clean_grades_asks_first(tmp_path):
    course = _course(tmp_path)
    refused = _make(course, "clean-grades")
    assert refused.returncode != 0 and "Nothing was deleted" in refused.stdout
    assert all((course / name).exists() for name in STUDENT_WORK + GRADES)
    assert _make(course, "clean-grades", "CONFIRM=yes").returncode == 0
    assert not any((course / name).exists() for name in GRADES)
    assert all((course / name).exists() for name in STUDENT_WORK)
