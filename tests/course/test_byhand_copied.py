"""Task 1.2 answers that fit a classmate's list: no follow-through on either grading path, and every output says so.

cop hands in ada's numbers. cop's own list has ada's grades in another order (the same iDCG@k, another
DCG@k), so cop's nDCG@k is cop's "own" DCG / iDCG and follow-through would credit it: the copy earned
a point and nothing flagged it (issue 33.2). Graded by nbgrader's own autograde (the course's
``SandboxedExecute``) and by ``python -m autograder grade`` on two copies of one course: the same
points, the point withheld, the student's page saying why, and results.json, the report (with
the classmate's id, and the copying report's link) and the terminal table naming ada. A classmate
who submits after a first grading flags a saved result; the course setting credits the point.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from byhand_answers import answer_cell, copier_of, gradebook_scores, submit_by_hand
from graded_outputs import table_rows

from autograder.byhand.salt import release_variant
from autograder.course.autograde.grade_settings import course_grade_settings
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, run_nbgrader
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.answered_part import mark_answers
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, DERIVATION_ID, derivation_source
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import OTHER_LIST, STEPS
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE
from autograder.exercises.ndcg.byhand.steps import right_steps
from autograder.grading import SCHEMA_VERSION, Classmates

from copying_report import copying_report, report_table
from grading_run import ROOT, add_student, generated_course, grade, new_course, results

COURSE_ID = "ir-ranking-evaluation"  # the course's c.CourseDirectory.course_id
POINTS = {step.grade_id: step.points for step in STEPS}


def _by_hand(course, student: str, source: str) -> None:
    add_student(course, student, by_hand=None)
    submit_by_hand(course / "submitted" / student / ASSIGNMENT / "ndcg.ipynb", student, None, source)


def _grade_with_table(course) -> subprocess.CompletedProcess:
    """``python -m autograder grade`` with its table, as a tutor runs it."""
    return subprocess.run([sys.executable, "-m", "autograder", "grade", "--sandbox", "required"],
                          cwd=course, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("byhand-copied")
    template = generated_course(base / "template")  # the release nbgrader generated, once per run
    salt, pool = release_variant(template, NDCG)
    cop = copier_of("ada", salt, pool)
    add_student(template, "ada")  # ada's own list, worked out right
    add_student(template, "bob")
    _by_hand(template, cop, answer_cell(right_steps(student_list("ada", salt, pool), CUTOFF)))
    courses = {path: shutil.copytree(template, base / path) for path in ("nbgrader", "batch")}
    run_nbgrader(courses["nbgrader"], "autograde", ASSIGNMENT, "--force")
    run_nbgrader(courses["nbgrader"], "generate_feedback", ASSIGNMENT, "--force")
    done = grade(courses["batch"], "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    read = {path: gradebook_scores(course / "gradebook.db", COURSE_ID, ASSIGNMENT, list(POINTS))
            for path, course in courses.items()}
    return courses, cop, read, done


@pytest.mark.slow
def test_no_follow_through_for_a_classmate_s_numbers_on_either_path(both):
    courses, cop, read, _ = both
    assert read["batch"] == read["nbgrader"]
    for scores in read.values():
        # ada's DCG is not cop's; the iDCG is (the same grades); the division of the two is ada's nDCG
        assert {grade_id: scores[cop][grade_id] for grade_id in POINTS} == {**POINTS, "byhand_dcg": 0,
                                                                             "byhand_ndcg": 0}
        assert scores["ada"] == {**scores["ada"], **POINTS} and scores["bob"] == {**scores["bob"], **POINTS}
    pages = [courses["batch"] / "graded" / "feedback" / cop / "ndcg.html",
             courses["nbgrader"] / "feedback" / cop / ASSIGNMENT / "ndcg.html"]
    for page in pages:  # why, in plain words, on the page the student reads (whichever path wrote it)
        assert OTHER_LIST in page.read_text(encoding="utf-8"), page


@pytest.mark.slow
def test_every_main_output_names_the_classmate_and_the_copying_report(both):
    courses, cop, _, done = both
    course = courses["batch"]
    ours = results(course)
    assert json.loads((course / "graded" / "results.json").read_text())["schema_version"] == SCHEMA_VERSION
    assert (ours[cop]["copied_from"], ours["ada"]["copied_from"], ours["bob"]["copied_from"]) == ("ada", None, None)
    report = (course / "graded" / "report.html").read_text(encoding="utf-8")
    look = report_table(report, "look")  # the one "Who needs a look" table: the reason and the classmate, linked
    assert f">{cop}</a></td><td>Task 1.2 answers fit the list of ada" in look and "bob" not in look
    assert '<a href="feedback/ada/ndcg.html">ada</a>' in look
    assert '<code id="copying-report">python -m autograder copying</code>' in report  # not written yet: how to
    assert "copying report: not written yet" in done.stdout
    copying_report(course)  # the tutor writes it; the next run links it, the saved results reused
    again = _grade_with_table(course)
    assert again.returncode == 0, again.stderr[-2000:]
    row = table_rows(again.stdout)[cop]  # with the notes' further lines
    assert "needs a look: Task 1.2 answers fit the list of ada" in row
    assert f"copying report: {course / 'graded' / 'copying.html'}" not in again.stdout  # relative, as given
    assert "copying report: graded/copying.html" in again.stdout
    assert 'href="copying.html"' in (course / "graded" / "report.html").read_text(encoding="utf-8")
    assert results(course)[cop]["copied_from"] == "ada"


@pytest.mark.slow
def test_a_classmate_who_submits_later_flags_a_saved_result(tmp_path):
    course = new_course(tmp_path / "course")
    salt, pool = release_variant(course, NDCG)
    cop = copier_of("ada", salt, pool)
    add_student(course, "bob")
    _by_hand(course, cop, answer_cell(right_steps(student_list("ada", salt, pool), CUTOFF)))
    first = grade(course, "--sandbox", "required", "--gradebook", "none")
    assert first.returncode == 0, first.stderr[-2000:]
    assert results(course)[cop]["copied_from"] is None  # no ada in the class yet: an honest-looking division
    add_student(course, "ada")
    second = grade(course, "--sandbox", "required", "--gradebook", "none")
    assert second.returncode == 0, second.stderr[-2000:]
    theirs = results(course)[cop]
    assert theirs["copied_from"] == "ada"
    assert {test["name"]: test["points"] for test in theirs["tests"]}["byhand_ndcg"] == 0


def test_the_course_setting_credits_follow_through_and_still_names_the_classmate(tmp_path):
    pool = POOL_FILE.read_text(encoding="ascii").strip()
    salt = "a-salt"
    release, cop = {DERIVATION_ID: derivation_source(salt, pool)}, copier_of("ada", salt, pool)
    cells = {ANSWERS_ID: answer_cell(right_steps(student_list("ada", salt, pool), CUTOFF))}
    ndcg = {}
    for credit in (False, True):
        marked = mark_answers(cop, cells, release, Classmates(frozenset({"ada", cop, "bob"}), credit))
        assert marked.copied_from == "ada"
        ndcg[credit] = next(test for test in marked.tests if test.name == "byhand_ndcg")
    assert (ndcg[False].points, ndcg[True].points) == (0, POINTS["byhand_ndcg"])
    assert OTHER_LIST in ndcg[False].message and OTHER_LIST not in ndcg[True].message
    alone = mark_answers(cop, cells, release, Classmates(frozenset({cop, "bob"})))  # ada not in the course
    assert alone.copied_from is None and alone.score == pytest.approx(sum(POINTS.values()) - POINTS["byhand_dcg"])
    course = new_course(tmp_path / "course")
    assert course_grade_settings(course).credit_copied_follow_through is False
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\nc.SandboxedExecute.credit_copied_follow_through = True\n")
    assert course_grade_settings(course).credit_copied_follow_through is True
