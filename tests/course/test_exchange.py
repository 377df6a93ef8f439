"""A real exchange cycle on one machine: release, fetch, submit, collect, grade, release and fetch feedback.

The tutor's side runs in the course directory, the student's in a folder of their own; the
exchange is a temporary folder (on a JupyterHub it is the shared exchange directory).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from byhand_answers import answer_by_hand
from nbgrader.utils import get_username

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.course.materials.walkthrough import WALKTHROUGH_ASSIGNMENT
from autograder.exercises.ndcg import EXERCISE

from conftest import solution_code
from grading_run import generated_course, whole_course

pytestmark = pytest.mark.slow
COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's course id
NBGRADER = Path(sys.executable).parent / "nbgrader"


def test_release_fetch_submit_collect_grade_and_feedback(tmp_path):
    course = generated_course(tmp_path / "course")  # generate_assignment's run, shared (grading_run)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)  # as nbgrader's docs ask of a shared exchange
    student = tmp_path / "student"
    student.mkdir()

    def nbgrader(cwd, *args):
        done = subprocess.run(
            [str(NBGRADER), *args, f"--Exchange.root={exchange}"], cwd=cwd,
            env=tool_environment(), capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, (args, done.stderr[-2000:])
        return done

    nbgrader(course, "release_assignment", "ndcg", "--force")
    nbgrader(student, "fetch_assignment", "ndcg", "--course", COURSE_ID)
    fetched = student / "ndcg" / "ndcg.ipynb"
    source = nbformat.read(course / "source" / "ndcg" / "ndcg.ipynb", as_version=4)
    filled = fill_solutions(nbformat.read(fetched, as_version=4), solution_code(source))
    nbformat.write(answer_by_hand(filled, get_username()), fetched)  # Task 1.2 for the id the exchange files under
    nbgrader(student, "submit", "ndcg", "--course", COURSE_ID)
    nbgrader(course, "collect", "ndcg")
    (submitted,) = (course / "submitted").iterdir()  # the student's id is their login name
    assert (submitted / "ndcg" / "timestamp.txt").is_file()

    graded = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--quiet", "--sandbox", "auto"], cwd=course,
        env=tool_environment(), capture_output=True, text=True, timeout=600,
    )
    assert graded.returncode == 0, graded.stderr[-2000:]
    assert gradebook_scores(course) == {submitted.name: (EXERCISE.max_score, EXERCISE.max_score)}

    nbgrader(course, "release_feedback", "ndcg")
    nbgrader(student, "fetch_feedback", "ndcg", "--course", COURSE_ID)
    (page,) = (student / "ndcg" / "feedback").rglob("ndcg.html")
    text = page.read_text(encoding="utf-8")
    assert f"{EXERCISE.max_score:g} / {EXERCISE.max_score:g}" in text and "Feedback on ndcg" in text


def test_the_walkthrough_reaches_students_through_the_exchange(tmp_path):
    course = whole_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)
    student = tmp_path / "student"
    student.mkdir()
    for cwd, args in (
        (course, ("release_assignment", WALKTHROUGH_ASSIGNMENT, "--force")),
        (student, ("fetch_assignment", WALKTHROUGH_ASSIGNMENT, "--course", COURSE_ID)),
    ):
        done = subprocess.run(
            [str(NBGRADER), *args, f"--Exchange.root={exchange}"], cwd=cwd,
            env=tool_environment(), capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, (args, done.stderr[-2000:])
    fetched = sorted(p.name for p in (student / WALKTHROUGH_ASSIGNMENT).glob("*.ipynb"))
    assert fetched == sorted(p.name for p in (course / "notebooks").glob("*.ipynb"))
    assert all("ndcg_ref" not in p.read_text() for p in (student / WALKTHROUGH_ASSIGNMENT).glob("*.ipynb"))
