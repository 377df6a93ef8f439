"""What the grading run's pages say about the copying report: where it is, and a copied by-hand answer.

The report itself is the by-hand feature's (:mod:`autograder.byhand.copied`); the results, the
summary and the report pages below it only name it, so these few lines live here.
"""

from __future__ import annotations

from pathlib import Path

from ..grading import StudentResult

#: The copying report's file in the grader's output folder (where ``python -m autograder copying`` writes it).
REPORT_NAME = "copying.html"
COMMAND = "python -m autograder copying"


def copied_note(student: StudentResult) -> str:
    """For the tutor: whose Task 1.2 list the student's answers fit, not their own; empty when none."""
    if student.copied_from is None:
        return ""
    return f"needs a look: Task 1.2 answers fit the list of {student.copied_from}, not their own"


def copying_note(out: Path) -> str:
    """One line for the end of a grading run: where the copying report is, or the command that writes it."""
    path = out / REPORT_NAME
    if path.is_file():
        return f"copying report: {path} (as of its last run; `{COMMAND}` updates it)"
    return f"copying report: not written yet; `{COMMAND} --out {path}` writes it (code similarity, by-hand answers)"
