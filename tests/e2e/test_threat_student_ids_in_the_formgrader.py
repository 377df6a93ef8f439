"""Threat: a student id that is markup runs script in the tutor's formgrader.

nbgrader's formgrader prints a student id raw (its Jinja templates have no autoescaping: the
student's page in Manage Students, ``/formgrader/manage_students/<id>``), and lists every folder of
``submitted/`` beside the gradebook's students. A folder named ``<svg onload="…">`` (no ``/`` in a
file name: the script takes it from ``location.pathname``) would write a canary file through the server's contents
API with the tutor's ``_xsrf`` cookie.

The hostile ids go into the exchange beside honest classmates and through the course's
``collect``; the same folders are then put into ``submitted/`` directly (as an unzipped archive
would), and the class is graded by ``nbgrader autograde`` and ``python -m autograder grade``. In
headless Chromium logged in as the tutor: Manage Students (and every student's page it links to),
the gradebook's grading view and Manage Submissions are opened; no canary is requested or
written, no hostile id is listed, and the honest students are there with full marks. A control
first shows the id raw at the server's origin: its canary does fire, so the check can fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.course.materials.nbgrader_commands import gradebook_scores, run_nbgrader, tool_environment
from autograder.exercises.ndcg import EXERCISE

from e2e_support import chromium, jupyter_lab, requires_browser, screenshot_on_failure, tutor_context
from grading_run import add_student, generated_course, grade

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    requires_browser,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]
TIMEOUT = 60_000  # ms
CANARY = "canary-id"
COURSE_ID = "ir-ranking-evaluation"
HONEST_TIME = "2026-11-30 10:15:00.000000 UTC"
HONEST = ("alice", "bob")
#: The script a formgrader page would run: PUT the canary through the contents API (no "/" in a file name).
SCRIPT_ID = (
    "<svg onload='fetch([,\"api\",\"contents\",\"" + CANARY + ".txt\"].join(location.pathname[0]),{method:\"PUT\","
    "headers:{\"X-XSRFToken\":document.cookie.split(\"_xsrf=\")[1].split(\";\")[0]},"
    "body:`{\"type\":\"file\",\"format\":\"text\",\"content\":\"\"}`})'>"
)
#: Every other hostile id, listed nowhere either.
OTHER_IDS = ("*", "c*e", "mallory,15\nbob", "=1+1", "mallory\x1b[2K\r", "bob\u200b", "\u0430lice")


def _stage(course: Path, exchange: Path) -> None:
    inbound = exchange / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    for number, student in enumerate((*HONEST, SCRIPT_ID, *OTHER_IDS)):
        notebook = add_student(exchange / "scratch", student)
        folder = inbound / f"{student}+ndcg+2026-11-30 10:15:00+{number}"  # a short time: the name fits
        shutil.move(notebook.parent, folder)
        (folder / "timestamp.txt").write_text(HONEST_TIME)
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "collect", "ndcg",
                           f"--Exchange.root={exchange}"], cwd=course, env=tool_environment(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(os.listdir(course / "submitted")) == sorted(HONEST)
    for student in (SCRIPT_ID, *OTHER_IDS):  # as an unzipped archive would leave them: past collect
        (add_student(course, student).parent / "timestamp.txt").write_text(HONEST_TIME)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """(lab, browser context logged in as the tutor, course, tmp), the class graded both ways."""
    assert len(os.fsencode(SCRIPT_ID)) <= 255  # a file name
    tmp = tmp_path_factory.mktemp("hostile-ids-browser")
    course = generated_course(tmp / "course")
    _stage(course, tmp / "exchange")
    run_nbgrader(course, "autograde", "ndcg")
    done = grade(course)
    assert done.returncode == 0, done.stderr[-2000:]
    with (
        jupyter_lab(course, tmp / "jupyter") as lab,
        chromium() as browser,
        tutor_context(browser, lab, "/formgrader/manage_students", tmp / "login.png", TIMEOUT) as context,
    ):
        yield lab, context, course, tmp


class Tutor:
    """A page of the tutor's that records every request for the canary."""

    def __init__(self, context, lab, course) -> None:
        self.page, self.lab, self.course = context.new_page(), lab, course
        self.requests: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url) if CANARY in request.url else None)

    def fired(self, wait: float = 0.0) -> bool:
        deadline = time.monotonic() + wait
        while True:
            if self.requests or (self.course / f"{CANARY}.txt").exists():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)

    def visit(self, path: str) -> str:
        self.page.goto(f"{self.lab.url}/{path}")
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(500)  # the formgrader's tables are drawn by script after the load
        return str(self.page.inner_text("body"))


@pytest.fixture
def tutor(session):
    lab, context, course, _ = session
    (course / f"{CANARY}.txt").unlink(missing_ok=True)
    tutor = Tutor(context, lab, course)
    yield tutor
    tutor.page.close()
    (course / f"{CANARY}.txt").unlink(missing_ok=True)


def test_the_canary_fires_when_the_id_is_shown_raw(tutor):
    """The control: the id as nbgrader's template would print it, at the server's origin."""
    tutor.visit("formgrader/manage_assignments")
    tutor.page.set_content(f"<html><body><ol><li>{SCRIPT_ID}</li></ol></body></html>")
    assert tutor.fired(wait=TIMEOUT / 1000)


def test_manage_students_lists_no_hostile_id_and_runs_nothing(tutor):
    with screenshot_on_failure(tutor.page, tutor.course.parent / "manage-students.png"):
        text = tutor.visit("formgrader/manage_students")
        links = tutor.page.eval_on_selector_all(
            "a[href*='/formgrader/manage_students/']", "links => links.map(a => a.getAttribute('href'))")
        for href in links:  # each student's own page: nbgrader prints the id there raw
            tutor.visit(href.lstrip("/"))
    assert not tutor.fired(wait=1.0)
    assert all(student in text for student in HONEST)
    assert "svg" not in text and "onload" not in text and "mallory" not in text and "\u0430lice" not in text
    assert len(links) == len(HONEST)


@pytest.mark.parametrize("path", ["formgrader/gradebook/ndcg/ndcg", "formgrader/manage_submissions/ndcg"])
def test_the_grading_views_list_only_the_honest_students(tutor, path):
    with screenshot_on_failure(tutor.page, tutor.course.parent / f"{path.replace('/', '-')}.png"):
        text = tutor.visit(path)
    assert not tutor.fired(wait=1.0)
    assert "onload" not in text and "mallory" not in text
    assert gradebook_scores(tutor.course) == dict.fromkeys(HONEST, (EXERCISE.max_score, EXERCISE.max_score))
