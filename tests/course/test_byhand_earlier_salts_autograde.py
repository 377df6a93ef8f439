"""nbgrader's autograde marks a notebook fetched before a forced salt change against the list it showed.

The batch reads the derivation cell a student handed in from ``submitted/``; nbgrader's
``OverwriteCells`` puts the release's read-only cells back before the kit's preprocessor grades, so
the preprocessor reads the handed-in cell again (issue 33.8: every honest answer was marked wrong on
nbgrader's path only). ada hands in the right answers of her list under the first salt; the course
then publishes another (keeping the first as an earlier salt) and regenerates the release.
"""

from __future__ import annotations

import pytest
from byhand_answers import gradebook_scores

from autograder.byhand.salt import release_variant, write_salt
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, generate_release, run_nbgrader
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.derive import student_list
from autograder.exercises.ndcg.byhand.marking import STEPS

from grading_run import add_student, generated_course, grade, results

pytestmark = pytest.mark.slow
POINTS = {step.grade_id: step.points for step in STEPS}


def test_autograde_marks_the_list_a_notebook_of_the_earlier_salt_showed(tmp_path):
    course = generated_course(tmp_path / "course")
    first, pool = release_variant(course, NDCG)
    add_student(course, "ada")  # her own list under the first salt, worked out right
    write_salt(course, NDCG, "a-later-salt", keep_earlier=True)
    generate_release(course)
    assert release_variant(course, NDCG)[0] == "a-later-salt"
    assert student_list("ada", "a-later-salt", pool) != student_list("ada", first, pool)  # marked so: wrong
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    nbgrader = gradebook_scores(course / "gradebook.db", "ir-ranking-evaluation", ASSIGNMENT, list(POINTS))["ada"]
    assert {grade_id: nbgrader[grade_id] for grade_id in POINTS} == POINTS
    done = grade(course, "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    assert {t["name"]: t["points"] for t in results(course)["ada"]["tests"] if t["name"] in POINTS} == POINTS
