"""Threat: a student's notebook runs script in a tutor's (or a student's) browser.

One hostile notebook carries every vector (tests/active_content.py): JavaScript, HTML and SVG
outputs left on the release's read-only figure and helper cells, markdown with event handlers, SVG
with script, an ``srcdoc`` iframe, ``javascript:`` and ``data:`` links, raw HTML cells, SVG and HTML
attachments, widget state, forged nbgrader metadata and cell tags. Each vector's script would write
a canary file through the Jupyter server's contents API with the page's ``_xsrf`` cookie.

The notebook is graded both ways, by ``python -m autograder grade`` (eve) and by ``nbgrader
autograde`` with the course's config (trudy); ``nbgrader generate_feedback`` makes their pages.
Then, in headless Chromium logged in as the tutor: the formgrader's submission view of each, their
nbgrader feedback pages, the kit's feedback pages and the class report, each shown at the server's
origin. No canary request is ever made, no canary file appears, no element of a page could run
script, and the honest parts of the notebook still show. A control first shows the same notebook,
unsanitised, rendered by nbconvert the same way: its canaries do fire, so the check can fail.
"""

from __future__ import annotations

import shutil
import time

import nbformat
import pytest
from byhand_answers import answer_by_hand
from nbconvert.exporters import HTMLExporter
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import gradebook_scores, run_nbgrader
from autograder.exercises.ndcg import EXERCISE

from active_content import CANARY_PREFIX, HONEST_NOTE, dangerous_elements_script, hostile_notebook
from e2e_support import chromium, jupyter_lab, requires_browser, screenshot_on_failure, tutor_context
from grading_run import generated_course, grade, notebook_path, results

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    requires_browser,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

BATCH, NBGRADER = "eve", "trudy"  # graded by the kit's command, by nbgrader's own autograde
TIMEOUT = 60_000  # ms
#: Vectors the control page must show live (fired by loading an unsanitised page rendered by nbconvert).
CONTROL_LIVE = {"js-output", "html-output", "md-img-onerror", "md-svg", "md-iframe-srcdoc", "js-student-output"}
#: ... and those that fire when the control's links are followed (in the real pages no such link is left).
CONTROL_LINKS = {"md-javascript-link", "html-javascript-link"}


def stage(course, student: str, forged_metadata: bool = True) -> None:
    target = notebook_path(course, student)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Task 1.2 worked out right on the student's own list: a full score, so the pages show every part
    nbformat.write(answer_by_hand(hostile_notebook(forged_metadata), student), target)
    (target.parent / "timestamp.txt").write_text("2026-11-30 08:00:00.000000 UTC", encoding="utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("active-content")
    course = generated_course(tmp / "course")
    stage(course, BATCH)
    done = grade(course)
    assert done.returncode == 0, done.stderr[-2000:]
    stage(course, NBGRADER)  # with the forged grade_id too: ForgetUnknownCells makes it her own cell
    run_nbgrader(course, "autograde", "ndcg", "--student", NBGRADER)
    run_nbgrader(course, "generate_feedback", "ndcg", "--force")
    return course, tmp


class Tutor:
    """A logged-in browser page that records every request a page makes for a canary."""

    def __init__(self, page, lab, course) -> None:
        self.page, self.lab, self.course = page, lab, course
        self.requests: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url) if CANARY_PREFIX in request.url else None)

    def written(self) -> set[str]:
        return {path.stem.removeprefix(CANARY_PREFIX) for path in self.course.glob(f"{CANARY_PREFIX}*")}

    def canaries(self) -> set[str]:
        """Vectors whose canary was requested or written."""
        asked = {url.rsplit("/", 1)[-1].split(".txt")[0].removeprefix(CANARY_PREFIX) for url in self.requests}
        return self.written() | asked

    def forget(self) -> None:
        for path in self.course.glob(f"{CANARY_PREFIX}*"):
            path.unlink()
        self.requests.clear()

    def settle(self) -> None:
        """Wait until the page has loaded and its network is idle (images failed, scripts' requests sent),
        then follow every javascript:/data: link it has (an active link is a vector too)."""
        self.page.wait_for_load_state("networkidle")
        self.page.eval_on_selector_all(
            "a[href]", "links => links.filter(a => /^\\s*(javascript|data):/i.test(a.getAttribute('href')))"
                       ".forEach(a => a.click())",
        )
        self.page.wait_for_load_state("networkidle")

    def show_at_origin(self, html: str) -> None:
        """Show ``html`` as if the server served it (same origin, the tutor's cookies): the worst case of
        opening a feedback or report page from the course folder in JupyterLab."""
        self.page.goto(f"{self.lab.url}/formgrader/manage_assignments")
        self.page.wait_for_load_state("networkidle")
        self.page.set_content(html)
        self.settle()

    def dangerous_elements(self) -> list[str]:
        found = list(self.page.evaluate(dangerous_elements_script()))
        for frame in self.page.frames[1:]:  # an iframe would be listed above already; its content too
            found += [f"in a frame: {item}" for item in frame.evaluate(dangerous_elements_script())]
        return found


