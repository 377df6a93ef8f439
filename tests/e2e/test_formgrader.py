"""The formgrader shows the truth, checked in a real browser (headless Debian Chromium, Playwright).

A throw-away course is graded with ``python -m autograder grade``; one more submission arrives
afterwards and is graded from the formgrader's Autograde button (``nbgrader autograde``, which in
this course runs the kit's sandbox). Then, in JupyterLab's formgrader pages, as a tutor would:
every submission is listed as graded with the score ``results.json`` gives; a manual score set in
the grading interface wins in the gradebook, and a comment typed there is saved; Generate feedback and
Release feedback write and release the kit's page (diagnosis, the manual score, the comment), not
nbgrader's notebook-as-HTML.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import notebook_hash

from autograder.course.materials.demo_course import stage_examples
from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.exercises.ndcg import EXERCISE

from e2e_support import chromium, jupyter_lab, requires_browser, screenshot_on_failure
from grading_run import add_student, generated_course, grade, results

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    requires_browser,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's course id
LATE = "frank"  # submits after the batch run; graded from the formgrader's Autograde button
MANUAL = "bob"  # gets a manual score on one test cell and a comment on his `dcg`
COMMENT = "See the lecture's slide on the discount <i>again</i>."
TIMEOUT = 60_000  # ms, for each wait in the browser


def shown(score: float) -> str:
    """A score as the formgrader prints it (rounded to 2 decimals, no trailing zeros)."""
    return f"{round(score, 2):g}"


@pytest.fixture(scope="module")
def tutor(tmp_path_factory):
    """(course, lab, page): a graded course, JupyterLab serving it, and a browser page logged in."""
    tmp = tmp_path_factory.mktemp("formgrader")
    course = generated_course(tmp / "course")
    exchange = tmp / "exchange"
    exchange.mkdir()
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write(f"\nc.Exchange.root = {str(exchange)!r}\n")  # generate_assignment does not use the exchange
    for student in stage_examples(course, course / "submitted", hostile=False):
        as_collected(course, student)
    done = grade(course)
    assert done.returncode == 0, done.stderr[-2000:]
    add_student(course, LATE)
    as_collected(course, LATE)
    with jupyter_lab(course, tmp / "jupyter") as lab, chromium() as browser:
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT)
        with screenshot_on_failure(page, tmp / "login.png"):
            page.goto(f"{lab.url}/login?next=%2Fformgrader%2Fmanage_submissions%2Fndcg")
            page.fill("input[type=password]", lab.token)  # the token as a tutor types it
            page.click("button[type=submit]")
            page.wait_for_url("**/formgrader/manage_submissions/ndcg")
        yield course, lab, page, tmp


def as_collected(course, student: str) -> None:
    """Leave beside a staged submission what ``nbgrader submit`` and ``collect`` leave: the timestamp
    and the submission's secret (release_feedback names the released page by it)."""
    folder = course / "submitted" / student / "ndcg"
    (folder / "timestamp.txt").write_text("2026-11-30 08:00:00.000000 UTC", encoding="utf-8")
    (folder / "submission_secret.txt").write_text(f"secret-of-{student}", encoding="utf-8")


def submission_rows(page) -> dict[str, tuple[str, str]]:
    """Manage Submissions of ndcg, as shown: {student id: (status, score)}."""
    page.wait_for_selector("#main-table td.status span")  # the table is filled by the page's script
    rows = page.eval_on_selector_all(
        "#main-table tr",
        "rows => rows.map(r => [r.querySelector('.student-id').innerText, r.querySelector('.status').innerText,"
        " r.querySelector('.score').innerText])",
    )
    return {student.strip(): (status.strip(), score.strip()) for student, status, score in rows}


def open_submissions(page, lab) -> dict[str, tuple[str, str]]:
    page.goto(f"{lab.url}/formgrader/manage_submissions/ndcg")
    return submission_rows(page)


def close_modal(page, modal: str) -> None:
    page.click(f"{modal} .modal-footer button")
    page.wait_for_selector(modal, state="detached")


