"""The class report for tutors (``OUT/report.html``, template ``templates/report.html.j2``).

Who needs a look (behaviour no known mistake explains, timeouts, errors, missing notebooks, late
work, manual marks), score statistics over sets the page names, and charts: the score distribution,
passes per test, the mistakes that occurred and the test cases by difficulty (described by what they
check). The roster of every student (status, score, mistakes by name, a link to their feedback page)
is in the report for up to :data:`ROSTER_PAGE` students; beyond, in ``OUT/roster/NNN.html``
pages of that many, in student order, which the report lists with their first and last student.

The students are read once, in order (:func:`write_report` takes them from any iterable), so the
report of 50,000 students is written in the memory of :data:`ROSTER_PAGE` rows and opens as fast
as that of 500. The numbers come from :class:`.summary.ClassTally`; the charts from :mod:`.figures`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..files import write_changed
from ..grading import BatchResult, Exercise, StudentResult
from .copying_notes import COMMAND, REPORT_NAME
from .figures import case_chart, figure_html, mistake_chart, most_failed, pass_chart, score_histogram
from .summary import SCORED_STATUSES, ClassSummary, ClassTally, RosterRow, roster_row
from .templating import render

#: Up to this many students the roster is in the report itself; beyond, in pages of this many.
ROSTER_PAGE = 500
#: The roster pages' folder in the output folder (``roster/001.html``, ...).
ROSTER_FOLDER = "roster"


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


@dataclass(frozen=True)
class RosterPage:
    """One page of the roster, as the report links it."""

    href: str
    first: str
    last: str
    students: int


def report_figures(summary: ClassSummary, max_score: float) -> ReportFigures:
    """Draw the report's charts from ``summary``."""
    scored = summary.scored.students
    mistakes = mistake_chart(list(summary.mistakes), scored)
    cases = case_chart(list(summary.cases))
    hardest = [(c.label, c.failed) for c in most_failed(list(summary.cases))]
    values, weights = [s for s, _ in summary.scores], [n for _, n in summary.scores]
    return ReportFigures(
        scores=figure_html(
            score_histogram(values, max_score, summary.scored.label, weights=weights),
            _alt(f"Students per final score ({summary.scored.label})", [(f"{s:g}", n) for s, n in summary.scores]),
        ),
        tests=figure_html(
            pass_chart(list(summary.tests), scored),
            _alt(f"Students passing each test (of {scored} scored)", [(t.grade_id, t.passed) for t in summary.tests]),
        ),
        mistakes=None if mistakes is None else figure_html(
            mistakes, _alt("Students per mistake", [(c.mistake.title, c.count) for c in summary.mistakes])
        ),
        cases=None if cases is None else figure_html(
            cases, _alt("Students failing the most failed test cases", hardest)
        ),
    )


class _Pager:
    """Holds at most one page of roster rows; writes a full page to ``folder`` once a next row comes."""

    def __init__(self, folder: Path, assignment: str) -> None:
        self.folder, self.assignment = folder, assignment
        self.rows: list[RosterRow] = []
        self.pages: list[RosterPage] = []

    def add(self, row: RosterRow) -> None:
        if len(self.rows) == ROSTER_PAGE:
            self.flush()
        self.rows.append(row)

    def flush(self) -> None:
        if not self.rows:
            return
        name = f"{len(self.pages) + 1:03d}.html"
        # the page lives one folder down: its links to the feedback pages go up one
        rows = [RosterRow(r.student, r.mistakes, r.unexplained, "../" + r.href) for r in self.rows]
        first, last = self.rows[0].student.student_id, self.rows[-1].student.student_id
        page = RosterPage(f"{ROSTER_FOLDER}/{name}", first, last, len(rows))
        write_changed(self.folder / name, render(
            "roster.html.j2", assignment=self.assignment, page=page, number=len(self.pages) + 1, roster=rows,
        ))
        self.pages.append(page)
        self.rows = []


def _clear_pages(folder: Path, keep: set[str]) -> None:
    """Remove the roster pages an earlier run wrote but this one did not (a class that shrank must not keep
    stale pages; the pages written again are left as they were when unchanged)."""
    if folder.is_dir():
        for page in folder.glob("[0-9][0-9][0-9]*.html"):
            if page.name not in keep:
                page.unlink()


def render_report(exercise: Exercise, batch: BatchResult, out: Path | None = None,
                  students: Iterable[StudentResult] | None = None) -> str:
    """The HTML of the class report of ``students`` (default: ``batch.students``), read once in order.

    With more than :data:`ROSTER_PAGE` students, the roster's pages are written to ``out/roster/``
    (``out`` is then required) and the report links them.
    """
    tally = ClassTally(exercise)
    folder = (out or Path(".")) / ROSTER_FOLDER
    pager = _Pager(folder, batch.assignment)
    for student in batch.students if students is None else students:
        row = roster_row(exercise, batch, student)
        tally.add(row)
        if out is None and len(pager.rows) == ROSTER_PAGE:
            raise ValueError(f"more than {ROSTER_PAGE} students: the roster's pages need an output folder (out=)")
        pager.add(row)
    if pager.pages:  # more than one page: the last goes to its page too
        pager.flush()
    if out is not None:
        _clear_pages(folder, {Path(page.href).name for page in pager.pages})
    summary = tally.summary()
    return render(
        "report.html.j2",
        assignment=batch.assignment,
        title=exercise.title,
        max_score=exercise.max_score,
        summary=summary,
        roster=pager.rows,
        pages=pager.pages,
        scored_statuses=SCORED_STATUSES,
        statistics=[summary.scored, summary.everyone],
        figures=report_figures(summary, exercise.max_score),
        # linked where it is (the copying command writes it beside this page), else the command is named
        copying=REPORT_NAME if out is not None and (out / REPORT_NAME).is_file() else None,
        copying_command=COMMAND, copying_name=REPORT_NAME,  # the page is the same wherever it is written
    )


def write_report(out: Path, exercise: Exercise, batch: BatchResult,
                 students: Iterable[StudentResult] | None = None) -> Path:
    """Write ``out/report.html`` (and the roster's pages for a large class); return its path.

    ``students`` (default ``batch.students``) is read once, in order: it may be a stream.
    """
    path = out / "report.html"
    write_changed(path, render_report(exercise, batch, out, students))  # unchanged: left alone
    return path
