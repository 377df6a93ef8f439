"""Outputs of a class too large to hold or show at once: written from a stream read once, the
report's lists capped with a count of the rest, the roster in pages that hold every student once.

The page sizes are made small here (``ROSTER_PAGE``, ``LOOK_FIRST``) so that a class of a few
dozen students takes the large-class paths; every expected value is computed from the records.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from test_report import _batch, summarize

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import BatchResult, Status, StudentResult
from autograder.output import report, summary
from autograder.output.report import write_report
from autograder.output.results import read_students, write_results
from autograder.output.safe_text import printable

PAGE = 4
LOOK = 3


class OneShot:
    """The students as a stream that may be read exactly ``reads`` times (a second read fails the test)."""

    def __init__(self, students: list[StudentResult], reads: int) -> None:
        self.students, self.reads = students, reads

    def __iter__(self) -> Iterator[StudentResult]:
        assert self.reads > 0, "the students were read more often than the writer promises"
        self.reads -= 1
        return iter(list(self.students))


def _class(n: int) -> list[StudentResult]:
    """``n`` students replicated from the report tests' seven, under new ids in student order."""
    templates = _batch().students
    return [StudentResult.from_json({**templates[i % len(templates)].to_json(), "student_id": f"s{i:03d}"})
            for i in range(n)]


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(report, "ROSTER_PAGE", PAGE)
    monkeypatch.setattr(summary, "LOOK_FIRST", LOOK)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_results_json_is_one_document_and_one_student_per_line(tmp_path):
    students = _class(30)
    batch = _batch()
    write_results(tmp_path, batch, OneShot(students, reads=2))  # results.json, then grades.csv
    whole = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [s["student_id"] for s in whole["students"]] == [s.student_id for s in students]
    assert list(read_students(tmp_path / "results.json")) == whole["students"]
    for entry, student in zip(whole["students"], students, strict=True):
        assert StudentResult.from_json(entry) == student
    rows = list(csv.reader(io.StringIO((tmp_path / "grades.csv").read_text(encoding="utf-8"))))
    assert [row[0] for row in rows[1:]] == [s.student_id for s in students]


def test_a_truncated_results_json_is_refused_when_read_a_student_at_a_time(tmp_path):
    write_results(tmp_path, _batch(), _class(5))
    path = tmp_path / "results.json"
    path.write_text(path.read_text(encoding="utf-8").removesuffix("\n]}\n"), encoding="utf-8")
    with pytest.raises(ValueError, match="truncated"):
        list(read_students(path))


def test_the_roster_pages_hold_every_student_once_with_working_links(tmp_path, small_pages):
    students = _class(4 * PAGE + 1)
    batch = _batch()
    for student in students:  # the pages' links lead to these
        page = tmp_path / "feedback" / student.student_id / "ndcg.html"
        page.parent.mkdir(parents=True)
        page.write_text(student.student_id, encoding="utf-8")
    soup = _soup(write_report(tmp_path, EXERCISE, batch, OneShot(students, reads=1)))
    assert soup.find(id="roster") is None  # not in the report itself
    listed = [row.find_all("td") for row in soup.find(id="pages").find_all("tr")[1:]]
    assert len(listed) == -(-len(students) // PAGE)
    seen = []
    for cells in listed:
        page = tmp_path / cells[0].find("a")["href"]
        rows = _soup(page).find(id="roster").find_all("tr")[1:]
        ids = [row.find("td").get_text() for row in rows]
        assert (cells[2].get_text(), cells[3].get_text(), int(cells[1].get_text())) == (ids[0], ids[-1], len(ids))
        for row, student_id in zip(rows, ids, strict=True):
            target = (page.parent / row.find("a")["href"]).resolve()
            assert target.read_text(encoding="utf-8") == student_id
        seen += ids
    assert seen == [printable(s.student_id) for s in students]


def test_the_lists_who_need_a_look_show_the_first_and_count_the_rest(tmp_path, small_pages):
    students = _class(5 * PAGE)
    soup = _soup(write_report(tmp_path, EXERCISE, _batch(), students))
    trouble = [s for status in summary.TROUBLE_STATUSES for s in students if s.status is status]
    rows = soup.find(id="trouble").find_all("tr")[1:]
    assert [row.find("td").get_text() for row in rows[:-1]] == [s.student_id for s in trouble[:LOOK]]
    assert f"and {len(trouble) - LOOK} more" in rows[-1].get_text()
    unexplained = [s for s in students if s.diagnosis.unexplained]
    items = soup.find(id="unexplained").find_all("li")
    assert f"and {len(unexplained) - LOOK} more" in items[-1].get_text()
    found = {row.find_all("td")[1].get_text(): row.find_all("td") for row in soup.find(id="mistakes").find_all("tr")[1:]}
    for mistake_id, cells in found.items():
        having = [s.student_id for s in students if mistake_id in s.diagnosis.ids]
        assert int(cells[2].get_text()) == len(having)


def test_statistics_from_counts_equal_those_of_the_scores(tmp_path, small_pages):
    students = _class(5 * PAGE + 1)
    soup = _soup(write_report(tmp_path, EXERCISE, _batch(), students))
    everyone = [s.final_score for s in students]  # the report's one score (the templates hold marks and a penalty)
    row = soup.find(id="statistics").find_all("tr")[2].find_all("td")
    expected = [len(everyone), statistics.mean(everyone), statistics.median(everyone), min(everyone), max(everyone)]
    assert [float(cell.get_text()) for cell in row[1:]] == pytest.approx(expected, abs=0.005)
    assert f"{sum(s.status is Status.GRADED for s in students)} graded" in soup.find(id="counts").get_text()


def test_a_class_that_shrank_leaves_no_stale_roster_page(tmp_path, small_pages):
    write_report(tmp_path, EXERCISE, _batch(), _class(3 * PAGE))
    assert len(list((tmp_path / "roster").glob("*.html"))) == 3
    soup = _soup(write_report(tmp_path, EXERCISE, _batch(), _class(PAGE)))
    assert not list((tmp_path / "roster").glob("*.html"))
    assert len(soup.find(id="roster").find_all("tr")) == PAGE + 1


def test_the_same_class_again_leaves_the_report_and_its_pages_alone_and_a_change_rewrites_its_page(
        tmp_path, small_pages):
    students = _class(3 * PAGE)
    write_report(tmp_path, EXERCISE, _batch(), students)
    files = [tmp_path / "report.html", *sorted((tmp_path / "roster").glob("*.html"))]
    before = {path: path.stat().st_mtime_ns for path in files}
    write_report(tmp_path, EXERCISE, _batch(), students)
    assert {path: path.stat().st_mtime_ns for path in files} == before
    students[-1] = StudentResult.without_grading(students[-1].student_id, Status.MISSING, "no notebook",
                                                 EXERCISE.max_score)
    write_report(tmp_path, EXERCISE, _batch(), students)
    rewritten = {path.name for path in files if path.stat().st_mtime_ns != before[path]}
    assert rewritten == {"report.html", files[-1].name}  # the counts, and the last page's row


def test_a_stream_of_students_is_read_once_for_the_report(tmp_path, small_pages):
    students = _class(3 * PAGE)
    write_report(tmp_path, EXERCISE, _batch(), OneShot(students, reads=1))
    batch = BatchResult(**{**_batch().__dict__, "students": students})
    assert summarize(EXERCISE, batch, OneShot(students, reads=1)).students == len(students)
