"""The class report for tutors (``OUT/report.html``): what to re-teach, who needs a look.

Score distribution, pass rate per test and how often each mistake of the catalogue occurred, as
matplotlib figures embedded in one HTML file, plus tables of the mistakes and of the students
whose submission had an error, a timeout or was missing.
"""

from __future__ import annotations

import base64
import io
import statistics
from html import escape
from pathlib import Path

from .cases import GROUPS, max_score
from .files import write_atomic
from .misconceptions import CATALOGUE
from .results import status_summary


def _figure_html(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    import matplotlib.pyplot as plt

    plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img alt="figure" src="data:image/png;base64,{data}">'


def _figures(students: list[dict]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    graded = [s for s in students if s["status"] in ("graded", "timeout")]
    figures = []

    fig, ax = plt.subplots(figsize=(7, 3))
    bins = [b / 2 - 0.25 for b in range(int(max_score() * 2) + 2)]
    ax.hist([s["score"] for s in graded], bins=bins, color="tab:blue", edgecolor="white")
    ax.set_xlabel(f"score (of {max_score():g})")
    ax.set_ylabel("students")
    ax.set_title("Score distribution (graded submissions)")
    fig.tight_layout()
    figures.append(_figure_html(fig))

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(GROUPS) + 1))
    rates = []
    for group in GROUPS:
        passed = [t["passed"] for s in graded for t in s["tests"] if t["name"] == group.grade_id]
        rates.append(100 * sum(passed) / len(passed) if passed else 0.0)
    ax.barh([g.grade_id for g in GROUPS][::-1], rates[::-1], color="tab:green")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of graded submissions passing")
    ax.set_title("Pass rate per test")
    fig.tight_layout()
    figures.append(_figure_html(fig))

    fig, ax = plt.subplots(figsize=(7, 0.4 * len(CATALOGUE) + 1))
    counts = [sum(item.id in s["diagnoses"] for s in students) for item in CATALOGUE]
    ax.barh([item.id for item in CATALOGUE][::-1], counts[::-1], color="tab:red")
    ax.set_xlabel("students")
    ax.set_title("How often each mistake occurred")
    ax.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    figures.append(_figure_html(fig))
    return figures


def render_report(assignment: str, students: list[dict]) -> str:
    """The HTML of the class report."""
    graded = [s for s in students if s["status"] in ("graded", "timeout")]
    scores = [s["score"] for s in graded]
    summary = status_summary(students)
    average = f"mean {statistics.mean(scores):.2f}, median {statistics.median(scores):g}" if scores else "no graded submissions"
    mistake_rows = "".join(
        f"<tr><td><code>{escape(item.id)}</code></td><td class=\"n\">{sum(item.id in s['diagnoses'] for s in students)}</td>"
        f"<td>{escape(item.title)}</td></tr>"
        for item in sorted(CATALOGUE, key=lambda i: -sum(i.id in s["diagnoses"] for s in students))
    )
    unexplained = sum(bool(s.get("unexplained")) for s in students if s["status"] in ("graded", "timeout"))
    trouble = [s for s in students if s["status"] != "graded"]
    trouble_rows = "".join(
        f"<tr><td>{escape(s['student_id'])}</td><td>{escape(s['status'])}</td><td class=\"n\">{s['score']:g}</td>"
        f"<td>{escape(s['message'])}</td></tr>"
        for s in trouble
    ) or '<tr><td colspan="4">none</td></tr>'
    figures = "".join(f"<p>{figure}</p>" for figure in _figures(students))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Class report: {escape(assignment)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }} th, td {{ border-bottom: 1px solid #ddd; padding: .3rem .6rem; text-align: left; vertical-align: top; }}
td.n {{ text-align: right; }} img {{ max-width: 100%; }}
</style></head><body>
<h1>Class report: {escape(assignment)} (DCG and nDCG)</h1>
<p>{len(students)} students: {summary}. Scores of graded submissions: {average} (of {max_score():g}).</p>
{figures}
<h2>Mistakes, most frequent first</h2>
<table><tr><th>ID</th><th>students</th><th>mistake</th></tr>
{mistake_rows}
</table>
<p>{unexplained} graded submissions also showed wrong behaviour that matches no known mistake (see their feedback).</p>
<h2>Submissions that need a look (error, timeout, missing)</h2>
<table><tr><th>student</th><th>status</th><th>score</th><th>message</th></tr>
{trouble_rows}
</table>
</body></html>
"""


def write_report(out: Path, assignment: str, students: list[dict]) -> Path:
    path = out / "report.html"
    write_atomic(path, render_report(assignment, students))
    return path
