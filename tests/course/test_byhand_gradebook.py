"""Task 1.2 by hand: `nbgrader autograde byhand` and `grade-by-hand` leave the same gradebook, step by step.

Two copies of one generated course with a due date and the "zero" late penalty: nbgrader's own
autograde grades one, the batch command the other; both gradebooks are read back with nbgrader's
``Gradebook`` API, and nbgrader's ``generate_feedback`` then writes each student's page on both.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import nbformat
import pytest
from byhand_answers import LOST, answer_cell

from autograder.course.byhand import ASSIGNMENT, NOTEBOOK, release_variant
from autograder.course.nbgrader import run_nbgrader
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS
from autograder.exercises.ndcg.byhand.steps import TOLERANCE, every_steps

from grading_run import whole_course

pytestmark = pytest.mark.slow

COURSE_ID = "ir-ranking-evaluation"  # the course's c.CourseDirectory.course_id
DUE = "2026-12-01 17:00:00.000000 UTC"
ON_TIME, LATE = "2026-12-01 12:00:00.000000 UTC", "2026-12-02 09:30:00.000000 UTC"
MISTAKE = "gain 2^rel - 1"


def _submit(course, student: str, answers: str, timestamp: str) -> None:
    folder = course / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    notebook = nbformat.read(course / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.metadata["nbgrader"]["grade_id"] == ANSWERS_ID:
            cell.source = answers
    nbformat.write(notebook, folder / NOTEBOOK)
    (folder / "timestamp.txt").write_text(timestamp)  # what `nbgrader collect` writes
    (folder / "submission_secret.txt").write_text(f"secret-of-{student}")  # what `nbgrader submit` writes


def _gradebook(course) -> dict[str, dict[str, object]]:
    """Per student: each step's score, the submission's time and late penalty, from nbgrader's own API."""
    from nbgrader.api import Gradebook

    found: dict[str, dict[str, object]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        for submission in gradebook.assignment_submissions(ASSIGNMENT):
            student = submission.student.id
            found[student] = {step.grade_id: gradebook.find_grade(step.grade_id, "byhand", ASSIGNMENT, student).score
                              for step in STEPS}
            found[student]["timestamp"] = submission.timestamp
            found[student]["penalty"] = submission.late_submission_penalty or 0.0
            found[student]["needs manual grade"] = submission.needs_manual_grade
    return found


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("byhand-gradebook")
    template = whole_course(base / "template")
    with open(template / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"  # a late submission scores 0\n')
    run_nbgrader(template, "generate_assignment", ASSIGNMENT, "--force")
    run_nbgrader(template, "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    salt, pool = release_variant(template)
    lists = {student: student_list(student, salt, pool) for student in ("ada", "bob", "cyd")}
    right = {student: every_steps(rels, CUTOFF)["right"] for student, rels in lists.items()}
    ada = answer_cell(right["ada"])
    answers = {"ada": (ada, ON_TIME),  # right
               "bob": (answer_cell(every_steps(lists["bob"], CUTOFF)[MISTAKE]), ON_TIME),  # nDCG follows through
               "cyd": (ada, LATE)}  # ada's answers, copied, and late
    for student, (cell, timestamp) in answers.items():
        _submit(template, student, cell, timestamp)
    courses = {path: shutil.copytree(template, base / path) for path in ("nbgrader", "batch")}
    run_nbgrader(courses["nbgrader"], "autograde", ASSIGNMENT, "--force")
    batch = subprocess.run([sys.executable, "-m", "autograder", "grade-by-hand"], cwd=courses["batch"],
                           capture_output=True, text=True, timeout=300)
    assert batch.returncode == 0, batch.stderr[-2000:]
    read = {path: _gradebook(course) for path, course in courses.items()}
    # the batch command wrote the pages itself: released as they are, as after `grade`
    run_nbgrader(courses["batch"], "release_feedback", ASSIGNMENT)
    for course in courses.values():  # nbgrader's own feedback command, after either path
        run_nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    run_nbgrader(courses["nbgrader"], "release_feedback", ASSIGNMENT)
    return courses, lists, right, read, batch.stdout


def test_both_paths_record_the_same_points_per_step_time_and_penalty(both):
    _, _, _, read, _ = both
    assert set(read["batch"]) == set(read["nbgrader"]) == {"ada", "bob", "cyd"}
    assert read["batch"] == read["nbgrader"]


def test_the_points_are_each_step_s_and_only_the_mistake_s(both):
    _, lists, right, read, _ = both
    scores = read["batch"]
    assert sum(scores["ada"][step.grade_id] for step in STEPS) == pytest.approx(MAX_SCORE)
    # one catalogue mistake costs its steps only: nDCG from bob's own DCG / iDCG earns its point
    assert {step.grade_id for step in STEPS if scores["bob"][step.grade_id] == 0} == LOST[MISTAKE]
    assert scores["bob"]["byhand_ndcg"] == pytest.approx(next(s.points for s in STEPS if s.grade_id == "byhand_ndcg"))
    # ada's numbers on cyd's list: her DCG and iDCG are not cyd's (at two decimals), so those steps are lost
    assert abs(right["ada"].dcg - right["cyd"].dcg) > TOLERANCE and abs(right["ada"].idcg - right["cyd"].idcg) > TOLERANCE
    assert scores["cyd"]["byhand_dcg"] == scores["cyd"]["byhand_idcg"] == 0
    same_ideal = right["ada"].ideal == right["cyd"].ideal
    assert (scores["cyd"]["byhand_ideal"] > 0) == same_ideal, (lists["ada"], lists["cyd"])


def test_a_late_submission_gets_the_course_s_penalty_on_both_paths(both):
    _, _, _, read, _ = both
    for scores in read.values():
        earned = sum(scores["cyd"][step.grade_id] for step in STEPS)
        assert scores["cyd"]["penalty"] == pytest.approx(earned)  # "zero": the penalty is the whole score
        assert scores["ada"]["penalty"] == scores["bob"]["penalty"] == 0
        assert not any(scores[student]["needs manual grade"] for student in scores)


def _formgrader_view(course, monkeypatch) -> dict[str, tuple[bool, float]]:
    """What the formgrader's list of submissions shows: autograded or not, and the score (its own API)."""
    from nbgrader.apps import NbGraderAPI

    monkeypatch.chdir(course)  # the formgrader runs in the course directory: sqlite:///gradebook.db is its
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    api = NbGraderAPI(coursedir=CourseDirectory(config=loaded), config=loaded)
    return {s["student"]: (s["autograded"], s["score"]) for s in api.get_submissions(ASSIGNMENT)}


def test_the_formgrader_shows_the_batch_s_submissions_as_autograded_with_nbgrader_s_scores(both, monkeypatch):
    # the formgrader wants autograded/<student>/<assignment>/ and the gradebook's time equal to timestamp.txt's
    courses, _, _, read, _ = both
    for student in ("ada", "bob", "cyd"):
        folder = courses["batch"] / "autograded" / student / ASSIGNMENT
        assert (folder / NOTEBOOK).is_file() and (folder / "timestamp.txt").is_file()
        written = (courses["batch"] / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text()
        assert read["batch"][student]["timestamp"].strftime("%Y-%m-%d %H:%M:%S") == written[:19]
    shown = _formgrader_view(courses["batch"], monkeypatch)
    assert shown == _formgrader_view(courses["nbgrader"], monkeypatch)
    assert set(shown) == {"ada", "bob", "cyd"} and all(autograded for autograded, _ in shown.values())
    for student, (_, score) in shown.items():
        assert score == pytest.approx(sum(read["batch"][student][step.grade_id] for step in STEPS))


def test_generate_feedback_writes_each_student_s_list_worked_through_on_both_paths(both):
    courses, lists, _, _, _ = both
    for course in courses.values():
        for student, rels in lists.items():
            page = (course / "feedback" / student / ASSIGNMENT / "byhand.html").read_text(encoding="utf-8")
            assert f"your list {list(rels)}" in page, (course.name, student)
        bob = (course / "feedback" / "bob" / ASSIGNMENT / "byhand.html").read_text(encoding="utf-8")
        assert "exponential" in bob.lower() or "2^rel" in bob, course.name  # the mistake is named


def test_release_feedback_releases_every_student_s_page_on_both_paths(both):
    courses, _, _, _, _ = both
    for course in courses.values():
        released = sorted((course / "exchange" / COURSE_ID / "feedback").glob("*.html"))
        assert len(released) == 3, (course.name, released)
        assert all("your list" in page.read_text(encoding="utf-8") for page in released), course.name