def test_the_guide_s_menu_item_opens_the_formgrader_and_is_the_only_one(tutor):
    # docs/tutor-guide.md says "Nbgrader > Formgrader": one item of that name (nbgrader's "Formgrader (local)"
    # shows only where a tutor turned its setting on), and it opens the course's formgrader in a panel
    from playwright.sync_api import expect  # where the browser tests run (requires_browser)

    _, lab, page, _ = tutor
    page.goto(f"{lab.url}/lab")
    page.locator("#jp-MainMenu >> text=Nbgrader").click()
    items = [item.strip() for item in page.locator("#jp-mainmenu-nbgrader .lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel").all_inner_texts()]
    assert [item for item in items if "Formgrader" in item] == ["Formgrader"], items
    page.locator("#jp-mainmenu-nbgrader .lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel").get_by_text("Formgrader", exact=True).click()
    panel = page.frame_locator("iframe").first
    # the course's assignment, once the panel's script has loaded the table ("Loading, please wait..." before)
    expect(panel.locator("#main-table a", has_text="ndcg").first).to_be_visible(timeout=TIMEOUT)


def test_manage_submissions_lists_each_batch_graded_student_with_the_score_of_results_json(tutor):
    course, lab, page, tmp = tutor
    with screenshot_on_failure(page, tmp / "manage_submissions.png"):
        rows = open_submissions(page, lab)
        expected = results(course)
        assert expected and LATE not in expected
        for student, result in expected.items():
            assert rows[student] == ("graded", f"{shown(result['score'])} / {shown(result['max_score'])}"), student
        assert rows[LATE][0] == "needs autograding"


def test_the_autograde_button_grades_a_late_submission_through_the_sandbox(tutor):
    course, lab, page, tmp = tutor
    with screenshot_on_failure(page, tmp / "autograde.png"):
        open_submissions(page, lab)
        page.click(f"#main-table tr:has(td.student-id:text-is('{LATE}')) td.autograde a")
        page.wait_for_selector("#success-modal", timeout=180_000)
        close_modal(page, "#success-modal")
        rows = submission_rows(page)
    log = lab.log.read_text(encoding="utf-8")  # the server's log: nbgrader autograde ran in it
    assert "Exception while loading config" not in log  # nbgrader would have used its own Execute
    # the kit's SandboxedExecute, its score labelled the grader's
    assert f"{LATE}: graded, the grader's {EXERCISE.max_score:g} of {EXERCISE.max_score:g} points" in log
    full = shown(EXERCISE.max_score)
    assert rows[LATE] == ("graded", f"{full} / {full}")
    assert gradebook_scores(course)[LATE] == (EXERCISE.max_score, EXERCISE.max_score)
    assert (course / "autograded" / LATE / "ndcg" / "ndcg.ipynb").is_file()


def test_a_manual_score_set_in_the_grading_interface_wins(tutor):
    course, lab, page, tmp = tutor
    points = {
        cell.metadata["nbgrader"]["grade_id"]: float(cell.metadata["nbgrader"]["points"])
        for cell in nbformat.read(course / "release" / "ndcg" / "ndcg.ipynb", as_version=4).cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    }
    before = gradebook_scores(course)[MANUAL]
    with screenshot_on_failure(page, tmp / "formgrade.png"):
        page.goto(f"{lab.url}/formgrader/manage_students/{MANUAL}/ndcg")
        page.click("#main-table td a")  # the notebook's submission: the grading interface
        page.wait_for_selector("input.score")  # the grades' models fill the placeholders with the auto scores
        page.wait_for_function("[...document.querySelectorAll('input.score')].every(i => i.placeholder !== '')")
        autos = page.eval_on_selector_all("input.score", "inputs => inputs.map(i => [i.id, i.placeholder])")
        # the first test cell the autograder did not give full points: the tutor gives them
        cell, auto = next((cell, float(auto)) for cell, auto in autos if float(auto) < points[cell])
        with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
            page.fill(f"input#{cell}", f"{points[cell]:g}")
            page.press(f"input#{cell}", "Tab")  # the change event saves the grade
        assert saved.value.ok
        with page.expect_response(lambda r: "/formgrader/api/comment/" in r.url and r.request.method == "PUT") as said:
            page.fill("textarea#dcg-comment", COMMENT)
            page.press("textarea#dcg-comment", "Tab")  # saved on change, like the score
        assert said.value.ok
        after = before[0] - auto + points[cell]
        assert gradebook_scores(course)[MANUAL] == (after, before[1])
        rows = open_submissions(page, lab)
    assert rows[MANUAL] == ("graded", f"{shown(after)} / {shown(before[1])}")


