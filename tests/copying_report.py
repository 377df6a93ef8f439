"""Reading the copying report of a test course: its summary line and its page's tables."""

from __future__ import annotations

from pathlib import Path

from autograder.byhand.copied import write_report
from autograder.exercises.ndcg import EXERCISE as NDCG


def copying_report(course: Path) -> tuple[str, str]:
    """Write ``graded/copying.html`` for ``course`` (threshold 0.8); return the summary and the page."""
    summary = write_report(course, NDCG, course / "submitted", course / "graded" / "copying.html", 0.8)
    return summary, (course / "graded" / "copying.html").read_text(encoding="utf-8")


def report_table(page: str, table: str) -> str:
    """The rows of the page's table with id ``table``."""
    return page.split(f'id="{table}"')[1].split("</table>")[0]
