"""The class report for tutors (``OUT/report.html``, template ``templates/report.html.j2``).

A roster of every student (status, score, mistakes by name, a link to their feedback page), who
needs a look (behaviour no known mistake explains, timeouts, errors, missing notebooks), score
statistics over sets the page names, and charts: the score distribution, passes per test, the
mistakes that occurred and the test cases by difficulty (described by what they check). The
numbers come from :func:`.summary.summarize`; the charts from :mod:`.figures`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..files import write_atomic
from ..grading import BatchResult, Exercise
from .figures import case_chart, figure_html, mistake_chart, most_failed, pass_chart, score_histogram
from .summary import SCORED_STATUSES, ClassSummary, summarize
from .templating import render


def _alt(title: str, items: list[tuple[str, int]]) -> str:
    """A chart's text alternative: its title and every bar, for screen readers and for tests."""
    return f"{title}: " + "; ".join(f"{label}: {n}" for label, n in items) if items else f"{title}: none"


@dataclass(frozen=True)
class ReportFigures:
    """The report's charts as ``<img>`` elements; None for a chart with nothing to show."""

    scores: Markup
    tests: Markup
    mistakes: Markup | None
    cases: Markup | None


def report_figures(summary: ClassSummary, max_score: float) -> ReportFigures:
    """Draw the report's charts from ``summary``."""
    scored = summary.scored.students
    histogram = {score: summary.scores.count(score) for score in sorted(set(summary.scores))}
    mistakes = mistake_chart(list(summary.mistakes), scored)
    cases = case_chart(list(summary.cases))
    hardest = [(c.label, c.failed) for c in most_failed(list(summary.cases))]
    return ReportFigures(
        scores=figure_html(
            score_histogram(list(summary.scores), max_score, summary.scored.label),
            _alt(f"Students per score ({summary.scored.label})", [(f"{s:g}", n) for s, n in histogram.items()]),
        ),
        tests=figure_html(
            pass_chart(list(summary.tests), scored),
            _alt(f"Students passing each test (of {scored} scored)", [(t.grade_id, t.passed) for t in summary.tests]),
        ),
        mistakes=None if mistakes is None else figure_html(
            mistakes, _alt("Students per mistake", [(c.mistake.title, len(c.students)) for c in summary.mistakes])
        ),
        cases=None if cases is None else figure_html(
            cases, _alt("Students failing the most failed test cases", hardest)
        ),
    )


def render_report(exercise: Exercise, batch: BatchResult) -> str:
    """The HTML of the class report."""
    summary = summarize(exercise, batch)
    return render(
        "report.html.j2",
        assignment=batch.assignment,
        title=exercise.title,
        max_score=exercise.max_score,
        summary=summary,
        scored_statuses=SCORED_STATUSES,
        statistics=[summary.scored, summary.everyone],
        figures=report_figures(summary, exercise.max_score),
    )


def write_report(out: Path, exercise: Exercise, batch: BatchResult) -> Path:
    """Write ``out/report.html``; return its path."""
    path = out / "report.html"
    write_atomic(path, render_report(exercise, batch))
    return path
