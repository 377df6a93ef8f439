"""One self-contained HTML feedback page per student.

It shows the score per test with what went wrong, the recognised mistakes (with their
explanation from the catalogue and a counterexample on a probe input), and the formula and conventions of the exercise, so that a student who missed the tutorial can read it
alone. It never shows a hidden test's input or expected value: the messages come from
:mod:`autograder.scoring`, which writes hidden cases by their property only.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from .files import write_atomic
from .misconceptions import BY_ID

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: .4rem .5rem; text-align: left; vertical-align: top; }
td.points { text-align: right; white-space: nowrap; }
.pass { color: #17623a; } .fail { color: #a1261d; }
.box { background: #f5f5f7; border-radius: 6px; padding: .6rem 1rem; }
code { background: #f0f0f0; padding: 0 .2rem; }
"""

_STATUS_TEXT = {
    "graded": "Your notebook was graded.",
    "timeout": "Your notebook was graded, but some of your code did not finish in time (see below).",
    "error": "Your notebook could not be graded.",
    "missing": "No notebook was found for you.",
}

_FORMULA = """
<h2>The definition used for grading</h2>
<div class="box">
<p>DCG@k = &sum;<sub>i=1..k</sub> rel<sub>i</sub> / log<sub>2</sub>(i + 1), with rank i starting at 1
(rank 1 is divided by log<sub>2</sub> 2 = 1). In Python: <code>sum(rels[i] / math.log2(i + 2) for i in
range(min(k, len(rels))))</code>.</p>
<p>nDCG@k = DCG@k / iDCG@k, where iDCG@k is the DCG@k of the whole list sorted descending
(<code>sorted(rels, reverse=True)</code>), and nDCG@k = 0.0 when iDCG@k is 0.</p>
<p>Lecture example: grades 1, 0, 2, 1, 0 give DCG@5 = 2.4307, iDCG@5 = 3.1309, nDCG@5 = 0.7763.</p>
<p>Conventions: k larger than the list means the whole list; the gain is the grade itself (not
2<sup>rel</sup> &minus; 1); do not modify the input list; return an unrounded number.</p>
</div>
"""


def _mistakes_section(student: dict) -> str:
    """What went wrong: each recognised mistake with its explanation and a counterexample."""
    items = []
    for finding in student.get("diagnosis_details", []):
        entry = BY_ID[finding["id"]]
        items.append(
            f"<li><strong>{escape(entry.title)}</strong> <small>(<code>{escape(entry.id)}</code>, in "
            f"<code>{escape(finding['function'])}</code>)</small><br>{escape(entry.explanation)}<br>"
            f"<em>Example:</em> {escape(finding['counterexample'])}</li>"
        )
    for function, message in sorted(student.get("unexplained", {}).items()):
        items.append(f"<li><strong>{escape(function)}</strong>: {escape(message)}</li>")
    if not items:
        return ""
    return "<h2>What went wrong</h2><ul>" + "".join(items) + "</ul>"


def render_feedback(student: dict, assignment: str, extra_sections: str = "") -> str:
    """The feedback page for one student's result (a dict as in ``results.json``)."""
    rows = []
    for test in student["tests"]:
        mark = '<span class="pass">passed</span>' if test["passed"] else '<span class="fail">failed</span>'
        kind = "visible" if test["visible"] else "hidden"
        rows.append(
            f"<tr><td>{escape(test['description'])} <small>({kind})</small></td><td>{mark}</td>"
            f"<td class=\"points\">{test['points']:g} / {test['max_points']:g}</td>"
            f"<td>{escape(test['message'])}</td></tr>"
        )
    table = (
        "<table><tr><th>test</th><th>result</th><th>points</th><th>details</th></tr>" + "".join(rows) + "</table>"
        if rows else ""
    )
    message = student.get("message", "")
    notes = f'<p class="box">{escape(message)}</p>' if message and message != "graded" else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Feedback {escape(assignment)}: {escape(student['student_id'])}</title>
<style>{_STYLE}</style></head>
<body>
<h1>Feedback on {escape(assignment)}: DCG and nDCG</h1>
<p>Student: <strong>{escape(student['student_id'])}</strong> &mdash; score
<strong>{student['score']:g} / {student['max_score']:g}</strong></p>
<p>{escape(_STATUS_TEXT.get(student['status'], student['status']))}</p>
{notes}
{table}
{_mistakes_section(student)}
{extra_sections}
{_FORMULA}
<p><small>Hidden tests are described by what they check; their inputs are not shown.</small></p>
</body></html>
"""


def write_feedback(out: Path, assignment: str, notebook: str, student: dict, extra_sections: str = "") -> str:
    """Write ``out/feedback/<student>/<notebook>.html``; return its path relative to ``out``."""
    relative = Path("feedback") / student["student_id"] / f"{Path(notebook).stem}.html"
    write_atomic(out / relative, render_feedback(student, assignment, extra_sections))
    return relative.as_posix()
