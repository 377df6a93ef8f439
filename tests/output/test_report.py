"""The class report as a tutor reads it, parsed: the roster with working links, who needs a look,
statistics over the set each label names, only the mistakes that occurred, cases by difficulty.

Every expected value is computed here from the results the report is written from.
"""

from __future__ import annotations

import os
import statistics
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from bs4 import BeautifulSoup

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import (
    BatchResult,
    CaseResult,
    CellMark,
    Diagnosis,
    Finding,
    GroupInfo,
    Lateness,
    ManualMarks,
    Status,
    StudentResult,
    TestResult,
)
from autograder.output.feedback import write_feedback
from autograder.output.figures import mistake_chart, pass_chart, score_histogram
from autograder.output.report import write_report
from autograder.output.safe_text import printable
from autograder.output.summary import ClassSummary, ClassTally, roster_row

from leaks import leaked


def summarize(exercise, batch: BatchResult, students=None) -> ClassSummary:
    """The report's numbers for ``students`` (default: the batch's), counted as the report counts them."""
    tally = ClassTally(exercise)
    for student in batch.students if students is None else students:
        tally.add(roster_row(exercise, batch, student))
    return tally.summary()


#: The statuses whose scores count as "scored", written down independently of the code under test.
SCORED = {Status.GRADED, Status.TIMEOUT}


def _tests(failing: set[tuple[str, int]]) -> list[TestResult]:
    """Every group's result when exactly the ``(grade_id, case index)`` cases in ``failing`` fail."""
    tests = []
    for group in EXERCISE.groups:
        # the fixed cases, then the instance drawn from each template (as a graded submission's results hold them)
        provenances = [case.provenance for case in group.cases] + [t.provenance for t in group.templates]
        outcomes = tuple(
            CaseResult(provenance, (group.grade_id, i) not in failing) for i, provenance in enumerate(provenances)
        )
        passed = all(o.passed for o in outcomes)
        tests.append(TestResult(
            name=group.grade_id, description=group.description, points=group.points if passed else 0.0,
            max_points=group.points, passed=passed,
            message="all cases passed" if passed else "`dcg` returned a wrong value on a hidden case",
            visible=group.visible, cases_passed=sum(o.passed for o in outcomes), cases=len(outcomes),
            case_results=outcomes,
        ))
    return tests


def _graded(student_id: str, failing: set[tuple[str, int]], mistakes: tuple[str, ...] = (),
            unexplained: dict[str, str] | None = None, status: Status = Status.GRADED, message: str | None = None
            ) -> StudentResult:
    tests = _tests(failing)
    findings = [Finding(m, "dcg", EXERCISE.mistake(m).title, "for rels=[3, 2] ...") for m in mistakes]
    return StudentResult(
        student_id=student_id, status=status, score=sum(t.points for t in tests), max_score=EXERCISE.max_score,
        message=message, tests=tests, diagnosis=Diagnosis(findings, dict(unexplained or {})),
    )