@pytest.fixture(scope="module")
def session(graded):
    """(lab, browser context logged in as the tutor, course, tmp)."""
    course, tmp = graded
    with (
        jupyter_lab(course, tmp / "jupyter") as lab,
        chromium() as browser,
        tutor_context(browser, lab, "/formgrader/manage_assignments", tmp / "login.png", TIMEOUT) as context,
    ):
        yield lab, context, course, tmp


@pytest.fixture(scope="module")
def control(session):
    """The control, before any real page: the hostile notebook as nbconvert renders it without the kit's
    sanitising, in a page of its own; returns the vectors that fired (their canaries all written)."""
    lab, context, course, tmp = session
    page_html, _ = HTMLExporter(template_name="classic").from_notebook_node(hostile_notebook())
    tutor = Tutor(context.new_page(), lab, course)
    with screenshot_on_failure(tutor.page, tmp / "control.png"):
        tutor.show_at_origin(page_html)
        # every canary asked for has landed before the next page opens: no late write can blame it
        # a followed javascript: link runs in a later task: wait for what must fire, then for every
        # canary asked for to land, so that no late write can blame a later page
        deadline = time.monotonic() + TIMEOUT / 1000
        while not tutor.canaries() >= (CONTROL_LIVE | CONTROL_LINKS) and time.monotonic() < deadline:
            time.sleep(0.2)
        while tutor.written() != tutor.canaries() and time.monotonic() < deadline:
            time.sleep(0.2)
    fired = tutor.canaries()
    tutor.page.close()
    tutor.forget()
    return fired


@pytest.fixture
def tutor(session, control):
    lab, context, course, _ = session
    tutor = Tutor(context.new_page(), lab, course)
    tutor.forget()
    yield tutor
    tutor.page.close()


def test_the_canaries_fire_in_an_unsanitised_page(control):
    assert control >= CONTROL_LIVE, f"fired: {sorted(control)}"
    assert control >= CONTROL_LINKS  # followed links run too


def submission_id(course, student: str) -> str:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return str(gradebook.find_submission_notebook("ndcg", "ndcg", student).id)


@pytest.mark.parametrize("student", [BATCH, NBGRADER])
def test_the_formgrader_submission_view_runs_nothing_and_shows_the_honest_parts(tutor, student):
    assert gradebook_scores(tutor.course)[student] == (EXERCISE.max_score, EXERCISE.max_score)
    with screenshot_on_failure(tutor.page, tutor.course.parent / f"formgrade-{student}.png"):
        tutor.page.goto(f"{tutor.lab.url}/formgrader/submissions/{submission_id(tutor.course, student)}")
        tutor.settle()
        text = tutor.page.inner_text("body")
        dangerous = tutor.dangerous_elements()
    assert tutor.canaries() == set()
    assert dangerous == []
    assert HONEST_NOTE in text and "passed" in text
    assert tutor.page.locator("sub", has_text="2").count() >= 1  # the student's allowed formatting


@pytest.mark.parametrize("student", [BATCH, NBGRADER])
def test_the_generated_feedback_page_runs_nothing(tutor, student):
    """generate_feedback writes the kit's page (not the notebook as HTML): nothing of the student's runs in it."""
    page_html = (tutor.course / "feedback" / student / "ndcg" / "ndcg.html").read_text(encoding="utf-8")
    with screenshot_on_failure(tutor.page, tutor.course.parent / f"feedback-{student}.png"):
        tutor.show_at_origin(page_html)
        text = tutor.page.inner_text("body")
        dangerous = tutor.dangerous_elements()
    assert tutor.canaries() == set()
    assert dangerous == []
    assert "The definition used for grading" in text
    assert f"{EXERCISE.max_score:g} / {EXERCISE.max_score:g}" in tutor.page.inner_text("#final-score")


def test_the_kits_pages_run_nothing(tutor):
    graded_dir = tutor.course / "graded"
    pages = sorted(graded_dir.rglob("*.html"))
    assert graded_dir / "report.html" in pages and len(pages) >= 2
    assert results(tutor.course)[BATCH]["score"] == EXERCISE.max_score
    for path in pages:
        tutor.forget()
        with screenshot_on_failure(tutor.page, tutor.course.parent / f"kit-{path.stem}.png"):
            tutor.show_at_origin(path.read_text(encoding="utf-8"))
            dangerous = tutor.dangerous_elements()
        assert tutor.canaries() == set(), path
        assert dangerous == [], path