def test_generate_and_release_feedback_from_the_buttons(tutor):
    course, lab, page, tmp = tutor
    with screenshot_on_failure(page, tmp / "feedback.png"):
        page.goto(f"{lab.url}/formgrader/manage_assignments")
        row = "#main-table tr:has(td.name:has-text('ndcg'))"
        page.click(f"{row} td.generate-feedback a")
        page.wait_for_selector("#success-modal", timeout=180_000)
        close_modal(page, "#success-modal")
        page.click(f"{row} td.release-feedback a")
        page.wait_for_selector("#success-modal", timeout=180_000)
        close_modal(page, "#success-modal")
    scores = gradebook_scores(course)
    page_of = {student: course / "feedback" / student / "ndcg" / "ndcg.html" for student in scores}
    for student, (score, max_score) in scores.items():
        text = page_of[student].read_text(encoding="utf-8")
        assert "The definition used for grading" in text, student  # the kit's page, not nbgrader's
        assert f'id="final-score">{score:g} / {max_score:g}</strong>' in text, student  # the manual score too
        assert ("From your tutor" in text) == (student == MANUAL), student
    manual = page_of[MANUAL].read_text(encoding="utf-8")
    assert COMMENT.replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;") in manual  # as text
    assert "(your tutor; the grader gave" in manual
    released = tmp / "exchange" / COURSE_ID / "feedback"
    for student in scores:  # each student's page where `nbgrader fetch_feedback` looks for it
        name = notebook_hash(secret=f"secret-of-{student}", notebook_id="ndcg")
        assert (released / f"{name}.html").read_bytes() == page_of[student].read_bytes(), student


def test_the_student_reads_the_fetched_page_in_the_browser(tutor):
    """After the buttons above released it: `nbgrader fetch_feedback` as the student, the page opened in Chromium."""
    course, _, page, tmp = tutor
    home, cache = tmp / "home-of-bob", tmp / "cache-of-bob"
    # what `nbgrader submit` left in the student's cache: fetch_feedback finds the page by this secret
    submission = cache / COURSE_ID / f"{MANUAL}+ndcg+2026-11-30 08:00:00.000000 UTC"
    submission.mkdir(parents=True)
    (submission / "ndcg.ipynb").write_bytes((course / "submitted" / MANUAL / "ndcg" / "ndcg.ipynb").read_bytes())
    (submission / "submission_secret.txt").write_text(f"secret-of-{MANUAL}", encoding="utf-8")
    home.mkdir()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "fetch_feedback", "ndcg", f"--Exchange.root={tmp / 'exchange'}",
         f"--Exchange.cache={cache}", f"--CourseDirectory.course_id={COURSE_ID}",
         f"--CourseDirectory.student_id={MANUAL}"],
        cwd=home, env={**tool_environment(), "HOME": str(home)}, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (fetched,) = (home / "ndcg" / "feedback").rglob("ndcg.html")
    score, max_score = gradebook_scores(course)[MANUAL]
    with screenshot_on_failure(page, tmp / "student_feedback.png"):
        page.goto(fetched.as_uri())
        assert page.inner_text("#final-score") == f"{score:g} / {max_score:g}"
        tutor_section = page.inner_text("#tutor + table")
        assert COMMENT in tutor_section  # the tutor's markup shows as the text typed, not as markup
        assert page.query_selector("td.comment i") is None
        assert "What went wrong" in page.inner_text("body")