def _batch() -> BatchResult:
    students = [
        _graded("ana b", set()),
        _graded("bo#1%", {("test_dcg_cutoff", 0), ("test_dcg_grades", 2)}, ("log-base",)),
        _graded("caf\udce9", {("test_ndcg_ideal", 1)}, ("ideal-not-cut", "log-base"),
                {"ndcg": "your `ndcg` does not match a known mistake"}),
        _graded("dee", {("test_dcg_cutoff", 0), ("test_ndcg_zero", 0)}, ("zero-ideal",), status=Status.TIMEOUT,
                message="1 test call did not finish within 2 s"),
        _graded("gus", {("test_dcg_cutoff", 0)}, unexplained={"dcg": "your dcg does not match"}),
        StudentResult.without_grading("eve", Status.ERROR, "ndcg.ipynb is not valid JSON (...)", EXERCISE.max_score),
        StudentResult.without_grading("fay", Status.MISSING, "no notebook in ndcg/", EXERCISE.max_score),
    ]
    # what the gradebook adds (issue 33.1): a late penalty, a tutor's points on a failed test, a tutor's
    # points for an error the grader gave 0; every figure of the report must count the final scores
    due = datetime(2026, 12, 1, 17)
    students[0].late = Lateness(due, None, due + timedelta(minutes=5), 300.0, 4.0)
    cutoff = next(g for g in EXERCISE.groups if g.grade_id == "test_dcg_cutoff")
    students[1].manual = ManualMarks((CellMark(cutoff.grade_id, 0.0, cutoff.points, 0.0, None),),
                                     students[1].score + cutoff.points)
    students[5].manual = ManualMarks((CellMark("dcg", None, None, 3.0, "partly right on paper"),), 3.0)
    # the two reasons the grader flags a student whatever the status (issue 33.2, 33.3)
    students[2].copied_from = "bo#1%"
    students[4].needs_a_look.append("Task 1.2: the notebook's STUDENT_ID is 'ana b', not 'gus': it showed 'ana b''s "
                                    "list; marked against 'gus''s")
    students[4].shown_list_of = "ana b"
    return BatchResult(
        assignment=EXERCISE.assignment, notebook=EXERCISE.notebook, title=EXERCISE.title,
        max_score=EXERCISE.max_score, sandbox="test",
        groups=[GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in EXERCISE.groups],
        students=students,
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, BatchResult, BeautifulSoup]:
    out = tmp_path_factory.mktemp("graded")
    batch = _batch()
    for student in batch.students:
        write_feedback(out, EXERCISE, batch, student)
    report = write_report(out, EXERCISE, batch)
    return out, batch, BeautifulSoup(report.read_text(encoding="utf-8"), "html.parser")


def _rows(soup: BeautifulSoup, table_id: str) -> list[list]:
    return [row.find_all("td") for row in soup.find(id=table_id).find_all("tr")[1:]]


def _target(out: Path, href: str) -> Path:
    """The file a relative link points to when the folder is opened from disk (percent-decoded bytes)."""
    assert not href.startswith(("/", "http:", "https:", "file:")), href
    return out / os.fsdecode(unquote_to_bytes(href))


def test_the_roster_has_every_student_with_a_link_to_their_own_page(written):
    out, batch, soup = written
    rows = _rows(soup, "roster")
    assert [row[0].get_text() for row in rows] == [printable(s.student_id) for s in batch.students]
    for row, student in zip(rows, batch.students, strict=True):
        page = _target(out, row[0].find("a")["href"])
        assert page.is_file(), page
        assert printable(student.student_id) in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").title.text
        assert row[1].get_text() == student.status.value
        assert float(row[2].get_text().split("/")[0]) == student.final_score
        shown = {span.get_text() for span in row[3].find_all("span")}
        assert shown == {EXERCISE.mistake(m).title for m in student.diagnosis.ids}


def test_statistics_are_over_exactly_the_set_their_label_names(written):
    _, batch, soup = written
    scored = [s.final_score for s in batch.students if s.status in SCORED]
    everyone = [s.final_score for s in batch.students]
    assert len(scored) < len(everyone) and len({s.status for s in batch.students}) == 4  # the sets differ
    assert any(s.final_score != s.score for s in batch.students if s.status in SCORED)  # final is not raw here
    rows = _rows(soup, "statistics")
    assert len(rows) == 2
    for row, scores in zip(rows, [scored, everyone], strict=True):
        label = row[0].get_text()
        named = set()
        for status in sorted(Status, key=lambda s: -len(s.value)):  # "not graded" before "graded"
            if status.value in label:
                named.add(status)
                label = label.replace(status.value, "")
        # the scored row names exactly the scored statuses; the other names those that were not scored
        assert named == (SCORED if scores is scored else set(Status) - SCORED), row[0].get_text()
        values = [float(cell.get_text()) for cell in row[1:]]
        expected = [len(scores), statistics.mean(scores), statistics.median(scores), min(scores), max(scores)]
        assert values == pytest.approx(expected, abs=0.005)
    counts = soup.find(id="counts").get_text(" ", strip=True)
    for status in Status:  # each status that occurs, with its count (those that do not are left out)
        assert (f"{batch.count(status)} {status.value}" in counts) == (batch.count(status) > 0), status


