"""Late work gives the same score on both grading paths, in either order.

A course with a due date (``nbgrader db assignment add --duedate``), nbgrader's late-submission
plugin set to ``zero`` and one extension in ``nbgrader_config.py``: a student 29 s late gets 0,
an on-time student and a student whose extension covers the lateness keep full points, a student
whose ``timestamp.txt`` is unreadable is graded with lateness unknown (no penalty, as nbgrader
does). Checked after every step with nbgrader's Gradebook API and ``nbgrader export``, and in the
batch command's results.json, table, report and feedback pages.
"""

from __future__ import annotations

import csv
import json
import shutil
from datetime import datetime, timedelta

import pytest
from graded_outputs import table_rows
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import SCHEMA_VERSION

from grading_run import add_student, generated_course, grade, notebook_path, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]

DUE = datetime(2026, 12, 1, 17, 0, 0)
LATE_BY = 29.0
#: Each student's submission time; ada's own due date is a day later (her extension).
SUBMITTED = {
    "ontime": DUE - timedelta(minutes=5),
    "late": DUE + timedelta(seconds=LATE_BY),
    "ada": DUE + timedelta(seconds=LATE_BY),
}
ADA_DUE = DUE + timedelta(days=1)
FULL = EXERCISE.max_score
#: "zero": nbgrader's plugin takes the whole score (penalty = score), so the late student ends at 0.
EXPECTED_FINAL = {"ontime": FULL, "late": FULL - FULL, "ada": FULL, "unknown": FULL}


def _course(path):
    course = generated_course(path)  # generate_assignment does not read the lateness settings below
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(
            '\nc.LateSubmissionPlugin.penalty_method = "zero"\n'
            f'c.CourseLatePenalties.extensions = {{"ndcg": {{"ada": "{ADA_DUE:%Y-%m-%d %H:%M:%S} UTC"}}}}\n'
        )
    run_nbgrader(course, "db", "assignment", "add", "ndcg", f"--duedate={DUE:%Y-%m-%d %H:%M:%S} UTC")
    for student in [*SUBMITTED, "unknown"]:
        add_student(course, student)
        stamp = notebook_path(course, student).parent / "timestamp.txt"
        # as `nbgrader submit` writes it; "unknown" holds garbage, which the kit's reader refuses
        stamp.write_text(f"{SUBMITTED[student]:%Y-%m-%d %H:%M:%S.%f} UTC" if student in SUBMITTED else "soon-ish")
    return course


def _autograde(course):
    run_nbgrader(course, "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5")


