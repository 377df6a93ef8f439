"""Task 1.2 by hand inside the exam notebook, graded both ways: the same points per step, total and gradebook.

Two copies of one generated course with a due date and the "zero" late penalty: nbgrader's own
autograde (through the course's ``SandboxedExecute``, the formgrader's button) grades one, the batch
command ``python -m autograder grade`` (in the sandbox) the other. Every student writes the right
code; their by-hand answers are their own list worked out right, with one catalogue mistake, copied
from a classmate, or code. Both gradebooks are read back with nbgrader's ``Gradebook`` API, and
nbgrader's ``generate_feedback`` then writes each student's page on both.
"""

from __future__ import annotations

import json
import shutil

import nbformat
import pytest
from byhand_answers import LOST, gradebook_scores, own_answers, submit_by_hand

from autograder.byhand.salt import release_variant
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS
from autograder.exercises.ndcg.byhand.steps import TOLERANCE, every_steps

from grading_run import add_student, grade, results, whole_course

pytestmark = pytest.mark.slow

COURSE_ID = "ir-ranking-evaluation"  # the course's c.CourseDirectory.course_id
DUE = "2026-12-01 17:00:00.000000 UTC"
ON_TIME, LATE = "2026-12-01 12:00:00.000000 UTC", "2026-12-02 09:30:00.000000 UTC"
#: Each student's way of working their own list out by hand.
WAYS = {"ada": "right", "bob": "natural log", "cyd": "ratio inverted", "dee": "ideal not cut at k",
        "gus": "gain 2^rel - 1"}
CODE_POINTS = EXERCISE.max_score - MAX_SCORE


def _gradebook(course) -> dict[str, dict[str, object]]:
    """Per student: each step's score, the total, the time and the late penalty, from nbgrader's own API."""
    return gradebook_scores(course / "gradebook.db", COURSE_ID, ASSIGNMENT, [step.grade_id for step in STEPS])


#: fay's dcg cell stops with an error: her code part errors, her by-hand answers are right.
BROKEN_DCG = "import math\n\nraise RuntimeError('an unfinished cell')\n\n\ndef dcg(rels, k):\n    return 0.0"


def _submit(course, student: str, way: str | None, timestamp: str, source: str | None = None,
            dcg: str | None = None) -> None:
    path = add_student(course, student, by_hand=None) if dcg is None else add_student(course, student, dcg=dcg,
                                                                                        by_hand=None)
    submit_by_hand(path, student, way, source)
    (path.parent / "timestamp.txt").write_text(timestamp)  # what `nbgrader collect` writes


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("byhand-paths")
    template = whole_course(base / "template")
    with open(template / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"  # a late submission scores 0\n')
    run_nbgrader(template, "generate_assignment", ASSIGNMENT, "--force")
    run_nbgrader(template, "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    salt, pool = release_variant(template, NDCG)
    lists = {student: student_list(student, salt, pool) for student in (*WAYS, "hal")}
    for student, way in WAYS.items():
        _submit(template, student, way, ON_TIME)
    release = nbformat.read(template / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    _submit(template, "hal", None, LATE, source=own_answers(release, "ada"))  # ada's answers, copied, and late
    canary = base / "canary"  # code in the answer cell is read as data, never run, on either path
    _submit(template, "fay", "right", ON_TIME, dcg=BROKEN_DCG)
    _submit(template, "eli", None, ON_TIME, source=f"DCG_AT_K = __import__('os').system('touch {canary}')")
    courses = {path: shutil.copytree(template, base / path) for path in ("nbgrader", "batch")}
    run_nbgrader(courses["nbgrader"], "autograde", ASSIGNMENT, "--force")
    done = grade(courses["batch"], "--sandbox", "required", "--workers", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    read = {path: _gradebook(course) for path, course in courses.items()}
    for course in courses.values():  # nbgrader's own feedback command, after either path
        run_nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    return courses, lists, read, results(courses["batch"]), canary


def test_both_paths_record_the_same_points_per_step_total_time_and_penalty(both):
    _, _, read, _, _ = both
    assert set(read["batch"]) == set(read["nbgrader"]) == {*WAYS, "hal", "eli", "fay"}
    assert read["batch"] == read["nbgrader"]
    assert not any(scores["needs manual grade"] for scores in read["batch"].values())


def test_each_hand_mistake_costs_only_its_steps_and_is_named(both):
    _, _, read, ours, _ = both
    for student, way in WAYS.items():
        lost = {step.grade_id for step in STEPS if read["batch"][student][step.grade_id] == 0}
        assert lost == LOST.get(way, set()), (student, way)
        expected = EXERCISE.max_score - sum(step.points for step in STEPS if step.grade_id in lost)
        assert ours[student]["score"] == pytest.approx(expected), student
        assert read["batch"][student]["total"] == pytest.approx(expected), student
        messages = " ".join(test["message"] for test in ours[student]["tests"] if test["name"] in lost)
        assert all(f"'{way}'" in messages for _ in lost), (student, messages)


def test_copied_answers_are_not_right_for_the_copier_s_list_and_late_work_gets_the_penalty(both):
    _, lists, read, _, _ = both
    right = {student: every_steps(lists[student], CUTOFF)["right"] for student in ("ada", "hal")}
    assert abs(right["ada"].dcg - right["hal"].dcg) > TOLERANCE
    assert read["batch"]["hal"]["byhand_dcg"] == 0
    for scores in read.values():
        assert scores["hal"]["penalty"] == pytest.approx(scores["hal"]["total"])  # "zero": the whole score
        assert scores["ada"]["penalty"] == 0


def test_code_in_the_answers_never_runs_on_either_path(both):
    _, _, read, _, canary = both
    assert not canary.exists()
    assert sum(read["batch"]["eli"][step.grade_id] for step in STEPS) == 0
    assert read["batch"]["eli"]["total"] == pytest.approx(CODE_POINTS)  # the code part is graded as usual


def test_the_feedback_works_each_student_s_own_list_through_on_both_paths(both):
    courses, lists, _, _, _ = both
    for course in courses.values():
        for student in WAYS:
            page = (course / "feedback" / student / ASSIGNMENT / "ndcg.html").read_text(encoding="utf-8")
            assert f"your list {list(lists[student])}" in page, (course.name, student)
        notebook = nbformat.read(course / "autograded" / "bob" / ASSIGNMENT / NOTEBOOK, as_version=4)
        assert "natural log" in json.dumps(notebook), course.name


def test_a_code_part_that_errors_keeps_its_by_hand_points_on_both_paths(both):
    _, _, read, ours, _ = both
    assert ours["fay"]["status"] == "graded"
    for scores in read.values():  # the batch command's gradebook and nbgrader's (the formgrader's button)
        assert {step.grade_id: scores["fay"][step.grade_id] for step in STEPS} == {
            step.grade_id: step.points for step in STEPS}
        assert scores["fay"]["total"] == pytest.approx(MAX_SCORE)  # every code group lost, Task 1.2 kept
    assert ours["fay"]["score"] == pytest.approx(MAX_SCORE)
