"""Threat: an answer cell that takes the grader's memory or stack, on both grading paths.

The issue's attacks, each in Task 1.2's answer cell of a notebook whose code is right: a 7.2 MB
``DCG_AT_K = 1+1+…+1`` (took the grader to 1.76 GB), a 1,500-term sum and a 400-digit literal
(each an internal grader error: 0 of 15, the code points lost too), ``((((…``, ``-(-(-…`` and
``- - - …`` nests. Graded by nbgrader's own ``autograde`` (the course's SandboxedExecute) and by
``python -m autograder grade`` on two copies of one course: each costs only the by-hand steps the
kit's marking gives it (from ``ndcg_ref``'s values), the code keeps its points, both gradebooks
agree, and the copying report reads the class and names who it could not compare.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from byhand_answers import gradebook_scores, own_answers, submit_by_hand

from autograder.byhand.copied import write_report
from autograder.byhand.salt import release_variant
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.answers import read_answers
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS, mark

from grading_run import add_student, generated_course, grade, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]

COURSE_ID = "ir-ranking-evaluation"  # the course's c.CourseDirectory.course_id
CODE_POINTS = EXERCISE.max_score - MAX_SCORE
#: Each bomb replaces DCG_AT_K in the student's own right answers (the 7.2 MB one is the whole cell).
BOMBS = {
    "sum7mb": "+".join(["1"] * 3_600_000),
    "sum1500": "+".join(["1"] * 1_500),
    "digits400": "9" * 400,
    "parens": "(" * 300 + "1" + ")" * 300,
    "negations": "-(" * 2_000 + "1" + ")" * 2_000,
    "signs": "-" * 5_000 + "1",
}


def _cell(release: nbformat.NotebookNode, student: str, bomb: str) -> str:
    lines = own_answers(release, student).splitlines()
    return "\n".join(f"DCG_AT_K = {bomb}" if line.startswith("DCG_AT_K") else line for line in lines)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("byhand-bombs")
    template = generated_course(base / "template")  # the release nbgrader generated, once per run
    release = nbformat.read(template / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    cells = {"ada": own_answers(release, "ada")}
    cells.update({student: _cell(release, student, bomb) for student, bomb in BOMBS.items()})
    for student, cell in cells.items():
        submit_by_hand(add_student(template, student, by_hand=None), student, None, cell)
    courses = {path: shutil.copytree(template, base / path) for path in ("nbgrader", "batch")}
    run_nbgrader(courses["nbgrader"], "autograde", ASSIGNMENT, "--force")
    done = grade(courses["batch"], "--sandbox", "required", "--workers", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    grade_ids = [step.grade_id for step in STEPS]
    read = {path: gradebook_scores(course / "gradebook.db", COURSE_ID, ASSIGNMENT, grade_ids)
            for path, course in courses.items()}
    return courses, read, results(courses["batch"]), cells


def _expected(course, cells: dict[str, str]) -> dict:
    """Each student's by-hand steps as the kit marks their answer cell, against ``ndcg_ref``'s values."""
    salt, pool = release_variant(course, NDCG)
    return {student: mark(student, read_answers(cell), student_list(student, salt, pool), CUTOFF)
            for student, cell in cells.items()}


def test_each_bomb_costs_only_its_by_hand_steps_on_both_paths(both):
    courses, read, ours, cells = both
    for student in ("ada", *BOMBS):
        assert ours[student]["status"] == "graded", (student, ours[student]["message"])
        assert ours[student]["score"] >= CODE_POINTS, student  # the code keeps its points, whatever the answers
    assert read["batch"] == read["nbgrader"]
    expected = _expected(courses["batch"], cells)
    for student in ("ada", *BOMBS):
        steps = {test.name: test.points for test in expected[student].tests}
        for scores in read.values():
            assert {grade_id: scores[student][grade_id] for grade_id in steps} == pytest.approx(steps), student
            assert scores[student]["total"] == pytest.approx(CODE_POINTS + sum(steps.values())), student
        assert ours[student]["score"] == pytest.approx(CODE_POINTS + sum(steps.values())), student
    for student in BOMBS:  # the bomb is refused: its step scores nothing and says why, in one line
        dcg = next(test for test in ours[student]["tests"] if test["name"] == "byhand_dcg")
        assert dcg["points"] == 0 and "no points" in dcg["message"] and "\n" not in dcg["message"], dcg
    assert expected["ada"].score == MAX_SCORE


def test_the_copying_report_reads_the_class_and_names_the_refused_answers(both):
    courses, _, _, _ = both
    course = courses["batch"]
    summary = write_report(course, NDCG, course / "submitted", course / "graded" / "copying.html", 0.8)
    assert summary.startswith(f"{1 + len(BOMBS)} students:"), summary
    assert "\n  sum7mb (Task 1.2 answers): the answer cell has 7,200,0" in summary, summary