def _batch(course):
    done = grade(course, "--timeout", "5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _check_gradebook(course):
    """nbgrader's view: raw score, penalty in late_submission_penalty, and its export's final score."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, final in EXPECTED_FINAL.items():
            submission = gradebook.find_submission("ndcg", student)
            assert submission.score == pytest.approx(FULL), student  # nbgrader keeps the raw score
            assert submission.score - submission.late_submission_penalty == pytest.approx(final), student
        assert gradebook.find_submission("ndcg", "ada").duedate == ADA_DUE
        assert gradebook.find_submission("ndcg", "late").total_seconds_late == pytest.approx(LATE_BY)
    (course / "export.csv").unlink(missing_ok=True)
    run_nbgrader(course, "export", "--to=export.csv")
    with open(course / "export.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    for student, final in EXPECTED_FINAL.items():
        assert float(rows[student]["score"]) == pytest.approx(final), student
        assert float(rows[student]["raw_score"]) == pytest.approx(FULL), student


@pytest.fixture(scope="module", params=[("grade", "autograde"), ("autograde", "grade")], ids=lambda o: " then ".join(o))
def graded(request, tmp_path_factory):
    """A course graded in one order, checked after each step; the last step's course for the output checks."""
    course = _course(tmp_path_factory.mktemp("late-work") / "course")
    steps = {"grade": _batch, "autograde": _autograde}
    for step in request.param:
        steps[step](course)
        _check_gradebook(course)
    if request.param[-1] != "grade":  # the batch's outputs below, written after either order
        _batch(course)
        _check_gradebook(course)
    return course


def test_the_same_penalty_on_both_paths(graded):
    """Checked in the fixture after every step: here what the batch command wrote says the same."""
    for student, result in results(graded).items():
        assert result["final_score"] == pytest.approx(EXPECTED_FINAL[student]), student
        assert result["score"] == pytest.approx(FULL), student


def test_results_json_holds_the_lateness(graded):
    document = json.loads((graded / "graded" / "results.json").read_text())
    assert document["schema_version"] == SCHEMA_VERSION
    late = {student["student_id"]: student["late"] for student in document["students"]}
    assert late["late"] == {
        "due": DUE.isoformat(), "extended_due": None, "submitted": SUBMITTED["late"].isoformat(),
        "seconds_late": pytest.approx(LATE_BY), "penalty": pytest.approx(FULL),
    }
    assert late["ada"]["extended_due"] == ADA_DUE.isoformat() and late["ada"]["seconds_late"] == 0
    assert late["ada"]["penalty"] == 0 and late["ontime"]["seconds_late"] == 0
    assert late["unknown"]["submitted"] is None and late["unknown"]["seconds_late"] is None


def test_the_table_report_and_pages_show_it(graded):
    from autograder.grading import BatchResult, StudentResult
    from autograder.output.results import score_table

    document = json.loads((graded / "graded" / "results.json").read_text())
    batch = BatchResult("ndcg", "ndcg.ipynb", "", FULL, "", [], [StudentResult.from_json(s) for s in document["students"]])
    rows = table_rows(score_table(batch))  # a row with its notes' further lines
    assert rows["late"].split()[2] == f"{FULL - FULL:g}" and f"late 29 s, penalty {FULL:g}" in rows["late"]
    assert rows["ada"].split()[2] == f"{FULL:g}" and "on time (extension)" in rows["ada"]
    assert "lateness unknown" in rows["unknown"] and "timestamp unknown" in rows["unknown"]

    report = (graded / "graded" / "report.html").read_text(encoding="utf-8")
    table = report[report.index('<table id="late">'):]
    table = table[: table.index("</table>")]
    assert "late</a>" in table and "29 s" in table
    assert "ada</a>" in table and "2026-12-02 17:00:00 UTC (extension" in table
    assert "unknown</a>" in table and "ontime</a>" not in table

    page = (graded / "graded" / "feedback" / "late" / "ndcg.html").read_text(encoding="utf-8")
    assert "<strong>29 s late</strong>" in page and f"Late penalty: {FULL:g} points." in page
    assert f'id="final-score">{FULL - FULL:g} / {FULL:g}</strong>' in page
    released = (graded / "feedback" / "late" / "ndcg" / "ndcg.html").read_text(encoding="utf-8")
    assert released == page  # the copy release_feedback sends
    assert "on time" in (graded / "graded" / "feedback" / "ontime" / "ndcg.html").read_text(encoding="utf-8")


def _finals(course) -> dict[str, float]:
    """Each student's final score in the gradebook (raw score less the penalty), and ada's extension."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        finals = {student: gradebook.find_submission("ndcg", student) for student in EXPECTED_FINAL}
        return {student: s.score - s.late_submission_penalty for student, s in finals.items()} | {
            "ada's extension": gradebook.find_submission("ndcg", "ada").extension}


def test_a_re_run_applies_changed_late_settings(graded, tmp_path):
    """A re-run that grades nothing skips the step for a student it cannot change, and no one else.

    The batch command skips nbgrader's late step for a student on time, without a penalty, whose
    extension is the configured one (``late._settled_on_time``). Here each setting that could change
    such a student changes, on a copy of the graded course: an extension withdrawn (ada, on time only
    through it), an earlier due date (ontime, 5 minutes early until now), then the plugin's
    ``penalty_method`` (every penalty goes).
    """
    course = shutil.copytree(graded, tmp_path / "course", symlinks=True)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.CourseLatePenalties.extensions = {}\n')
    run_nbgrader(course, "db", "assignment", "add", "ndcg",
                 f"--duedate={DUE - timedelta(minutes=10):%Y-%m-%d %H:%M:%S} UTC")
    _batch(course)
    assert _finals(course) == {"ontime": 0, "late": 0, "ada": 0, "unknown": FULL, "ada's extension": None}
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "none"\n')
    _batch(course)
    assert _finals(course) == {"ontime": FULL, "late": FULL, "ada": FULL, "unknown": FULL, "ada's extension": None}
