"""The report's one "Who needs a look" list: each student the grader flags, with the reason and the classmate.

Two signals flag a student whatever the status: Task 1.2 answers that fit another student's list
(:attr:`~autograder.grading.StudentResult.copied_from`) and the grader's own reasons
(:attr:`~autograder.grading.StudentResult.needs_a_look`, e.g. a notebook whose ``STUDENT_ID`` was
another id: :attr:`~autograder.grading.StudentResult.shown_list_of`). A tutor reads them in one
table, a row per reason, rather than in two lists with two headings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ..grading import StudentResult
from .copying_notes import copied_note


@dataclass(frozen=True)
class LookRow:
    """One reason to look at one student."""

    student: StudentResult
    #: The student's feedback page, relative to the report (as :attr:`.summary.RosterRow.href`).
    href: str
    #: Why, in one line.
    reason: str
    #: The other student's id the reason is about (whose list the answers fit, or the notebook showed); None: none.
    classmate: str | None = None
    #: That student's feedback page, where they are a student of the class with one; None: the id as text only.
    classmate_href: str | None = None


def page_href(student_id: str, notebook: str) -> str:
    """The link from the report to the page of the student ``student_id``: each part percent-encoded from its bytes.

    Examples
    --------
    >>> page_href("ana b#1", "nb.ipynb")
    'feedback/ana%20b%231/nb.html'
    """
    path = Path("feedback") / student_id / f"{Path(notebook).stem}.html"
    return "/".join(quote(os.fsencode(part), safe="") for part in path.parts)


def look_rows(student: StudentResult, href: str, notebook: str) -> list[LookRow]:
    """Every reason the report gives to look at ``student`` (empty for most), copying first.

    The classmate whose list the answers fit is a student of the class (the grader compares with the
    class only): linked to their page. The id a notebook showed is the student's own text (a
    classmate's id, a typo): shown, never linked.
    """
    rows = []
    if student.copied_from is not None:
        rows.append(LookRow(student, href, copied_note(student).removeprefix("needs a look: "), student.copied_from,
                            page_href(student.copied_from, notebook)))
    rows.extend(LookRow(student, href, reason, student.shown_list_of) for reason in student.needs_a_look)
    return rows
