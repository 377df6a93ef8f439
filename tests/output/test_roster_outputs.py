"""The gradebook's roster in the grader's outputs: a student who never submitted is listed, a hostile id is not.

One real grading run (``python -m autograder grade``) of a course whose gradebook lists two students
besides the one who submitted: ``bob``, who handed in nothing, is in the table's counts,
``results.json``, ``grades.csv``, the report (counted apart) and has a page, as ``missing`` with 0;
ids imported from elsewhere that the student-id rule refuses (a path, a newline, a formula) become
no row and no file (the end-to-end semester test checks the rest: tests/course/test_semester.py).
"""

from __future__ import annotations

import shutil
import warnings

import graded_outputs
import pytest
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import tool_environment
from autograder.grading.batch import NOT_SUBMITTED

from grading_run import add_student, grade, new_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's course id
HOSTILE = ("../../escape", "x,1\nforged", "=cmd|' /C calc'!A0")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("course"))
    add_student(course, "alice")
    # nbgrader creates the gradebook with its `alembic` program, which lives beside this Python
    with pytest.MonkeyPatch.context() as env, warnings.catch_warnings():
        env.setenv("PATH", tool_environment()["PATH"])
        warnings.simplefilter("ignore")  # SQLAlchemy's noise from nbgrader's models
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as book:
            for student in ("alice", "bob", *HOSTILE):  # as `nbgrader db student import` leaves them
                book.update_or_create_student(student)
    done = grade(course, "--timeout", "5")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return course, done.stdout


def test_a_rostered_student_without_a_submission_is_in_every_output_as_missing_with_0(graded):
    course, printed = graded
    out = course / "graded"
    found = {s["student_id"]: s for s in graded_outputs.students(out)}
    assert set(found) == {"alice", "bob"}
    assert found["bob"]["status"] == "missing" and found["bob"]["message"] == NOT_SUBMITTED
    for output, shown in graded_outputs.every_output(out).items():
        assert shown["bob"] == 0.0 and shown["alice"] > 0, output
    assert "2 students: 1 graded, 1 missing (of them 1 on the roster with no submission)" in printed
    report = graded_outputs.soup(out / "report.html")
    assert report.find(id="not-submitted").get_text() == "1"
    assert "bob" in graded_outputs.trouble_scores(out)  # who needs a look
    # counted apart from the scored submissions: in the statistics over everyone only, and in no chart
    scored, everyone = graded_outputs.statistics_rows(out)
    assert scored[0] == 1 and everyone[0] == 2 and everyone[3] == 0.0
    assert sum(graded_outputs.histogram_counts(out).values()) == 1


def test_nothing_is_recorded_or_released_for_them_and_hostile_roster_ids_reach_no_output(graded):
    course, printed = graded
    assert not (course / "feedback" / "bob").exists() and not (course / "autograded" / "bob").exists()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as book:
        assert [s.student.id for s in book.assignment_submissions("ndcg")] == ["alice"]
    out = course / "graded"
    for name in ("results.json", "grades.csv", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert not any(part in text for part in ("escape", "forged", "calc")), name
    assert not any(part in printed for part in ("escape", "forged", "calc"))
    assert sorted(path.name for path in (out / "feedback").iterdir()) == ["alice", "bob"]
    assert not (course.parent / "escape").exists()


def test_a_graded_student_outside_the_roster_is_named_in_the_summary(tmp_path):
    """A submission filed under an id the roster lacks (`nbgrader submit` as the tutor's own account: `root`)
    is graded and named in one line; the roster's own students are not, nor a refused id (said as refused)."""
    course = new_course(tmp_path / "course")
    for student in ("alice", "carol", "root", "\x1b[2Jroot"):
        add_student(course, student)
    with pytest.MonkeyPatch.context() as env, warnings.catch_warnings():
        env.setenv("PATH", tool_environment()["PATH"])
        warnings.simplefilter("ignore")
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as book:
            book.update_or_create_student("alice")
    done = grade(course, "--timeout", "5")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("not on the gradebook's roster: "))
    named = line.removeprefix("not on the gradebook's roster: ").split(" (")[0].split(", ")
    assert named == ["carol", "root"] and "\x1b" not in done.stdout
