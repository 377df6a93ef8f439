"""A tutor's manual marks and comments reach every output, whichever order the tutor works in.

The gradebook is the single source of truth for final scores. A tutor grades by hand as formgrader
does it (a test's ``manual_score``, a cell's ``manual_comment`` in nbgrader's gradebook), in between
the kit's and nbgrader's commands in several orders. After every step that writes the student's page
(``python -m autograder grade``, ``nbgrader generate_feedback``, ``nbgrader release_feedback``), the
page is the kit's (with the diagnosis) and holds every mark given so far, and the page released
through a real exchange is the current one. The batch command's table, results.json, grades.csv and
report show the final score and mark the manual override. The browser side (formgrader's own
buttons) is in tests/e2e/test_formgrader.py.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import notebook_hash

from autograder.course.materials.nbgrader_commands import tool_environment
from autograder.exercises.ndcg import EXERCISE

from grading_run import CORRECT_DCG, add_student, generated_course, grade, notebook_path, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]

COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's course id
NBGRADER = Path(sys.executable).parent / "nbgrader"
#: A natural-log discount: fails the discount test among others (the kit names the mistake).
LN_DCG = '''import math
def dcg(rels, k):
    return sum(rels[i] / math.log(i + 2) for i in range(min(k, len(rels))))'''
MARKED_TEST = "test_dcg_discount"
MANUAL_POINTS = 0.5
COMMENT_LN = "Use the base-2 logarithm; <b>see</b> the lecture's slide 14."
COMMENT_OK = "Nice and short."
SECRETS = {"ln": "secret-ln", "ok": "secret-ok", "plain": "secret-plain"}


def _course(path: Path) -> tuple[Path, Path]:
    course = generated_course(path / "course")
    exchange = path / "exchange"
    exchange.mkdir()
    for student in SECRETS:
        add_student(course, student, dcg=LN_DCG if student == "ln" else CORRECT_DCG)
        folder = notebook_path(course, student).parent
        # as `nbgrader submit` and `collect` leave them: release_feedback names the page by the secret
        (folder / "timestamp.txt").write_text("2026-12-01 16:00:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(SECRETS[student])
    return course, exchange


def _nbgrader(course: Path, exchange: Path, *args: str) -> None:
    done = subprocess.run([str(NBGRADER), *args, f"--Exchange.root={exchange}"], cwd=course,
                          env=tool_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])


def _mark(course: Path) -> None:
    """What formgrader's manual grading stores: a manual score on one test, comments on answer cells."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        marked = gradebook.find_grade(MARKED_TEST, "ndcg", "ndcg", "ln")
        marked.manual_score = MANUAL_POINTS
        marked.needs_manual_grade = False  # formgrader's API clears the flag when the tutor saves a score
        gradebook.find_comment("dcg", "ndcg", "ndcg", "ln").manual_comment = COMMENT_LN
        gradebook.find_comment("ndcg", "ndcg", "ndcg", "ok").manual_comment = COMMENT_OK
        gradebook.db.commit()


def _auto_points(course: Path) -> dict[str, dict[str, float]]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {
            student: {grade.name: grade.auto_score for grade in
                      gradebook.find_submission_notebook("ndcg", "ndcg", student).grades}
            for student in SECRETS
        }


def _expected_final(course: Path, marked: bool) -> dict[str, float]:
    """From the automatic points the gradebook holds: the sum, with the tutor's points in place of the marked test."""
    finals = {}
    for student, points in _auto_points(course).items():
        if marked and student == "ln":
            points = {**points, MARKED_TEST: MANUAL_POINTS}
        finals[student] = sum(points.values())
    return finals


def _check_page(text: str, student: str, marked: bool, final: float) -> None:
    assert "The definition used for grading" in text, "not the kit's page"
    assert f'id="final-score">{final:g} / {EXERCISE.max_score:g}</strong>' in text
    if student == "ln":
        assert "What went wrong" in text  # the diagnosis, which nbgrader's own page does not have
    comment = {"ln": COMMENT_LN, "ok": COMMENT_OK}.get(student)
    if marked and comment:
        assert "From your tutor" in text
        escaped = comment.replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
        assert escaped in text and "<b>see</b>" not in text  # a tutor's text, shown as text
    if marked and student == "ln":
        assert "(your tutor; the grader gave 0)" in text and "with your tutor&#39;s marks" in text
    if not marked or student == "plain":
        assert "From your tutor" not in text


def _check_pages(course: Path, marked: bool) -> None:
    finals = _expected_final(course, marked)
    for student in SECRETS:
        page = course / "feedback" / student / "ndcg" / "ndcg.html"
        _check_page(page.read_text(encoding="utf-8"), student, marked, finals[student])


def _check_released(course: Path, exchange: Path, marked: bool) -> None:
    finals = _expected_final(course, marked)
    for student, secret in SECRETS.items():
        released = exchange / COURSE_ID / "feedback" / f"{notebook_hash(secret=secret, notebook_id='ndcg')}.html"
        _check_page(released.read_text(encoding="utf-8"), student, marked, finals[student])


ORDERS = {
    # the kit's command, a mark, then straight to release: the released page has the mark
    "grade, mark, release, grade": ("grade", "mark", "release", "grade"),
    # nbgrader's path with its own feedback step, marks in between
    "autograde, generate, mark, release, generate": ("autograde", "generate", "mark", "release", "generate"),
    # formgrader's Generate Feedback after the kit's command must not replace the page
    "grade, mark, generate, grade, release": ("grade", "mark", "generate", "grade", "release"),
}


#: The course and exchange (their parent folder) after the first steps of an order, for the orders that
#: begin with the same steps: those are run and checked once.
_AFTER: dict[tuple[str, ...], Path] = {}


