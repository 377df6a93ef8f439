"""Feedback and report pages from their templates: every value escaped, the exercise's definition kept."""

from __future__ import annotations

from html.parser import HTMLParser

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import BatchResult, Diagnosis, Finding, GroupInfo, Status, StudentResult, TestResult
from autograder.output.feedback import render_feedback
from autograder.output.report import render_report

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def _student() -> StudentResult:
    return StudentResult(
        student_id=HOSTILE, status=Status.ERROR, score=1.5, max_score=EXERCISE.max_score, message=HOSTILE,
        tests=[TestResult(name="test_dcg_lecture", description=HOSTILE, points=1.0, max_points=1.0, passed=True,
                          message=HOSTILE, visible=True, cases_passed=2, cases=2)],
        diagnosis=Diagnosis([Finding("log-base", HOSTILE, "title", HOSTILE)], {"dcg": HOSTILE}),
    )


def test_feedback_escapes_everything_a_student_can_influence():
    page = render_feedback(EXERCISE, _student())
    parsed = _parse(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    text = "".join(parsed.text)
    assert text.count(HOSTILE) >= 5  # shown as text: id, message, test, finding, unexplained
    assert EXERCISE.mistake("log-base").explanation in text


def test_feedback_shows_the_definition_as_html():
    parsed = _parse(render_feedback(EXERCISE, _student()))
    assert "sub" in parsed.tags and "code" in parsed.tags  # from definition.html, not escaped


def test_report_escapes_ids_and_messages():
    student = _student()
    batch = BatchResult(
        assignment="ndcg", notebook="ndcg.ipynb", title=EXERCISE.title, max_score=EXERCISE.max_score,
        sandbox="test", groups=[GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in EXERCISE.groups],
        students=[student],
    )
    parsed = _parse(render_report(EXERCISE, batch))
    assert "script" not in parsed.tags
    # only the charts: scores, passes per test, the one mistake (no case chart: nobody was scored)
    assert parsed.tags.count("img") == 3
    assert HOSTILE in "".join(parsed.text)