def test_who_needs_a_look_is_named(written):
    _, batch, soup = written
    unexplained = [item.find("a").get_text() for item in soup.find(id="unexplained").find_all("li")]
    assert unexplained == [
        printable(s.student_id) for s in batch.students for _ in sorted(s.diagnosis.unexplained)
    ]
    trouble = [(row[0].get_text(), row[1].get_text()) for row in _rows(soup, "trouble")]
    expected = [(s.student_id, s.status.value) for s in batch.students if s.status is not Status.GRADED]
    assert sorted(trouble) == sorted(expected)


def test_who_needs_a_look_is_one_table_of_reasons_with_the_classmate(written):
    out, batch, soup = written
    assert soup.find(id="copied") is None and soup.find(id="flagged") is None  # not two lists
    rows = _rows(soup, "look")
    found = [(row[0].get_text(), row[2].get_text()) for row in rows]
    expected = [(printable(s.student_id), classmate) for s in batch.students
                for classmate in ([s.copied_from] if s.copied_from else []) + [s.shown_list_of] * len(s.needs_a_look)]
    assert found == expected and len(expected) == 2
    copier, typed = rows
    assert "fit the list of bo#1%" in copier[1].get_text() and "STUDENT_ID is 'ana b'" in typed[1].get_text()
    assert _target(out, copier[0].find("a")["href"]).is_file()  # the student's page
    assert _target(out, copier[2].find("a")["href"]) == out / "feedback" / "bo#1%" / "ndcg.html"  # the classmate's
    assert _target(out, copier[2].find("a")["href"]).is_file()
    assert typed[2].find("a") is None  # the id a notebook showed is the student's text: shown, not linked
    section = str(soup).split("<h2>Who needs a look</h2>")[1].split("<h2>")[0]
    for student, classmate in expected:
        assert f">{student}</a>" in section and classmate in section


def test_the_mistakes_listed_and_charted_are_those_that_occurred(written):
    _, batch, soup = written
    occurred: dict[str, int] = {}
    for student in batch.students:
        for mistake in student.diagnosis.ids:
            occurred[mistake] = occurred.get(mistake, 0) + 1
    assert 0 < len(occurred) < len(EXERCISE.catalogue)
    listed = {row[1].get_text(): int(row[2].get_text()) for row in _rows(soup, "mistakes")}
    assert listed == occurred
    chart = mistake_chart(list(summarize(EXERCISE, batch).mistakes), scored=5)
    bars = {label.get_text().replace("\n", " ") for label in chart.axes[0].get_yticklabels()}
    assert bars == {EXERCISE.mistake(m).title for m in occurred}
    alts = [img["alt"] for img in soup.find_all("img") if img["alt"].startswith("Students per mistake")]
    assert len(alts) == 1
    for mistake in EXERCISE.catalogue:
        assert (mistake.title in alts[0]) == (mistake.id in occurred)


def test_no_chart_of_mistakes_when_none_occurred():
    assert mistake_chart([], scored=3) is None


def test_each_case_shows_how_many_scored_students_failed_it(written):
    _, batch, soup = written
    rows = {(row[0].get_text(), row[1].get_text()): row for row in _rows(soup, "cases")}
    scored = [s for s in batch.students if s.status in SCORED]
    for group in EXERCISE.groups:
        # the fixed cases, then a row per template: the instance drawn for each submission
        provenances = [case.provenance for case in group.cases] + [t.provenance for t in group.templates]
        for index, provenance in enumerate(provenances):
            row = rows[(group.grade_id, f"{index + 1}/{len(provenances)}")]
            failed = sum(
                not t.case_results[index].passed for s in scored for t in s.tests if t.name == group.grade_id
            )
            assert row[4].get_text() == f"{failed} of {len(scored)}"
            assert row[2].get_text() == provenance.removeprefix("constructed: ")
    assert len(rows) == sum(len(g.cases) + len(g.templates) for g in EXERCISE.groups)