def _resumed(order: tuple[str, ...], folder: Path) -> int:
    """Fill ``folder`` as the longest saved beginning of ``order`` left it (else afresh); how many steps are done."""
    done = max((len(steps) for steps in _AFTER if order[:len(steps)] == steps), default=0)
    if done:
        shutil.copytree(_AFTER[order[:done]], folder, symlinks=True, dirs_exist_ok=True)
    else:
        _course(folder)
    return done


@pytest.fixture(scope="module", params=list(ORDERS), ids=list(ORDERS))
def worked(request, tmp_path_factory):
    """Run one order of the tutor's steps, checking the pages after each step that writes them."""
    order = ORDERS[request.param]
    folder = tmp_path_factory.mktemp("manual")
    course, exchange = folder / "course", folder / "exchange"
    resumed = _resumed(order, folder)
    marked = "mark" in order[:resumed]
    others = [steps for steps in ORDERS.values() if steps != order]
    for index in range(resumed, len(order)):
        steps_done, step = order[:index], order[index]
        if index and steps_done not in _AFTER and any(steps[:index] == steps_done for steps in others):
            _AFTER[steps_done] = tmp_path_factory.mktemp("after")
            shutil.copytree(folder, _AFTER[steps_done], symlinks=True, dirs_exist_ok=True)
        if step == "mark":
            _mark(course)
            marked = True
            continue
        if step == "grade":
            done = grade(course, "--timeout", "5")
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        elif step == "autograde":  # writes no page (as in nbgrader): nothing to check yet
            _nbgrader(course, exchange, "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5")
            continue
        elif step == "generate":
            _nbgrader(course, exchange, "generate_feedback", "ndcg", "--force")
        elif step == "release":
            _nbgrader(course, exchange, "release_feedback", "ndcg")
            _check_released(course, exchange, marked)
        _check_pages(course, marked)
    return course, exchange, ORDERS[request.param]


def test_the_released_page_is_the_current_one(worked):
    course, exchange, _ = worked
    _check_released(course, exchange, marked=True)


def test_the_gradebook_keeps_the_tutors_marks(worked):
    course, _, _ = worked
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        grade_row = gradebook.find_grade(MARKED_TEST, "ndcg", "ndcg", "ln")
        assert grade_row.manual_score == MANUAL_POINTS and grade_row.auto_score == 0
        # re-running `grade` reads the same automatic score back: the tutor's review stands
        assert not grade_row.needs_manual_grade
        assert gradebook.find_comment("dcg", "ndcg", "ndcg", "ln").manual_comment == COMMENT_LN
        finals = _expected_final(course, marked=True)
        for student, final in finals.items():
            assert gradebook.find_submission("ndcg", student).score == pytest.approx(final), student


def test_the_batch_outputs_show_the_final_score_and_mark_the_override(worked):
    course, _, order = worked
    if "grade" not in order[order.index("mark"):]:
        pytest.skip("the batch command does not run after the mark in this order")
    finals = _expected_final(course, marked=True)
    found = results(course)
    for student, final in finals.items():
        assert found[student]["final_score"] == pytest.approx(final), student
        assert found[student]["score"] == pytest.approx(sum(_auto_points(course)[student].values()))
    manual = found["ln"]["manual"]
    assert manual["score"] == pytest.approx(finals["ln"])
    (marked_row,) = [mark for mark in manual["marks"] if mark["cell"] == MARKED_TEST]
    assert marked_row["manual_score"] == MANUAL_POINTS and marked_row["auto_score"] == 0
    assert found["plain"]["manual"] == {"marks": [], "score": pytest.approx(finals["plain"])}

    rows = {row["student_id"]: row for row in csv.DictReader(io.StringIO((course / "graded" / "grades.csv").read_text()))}
    assert float(rows["ln"]["final_score"]) == pytest.approx(finals["ln"]) and rows["ln"]["manual"] == "yes"
    assert rows["ok"]["manual"] == "" and rows["plain"]["manual"] == ""

    report = (course / "graded" / "report.html").read_text(encoding="utf-8")
    roster = report[report.index('<table id="roster">'):]
    roster = roster[: roster.index("</table>")]
    ln_row = roster[roster.index("ln</a>"):]
    ln_row = ln_row[: ln_row.index("</tr>")]
    assert f"{finals['ln']:g} / {EXERCISE.max_score:g}" in ln_row and 'class="manual"' in ln_row
    assert f"manual marks: {finals['ln']:g}" in ln_row
    note = report[report.index('<p id="manual">'):]
    assert "changed the score of 1" in note[: note.index("</p>")]

    graded_page = (course / "graded" / "feedback" / "ln" / "ndcg.html").read_text(encoding="utf-8")
    assert graded_page == (course / "feedback" / "ln" / "ndcg" / "ndcg.html").read_text(encoding="utf-8")


def test_a_page_without_a_grader_result_is_refused_with_a_message(tmp_path):
    """generate_feedback for a submission the kit never graded names the problem for that student only."""
    course, exchange = _course(tmp_path)
    done = grade(course, "--timeout", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    (course / "autograded" / "ok" / "ndcg" / "ndcg.grader.json").unlink()
    proc = subprocess.run([str(NBGRADER), "generate_feedback", "ndcg", "--force", f"--Exchange.root={exchange}"],
                          cwd=course, env=tool_environment(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "ok: no grader's result beside ndcg.ipynb, so no feedback page" in proc.stderr
    assert "no feedback written for ok: not graded by this course's grader" in proc.stderr
    for other in ("ln", "plain"):  # the others' pages are written as usual
        assert "The definition used for grading" in (course / "feedback" / other / "ndcg" / "ndcg.html").read_text(
            encoding="utf-8")
