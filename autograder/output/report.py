"""The class report for tutors (``OUT/report.html``, template ``templates/report.html.j2``).

Score distribution, pass rate per test and how often each mistake of the catalogue occurred, as
matplotlib figures embedded in one HTML file, plus tables of the mistakes and of the students
whose submission had an error, a timeout or was missing: what to re-teach, who needs a look.
"""

from __future__ import annotations

import base64
import io
import statistics
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no screen: render to PNG only
import matplotlib.pyplot as plt
from markupsafe import Markup
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..files import write_atomic
from ..grading import BatchResult, Exercise, Mistake, Status
from .templating import render


@dataclass(frozen=True)
class MistakeCount:
    """How many students made one mistake of the catalogue."""

    mistake: Mistake
    students: int


def _figure_html(figure: Figure) -> Markup:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode()
    # our own PNG in base64: nothing in it can be markup
    return Markup('<img alt="figure" src="data:image/png;base64,{}">').format(data)


def mistake_counts(exercise: Exercise, batch: BatchResult) -> list[MistakeCount]:
    """Every catalogue mistake with the number of students it was found in, in catalogue order."""
    return [
        MistakeCount(mistake, sum(mistake.id in s.diagnosis.ids for s in batch.students))
        for mistake in exercise.catalogue
    ]


def _figures(exercise: Exercise, batch: BatchResult, counts: list[MistakeCount]) -> list[Markup]:
    graded = [s for s in batch.students if s.counted]
    figures = []

    fig, ax = plt.subplots(figsize=(7, 3))
    bins = [b / 2 - 0.25 for b in range(int(exercise.max_score * 2) + 2)]
    ax.hist([s.score for s in graded], bins=bins, color="tab:blue", edgecolor="white")
    ax.set_xlabel(f"score (of {exercise.max_score:g})")
    ax.set_ylabel("students")
    ax.set_title("Score distribution (graded submissions)")
    fig.tight_layout()
    figures.append(_figure_html(fig))

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(exercise.groups) + 1))
    rates = []
    for group in exercise.groups:
        passed = [t.passed for s in graded for t in s.tests if t.name == group.grade_id]
        rates.append(100 * sum(passed) / len(passed) if passed else 0.0)
    ax.barh([g.grade_id for g in exercise.groups][::-1], rates[::-1], color="tab:green")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of graded submissions passing")
    ax.set_title("Pass rate per test")
    fig.tight_layout()
    figures.append(_figure_html(fig))

    fig, ax = plt.subplots(figsize=(7, 0.4 * len(counts) + 1))
    ax.barh([c.mistake.id for c in counts][::-1], [c.students for c in counts][::-1], color="tab:red")
    ax.set_xlabel("students")
    ax.set_title("How often each mistake occurred")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    figures.append(_figure_html(fig))
    return figures


def render_report(exercise: Exercise, batch: BatchResult) -> str:
    """The HTML of the class report."""
    scores = [s.score for s in batch.students if s.counted]
    average = (
        f"mean {statistics.mean(scores):.2f}, median {statistics.median(scores):g}" if scores
        else "no graded submissions"
    )
    counts = mistake_counts(exercise, batch)
    return render(
        "report.html.j2",
        assignment=batch.assignment,
        title=exercise.title,
        students=len(batch.students),
        summary=batch.status_summary,
        average=average,
        max_score=exercise.max_score,
        figures=_figures(exercise, batch, counts),
        mistakes=sorted(counts, key=lambda c: -c.students),
        unexplained=sum(bool(s.diagnosis.unexplained) for s in batch.students if s.counted),
        trouble=[s for s in batch.students if s.status is not Status.GRADED],
    )


def write_report(out: Path, exercise: Exercise, batch: BatchResult) -> Path:
    """Write ``out/report.html``; return its path."""
    path = out / "report.html"
    write_atomic(path, render_report(exercise, batch))
    return path