def test_the_tests_table_says_how_each_is_checked(written):
    # a by-hand answer is checked only when graded (validate passes a wrong value): not "visible" (issue 33.9)
    *_, soup = written
    shown = {row[0].get_text(): row[2].get_text() for row in _rows(soup, "tests")}
    answered = {g.grade_id for g in EXERCISE.answered.groups}
    expected = {g.grade_id: "answer checked when graded" if g.grade_id in answered else ("visible" if g.visible else "hidden")
                for g in EXERCISE.graded_groups}
    assert shown == expected


def test_the_report_shows_no_hidden_input(written):
    _, _, soup = written
    assert leaked([str(soup), soup.get_text(" ")]) == []


def _ticks(axis) -> list[float]:
    axis.figure.canvas.draw()
    low, high = axis.get_view_interval()
    return [t for t in axis.get_majorticklocs() if low <= t <= high]


@pytest.mark.parametrize("scores", [[10.0], [5.0, 5.5, 10.0], [0.0] * 3 + [7.5] * 2])
def test_student_counts_have_integer_ticks(scores):
    histogram = score_histogram(scores, EXERCISE.max_score, "scored submissions")
    ticks = _ticks(histogram.axes[0].yaxis)
    assert ticks and all(t == int(t) for t in ticks), ticks
    assert max(ticks) >= max(scores.count(s) for s in scores)
    batch = _batch()
    batch.students = [s for s in batch.students if s.status in SCORED][: len(scores)]
    summary = summarize(EXERCISE, batch)
    for figure in (pass_chart(list(summary.tests), len(batch.students)),
                   mistake_chart(list(summary.mistakes), len(batch.students))):
        if figure is not None:
            ticks = _ticks(figure.axes[0].xaxis)
            assert ticks and all(t == int(t) for t in ticks), ticks


def test_the_charts_are_images_and_the_same_results_give_the_same_page(written, tmp_path):
    out, batch, soup = written
    charts = soup.find_all("img")
    assert len(charts) >= 3 and all(img["src"].startswith("data:image/svg+xml;base64,") and img["alt"] for img in charts)
    write_report(tmp_path, EXERCISE, batch)  # no date, no random ids in the charts
    assert (tmp_path / "report.html").read_bytes() == (out / "report.html").read_bytes()


def test_the_histogram_passes_and_tables_count_final_scores_the_raw_one_only_labelled(written):
    """Issue 33.1: the histogram's bars, the passes per test and the look and late tables are final too."""
    _, batch, soup = written
    scored = [s for s in batch.students if s.status in SCORED]
    image = soup.find("img", alt=lambda alt: bool(alt) and alt.startswith("Students per final score"))
    bars = image["alt"][image["alt"].index("): ") + 3:].split("; ")
    finals = [s.final_score for s in scored]
    assert {float(bar.split(": ")[0]): int(bar.split(": ")[1]) for bar in bars} == {f: finals.count(f) for f in finals}
    passes = {row[0].get_text(): row[3].get_text() for row in _rows(soup, "tests")}
    cutoff_passed = sum(t.passed for s in scored for t in s.tests if t.name == "test_dcg_cutoff") + 1  # the tutor's
    assert passes["test_dcg_cutoff"] == f"{cutoff_passed} of {len(scored)}"
    trouble = {row[0].get_text(): float(row[2].get_text()) for row in _rows(soup, "trouble")}
    assert trouble == {printable(s.student_id): s.final_score for s in batch.students if printable(s.student_id) in trouble}
    assert trouble["eve"] == 3.0  # an error the tutor marked by hand
    (late,) = _rows(soup, "late")
    assert late[0].get_text() == "ana b" and float(late[-1].get_text()) == batch.students[0].score  # before the penalty
    assert "score before the penalty" in soup.find(id="late").find("tr").get_text()
