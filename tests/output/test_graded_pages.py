"""The pages of a real grading run (``python -m autograder grade`` in a throw-away course), parsed:
the report's roster links open each student's page, its statistics match ``results.json``, the
feedback renders code spans and the invalid-JSON message whole, shows no hidden input, and shows
the solution only with ``--show-solution``.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from bs4 import BeautifulSoup

from autograder.exercises.ndcg import EXERCISE
from autograder.grading.reading.notebook import json_error_text
from autograder.output.safe_text import printable

from grading_run import CORRECT_DCG, CORRECT_NDCG, add_raw, add_student, grade, new_course
from leaks import leaked, without_by_hand

pytestmark = pytest.mark.slow

NATURAL_LOG_DCG = CORRECT_DCG.replace("math.log2(i + 2)", "math.log(i + 2)")
HANGS_BEYOND_THE_LIST = CORRECT_DCG.replace("    return", "    while k > len(rels):\n        pass\n    return")
#: A JSON text with a tab inside a string: "Invalid control character at" is json's message.
NOT_JSON = b'{"cells": [], "nbformat": 4, "metadata": {"a": "tab\there"}}'
NON_UTF8_NAME = os.fsdecode(b"caf\xe9")


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _results(out: Path) -> list[dict]:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]


def _pages(out: Path) -> dict[str, Path]:
    """Each student's feedback page by the id results.json shows, through the report's links.

    (``results.json``'s own ``feedback`` path is text: a name that is not UTF-8 shows there escaped.)
    """
    links = _soup(out / "report.html").find(id="roster").find_all("a")
    return {link.get_text(): out / os.fsdecode(unquote_to_bytes(link["href"])) for link in links}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    course = new_course(tmp_path_factory.mktemp("course"))
    add_student(course, "zoë.b")  # a letter that is not ASCII: percent-encoded in the links
    add_student(course, "bo@1", dcg=NATURAL_LOG_DCG)
    add_student(course, "ana b")  # no student id (a space, bytes that are not UTF-8): listed as refused, linked too
    add_student(course, NON_UTF8_NAME)
    add_student(course, "dee", dcg=HANGS_BEYOND_THE_LIST)
    add_raw(course, "eve", NOT_JSON)
    (course / "submitted" / "fay" / EXERCISE.assignment).mkdir(parents=True)
    done = grade(course, "--timeout", "2", "--workers", "2", "--gradebook", "none")
    assert done.returncode == 0, done.stderr
    statuses = {s["student_id"]: s["status"] for s in _results(course / "graded")}
    # what the tests below rely on: every status occurs
    assert statuses == {"zoë.b": "graded", "bo@1": "graded", "dee": "timeout", "eve": "error", "fay": "missing",
                        ascii("ana b"): "refused", ascii(NON_UTF8_NAME): "refused"}, statuses
    return course


def test_the_roster_links_every_student_to_their_page(graded):
    out = graded / "graded"
    rows = _soup(out / "report.html").find(id="roster").find_all("tr")[1:]
    results = _results(out)
    assert [row.find("td").get_text() for row in rows] == [s["student_id"] for s in results]
    for row, student in zip(rows, results, strict=True):
        relative = os.fsdecode(unquote_to_bytes(row.find("a")["href"]))
        assert (out / relative).is_file(), relative
        # the student's own page: feedback/<their folder>/<notebook>.html
        # (a refused folder's page is under its escaped name, which results.json shows as it is)
        folder = Path(relative).parts[1]
        shown = folder if student["status"] == "refused" else printable(folder)
        assert Path(relative).parts[0] == "feedback" and shown == student["student_id"]


def test_the_statistics_match_results_json(graded):
    out = graded / "graded"
    results = _results(out)
    scored = [s["score"] for s in results if s["status"] in ("graded", "timeout")]
    rows = _soup(out / "report.html").find(id="statistics").find_all("tr")[1:]
    cells = [float(td.get_text()) for td in rows[0].find_all("td")[1:]]
    assert cells == pytest.approx(
        # the report shows 2 decimals: 8.875 may read 8.88
        [len(scored), statistics.mean(scored), statistics.median(scored), min(scored), max(scored)], abs=0.0051
    )
    case_rows = {
        (r.find_all("td")[0].get_text(), r.find_all("td")[1].get_text()): r.find_all("td")[4].get_text()
        for r in _soup(out / "report.html").find(id="cases").find_all("tr")[1:]
    }
    for group in EXERCISE.groups:
        cases = len(group.cases) + len(group.templates)  # the fixed cases, then each submission's drawn ones
        for index in range(cases):
            failed = sum(
                not t["case_results"][index]["passed"] for s in results if s["status"] in ("graded", "timeout")
                for t in s["tests"] if t["name"] == group.grade_id
            )
            assert case_rows[(group.grade_id, f"{index + 1}/{cases}")] == f"{failed} of {len(scored)}"


def test_feedback_renders_code_spans_from_the_results(graded):
    out = graded / "graded"
    checked = 0
    pages = _pages(out)
    for student in _results(out):
        rows = _soup(pages[student["student_id"]]).find("table")
        for test, row in zip(student["tests"], rows.find_all("tr")[1:] if rows else [], strict=True):
            details = row.find_all("td")[3]
            assert [c.get_text() for c in details.find_all("code")] == re.findall(r"`([^`]+)`", test["message"])
            assert "`" not in details.get_text()
            checked += "`" in test["message"]
    assert checked, "no message with a code span was graded: the test checks nothing"


def test_the_invalid_json_message_is_whole(graded):
    out = graded / "graded"
    try:
        json.loads(NOT_JSON)
    except json.JSONDecodeError as error:
        expected = f"is not valid JSON ({json_error_text(error)})"
    eve = next(s for s in _results(out) if s["student_id"] == "eve")
    assert expected in eve["message"]
    notes = " ".join(_soup(_pages(out)["eve"]).select_one("p.box").get_text().split())
    assert notes == eve["message"]


def test_no_feedback_page_or_report_shows_a_hidden_input(graded):
    pages = [graded / "graded" / "report.html", *(graded / "graded" / "feedback").rglob("*.html")]
    pages += list((graded / "feedback").rglob("*.html"))  # where nbgrader's release_feedback takes them
    assert len(pages) >= 1 + 6
    for page in pages:
        # Task 1.2's own list (public: id and salt) left out: a list of grades 0-3 may hold a hidden list's
        assert leaked([without_by_hand(page, page.read_text(encoding="utf-8"))]) == [], page


def _solution_text() -> list[str]:
    parts = [" ".join(e.get_text().split()) for e in BeautifulSoup(EXERCISE.definition_html, "html.parser").select(
        ".solution")]
    assert parts
    return parts


def test_the_solution_is_shown_only_with_show_solution(graded, tmp_path):
    pages = [*(graded / "graded" / "feedback").rglob("*.html"), *(graded / "feedback").rglob("*.html")]
    for page in pages:
        text = " ".join(_soup(page).get_text().split())
        assert not [part for part in _solution_text() if part in text], page
    course = new_course(tmp_path / "course")
    add_student(course, "ana", dcg=CORRECT_DCG, ndcg=CORRECT_NDCG)
    done = grade(course, "--show-solution", "--gradebook", "none", "--workers", "1")
    assert done.returncode == 0, done.stderr
    for page in (course / "graded" / "feedback" / "ana" / "ndcg.html", course / "feedback" / "ana" / "ndcg" / "ndcg.html"):
        text = " ".join(_soup(page).get_text().split())
        assert all(part in text for part in _solution_text()), page
