"""Students who did nothing, and notebooks that do not even run, are told so in their own terms.

An unchanged release notebook is ``not attempted`` (a status of its own, apart in the report), not
"behaviour no known mistake explains"; a cell that fails is named as the student finds it ("the
cell that defines `dcg`", or "cell N of your notebook" counting every cell from the top), and the
hidden groups of a function whose cell did not run say that, not "raised Exception".
"""

from __future__ import annotations

import shutil

import nbformat
import pytest

from autograder.exercises.ndcg import EXERCISE

from grading_run import RELEASE, add_student, grade, new_course, notebook_path, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("attempted") / "course")
    untouched = notebook_path(course, "untouched")
    untouched.parent.mkdir(parents=True)
    shutil.copy(RELEASE, untouched)
    add_student(course, "syntax_error", dcg="import math\n\ndef dcg(rels, k)\n    return 0.0")
    add_student(course, "extra_cell_fails", extra=("1 / 0",))
    add_student(course, "honest")
    done = grade(course, "--gradebook", "none", "--timeout", "5", "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    return course, results(course)


def test_an_unchanged_release_is_not_attempted(graded):
    course, students = graded
    untouched = students["untouched"]
    assert untouched["status"] == "not attempted" and untouched["score"] == 0
    assert untouched["unexplained"] == {} and untouched["diagnoses"] == []
    report = (course / "graded" / "report.html").read_text(encoding="utf-8")
    assert "not attempted" in report
    assert students["honest"]["score"] == EXERCISE.max_score


def test_a_syntax_error_is_named_by_the_cell_the_student_sees(graded):
    student = graded[1]["syntax_error"]
    assert "the cell that defines `dcg` raised SyntaxError" in student["message"], student["message"]
    hidden_dcg = [t for t in student["tests"] if t["name"].startswith("test_dcg_") and not t["visible"]]
    for test in hidden_dcg:
        if not test["passed"]:
            assert "raised Exception" not in test["message"], test["message"]
            assert "did not run (SyntaxError)" in test["message"], test["message"]


def test_another_failing_cell_is_numbered_as_in_the_notebook(graded):
    course, students = graded
    notebook = nbformat.read(notebook_path(course, "extra_cell_fails"), as_version=4)
    number = next(i for i, cell in enumerate(notebook.cells, start=1) if cell.source == "1 / 0")
    message = students["extra_cell_fails"]["message"]
    assert f"cell {number} of your notebook raised ZeroDivisionError" in message, message
    assert students["extra_cell_fails"]["score"] == EXERCISE.max_score
