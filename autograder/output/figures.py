"""The class report's charts (matplotlib, rendered to SVG and embedded in the page as images).

Every axis that counts students has integer ticks; a chart with nothing to show (no mistake
found, no case failed) is not drawn. Each function returns the :class:`~matplotlib.figure.Figure`
(tests read its axes); :func:`figure_html` turns one into an ``<img>`` with a text alternative.
"""

from __future__ import annotations

import base64
import io
import textwrap

import matplotlib

matplotlib.use("Agg")  # no screen: render to files only
import matplotlib.pyplot as plt
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .summary import CaseDifficulty, MistakeCount, TestPasses

#: Characters per line of a bar's label before it wraps.
LABEL_WIDTH = 48
#: The case chart shows this many of the most failed cases (the report's table lists every case).
MAX_CASE_BARS = 15


def figure_html(figure: Figure, alt: str) -> Markup:
    """``figure`` as an ``<img>`` with the SVG inline and ``alt`` as its text alternative (escaped).

    SVG rather than PNG: no rasterising and no PNG encoding, a third less time for the report's charts.
    """
    buffer = io.BytesIO()
    # text as text (the browser draws it: each glyph as a path would cost a third more), and the same
    # ids and no date in every run: the same results give the same page
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ndcg-kit-report"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode()
    # our own SVG in base64, shown as an image (no script in an <img> runs): nothing in it can be markup
    # of the page; the text alternative is escaped by format
    return Markup('<img alt="{}" src="data:image/svg+xml;base64,{}">').format(alt, data)


def _counts(ax: Axes, which: str, most: int) -> None:
    """Students are counted in whole numbers: integer ticks on axis ``which`` ("x", "y"), from 0 to at least 1."""
    # matplotlib would tick 0.2, 0.4, ... for one student, and 0..1 for nobody at all
    (ax.xaxis if which == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))
    (ax.set_xlim if which == "x" else ax.set_ylim)(0, max(most, 1))


def _bars(ax: Axes, labels: list[str], values: list[int], color: str) -> None:
    """Horizontal bars, the first on top, without matplotlib's margins (they grow with the number of bars)."""
    ax.barh(labels[::-1], values[::-1], color=color)
    ax.set_ylim(-0.6, len(labels) - 0.4)


def _wrapped(label: str) -> str:
    # a "$" would start matplotlib's math mode (and a lone one can fail to parse)
    return "\n".join(textwrap.wrap(label, LABEL_WIDTH)).replace("$", r"\$") or label


def score_histogram(scores: list[float], max_score: float, label: str, *, weights: list[int] | None = None) -> Figure:
    """How many students got each final score (in half points).

    Parameters
    ----------
    scores : list of float
        One score per student of the set ``label`` names; with ``weights``, each score once.
    max_score : float
        The exercise's total points (the x axis ends there).
    label : str
        Which students these are, for the title (e.g. "scored submissions (graded or timeout)").
    weights : list of int, optional
        How many students got each of ``scores`` (a class of 50,000 is drawn from its few distinct scores).
    """
    fig, ax = plt.subplots(figsize=(7, 3))
    bins = [b / 2 - 0.25 for b in range(int(max_score * 2) + 2)]
    counts, _, _ = ax.hist(scores, bins=bins, weights=weights, color="tab:blue", edgecolor="white")
    _counts(ax, "y", int(max(counts, default=0)))
    ax.set_xlabel(f"final score (of {max_score:g})")
    ax.set_ylabel("students")
    ax.set_title(f"Final scores: {len(scores) if weights is None else sum(weights)} {label}")
    fig.tight_layout()
    return fig


def pass_chart(tests: list[TestPasses], scored: int) -> Figure:
    """How many of the ``scored`` submissions passed each test group."""
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(tests) + 1.2))
    _bars(ax, [t.grade_id for t in tests], [t.passed for t in tests], "tab:green")
    _counts(ax, "x", scored)
    ax.set_xlabel(f"students passing (of {scored} scored)")
    ax.set_title("Passes per test")
    fig.tight_layout()
    return fig


def mistake_chart(mistakes: list[MistakeCount], scored: int) -> Figure | None:
    """How many of the ``scored`` students made each mistake that occurred (None when none did)."""
    if not mistakes:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(mistakes) + 1.2))
    _bars(ax, [_wrapped(c.mistake.title) for c in mistakes], [c.count for c in mistakes], "tab:red")
    _counts(ax, "x", max([scored, *(c.count for c in mistakes)]))
    ax.set_xlabel(f"students (of {scored} scored)")
    ax.set_title("Mistakes that occurred")
    fig.tight_layout()
    return fig


def most_failed(cases: list[CaseDifficulty]) -> list[CaseDifficulty]:
    """The cases the case chart shows: at most :data:`MAX_CASE_BARS` that anyone failed, most failed first."""
    return sorted((c for c in cases if c.failed), key=lambda c: -c.failed)[:MAX_CASE_BARS]


def case_chart(cases: list[CaseDifficulty]) -> Figure | None:
    """How many students failed each of the :func:`most_failed` cases (None when no case was failed)."""
    failed = most_failed(cases)
    if not failed:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(failed) + 1.2))
    _bars(ax, [_wrapped(c.label) for c in failed], [c.failed for c in failed], "tab:orange")
    _counts(ax, "x", max(c.scored for c in failed))
    ax.set_xlabel(f"students failing the case (of {max(c.scored for c in failed)} scored)")
    ax.set_title(f"The {len(failed)} most failed test cases" if len(failed) > 1 else "The failed test case")
    fig.tight_layout()
    return fig
