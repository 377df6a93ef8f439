"""The feedback page as a student reads it: messages with their code as code, the definition
without its solution unless the tutor asks for it (``--show-solution``)."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from autograder.cli import grade_options, parser
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import CellMark, Diagnosis, Finding, ManualMarks, Status, StudentResult, TestResult
from autograder.output.feedback import render_feedback
from autograder.output.markup import without_solution

#: Messages as the engine writes them, with code spans, and one span holding markup a student could choose.
MESSAGES = [
    "your notebook does not define a function `dcg`",
    "`ndcg` changed the caller's list on a hidden case (x); do not modify `rels` (use sorted(rels))",
    "`dcg` raised `<script>alert(1)</script>` & an `<img src=x onerror=alert(1)>`",
]


def _student(message: str) -> StudentResult:
    return StudentResult(
        student_id="ana", status=Status.GRADED, score=1.0, max_score=EXERCISE.max_score, message=message,
        tests=[TestResult(name="test_dcg_cutoff", description="dcg sums the top k", points=0.0, max_points=2.0,
                          passed=False, message=message, visible=False, cases_passed=0, cases=1)],
        diagnosis=Diagnosis([Finding("log-base", "dcg", "t", message)], {"ndcg": message}),
    )


def _spans(message: str) -> list[str]:
    return re.findall(r"`([^`]+)`", message)


def test_code_spans_in_messages_become_code_elements_and_nothing_else_is_markup():
    for message in MESSAGES:
        soup = BeautifulSoup(render_feedback(EXERCISE, _student(message)), "html.parser")
        assert soup.find("script") is None and soup.find("img") is None
        cells = [
            soup.select_one("p.box"),  # the notes
            soup.select("table tr")[1].find_all("td")[3],  # the test's details
            *soup.select("li")[-2:],  # the finding's counterexample and the unexplained message
        ]
        for cell in cells:
            codes = [code.get_text() for code in cell.find_all("code")]
            # the spans in order (the list items also name the mistake and function in code)
            assert codes[-len(_spans(message)):] == _spans(message), (message, str(cell))
            assert "`" not in cell.get_text()


def _solution_parts() -> list[str]:
    parts = [" ".join(e.get_text().split()) for e in BeautifulSoup(EXERCISE.definition_html, "html.parser").select(
        ".solution")]
    assert parts, "the exercise's definition marks no solution: nothing for --show-solution to show"
    return parts


def _definition_text(page: str) -> str:
    box = BeautifulSoup(page, "html.parser").find("h2", string=re.compile("definition")).find_next("div")
    return " ".join(box.get_text().split())


def test_the_definition_leaves_out_the_solution_by_default():
    shown = _definition_text(render_feedback(EXERCISE, _student("graded")))
    definition = BeautifulSoup(EXERCISE.definition_html, "html.parser")
    for part in _solution_parts():
        assert part not in shown
    for element in definition.select(".solution"):
        element.decompose()
    assert shown == " ".join(definition.get_text().split())  # everything else is there, as written


def test_the_definition_shows_the_solution_when_the_tutor_asks():
    page = render_feedback(EXERCISE, _student("graded"), show_solution=True)
    shown = _definition_text(page)
    assert shown == " ".join(BeautifulSoup(EXERCISE.definition_html, "html.parser").get_text().split())
    for part in _solution_parts():
        assert part in shown


def test_show_solution_is_a_grade_option_off_by_default():
    assert grade_options(parser().parse_args(["grade"])).show_solution is False
    assert grade_options(parser().parse_args(["grade", "--show-solution"])).show_solution is True


def test_a_solution_element_is_cut_whole_and_an_unclosed_one_is_an_error():
    html = '<p>a<span class="x solution">b<span>c</span><br>d</span>e</p><p class="solution">f<p>g'
    assert BeautifulSoup(without_solution(html.removesuffix("<p>g") + "</p>"), "html.parser").get_text() == "ae"
    with pytest.raises(ValueError, match="solution"):  # it would silently drop the rest of the page
        without_solution(html)


@pytest.mark.parametrize("grader, tutor, shown", [(2.0, 0.0, "failed (your tutor)"), (0.0, 2.0, "passed (your tutor)"),
                                                  (2.0, 1.0, "partly (your tutor)")])
def test_a_test_the_tutor_marked_shows_the_tutors_result_not_the_graders(grader, tutor, shown):
    """Issue 33.5: after a tutor's 0 the row no longer reads "passed" in green."""
    passed = grader == 2.0
    student = StudentResult(
        student_id="ana", status=Status.GRADED, score=grader, max_score=EXERCISE.max_score,
        tests=[TestResult(name="byhand_ndcg", description="nDCG@k of your list", points=grader, max_points=2.0,
                          passed=passed, message="NDCG_AT_K = 0.94: consistent with your own DCG and iDCG",
                          visible=True, cases_passed=int(passed), cases=1)],
        manual=ManualMarks((CellMark("byhand_ndcg", grader, tutor, 0.0, None),), tutor),
    )
    row = BeautifulSoup(render_feedback(EXERCISE, student), "html.parser").find(id="tests").find_all("tr")[1]
    result, points, details = (cell.get_text(" ", strip=True) for cell in row.find_all("td")[1:])
    assert result == shown
    assert row.find_all("td")[1].find("span")["class"] == ["pass" if tutor == 2.0 else "fail"]
    assert points.startswith(f"{tutor:g} / 2") and f"the grader gave {grader:g}" in points
    assert details.startswith("the grader's check, which your tutor's mark replaces:")


def test_a_by_hand_answer_is_not_called_visible():
    """Issue 33.9: validate passes a wrong by-hand value, so its row must not promise a visible check."""
    by_hand = EXERCISE.answered.groups[0]
    code = next(g for g in EXERCISE.groups if g.visible), next(g for g in EXERCISE.groups if not g.visible)
    tests = [TestResult(name=g.grade_id, description=g.description, points=0.0, max_points=g.points, passed=False,
                        message="m", visible=g.visible, cases_passed=0, cases=1) for g in (by_hand, *code)]
    student = StudentResult(student_id="ana", status=Status.GRADED, score=0.0, max_score=EXERCISE.max_score, tests=tests)
    rows = BeautifulSoup(render_feedback(EXERCISE, student), "html.parser").find(id="tests").find_all("tr")[1:]
    labels = [row.find("td").find("small").get_text() for row in rows]
    assert labels == ["(answer checked when graded)", "(visible)", "(hidden)"]
