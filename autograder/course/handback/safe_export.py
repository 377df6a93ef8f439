"""``nbgrader export``'s default in this course: nbgrader's CSV columns, every cell quoted and inert.

nbgrader's ``CsvExportPlugin`` joins the fields with ``","`` and quotes nothing, so a student id, a
name or an email with a comma and a newline adds a well-formed row of its own (a forged grade), and
a cell starting with ``=`` or ``@`` is a live spreadsheet formula. This plugin, selected in
``nbgrader_config.py`` (``c.ExportApp.plugin_class``), writes the same columns in the same order
with Python's ``csv`` module quoting every cell, each text cell made printable and kept from being a
formula with a leading ``'`` (:func:`~autograder.output.safe_text.csv_cell`, as the kit's
``grades.csv`` and the LMS files). Scores are numbers it formats itself.

A row whose gradebook time is not the time in ``submitted/<student>/<assignment>/timestamp.txt``
holds no grading of the submission the course has (the student submitted again and was not
graded since, or a grading did not finish: :mod:`...gradebook.recorded_time`); nbgrader's formgrader shows it
as "needs autograde". Its score cells are left empty, never the earlier submission's numbers, and
the log names each such student with both times, so a tutor neither uploads a grade for work
nobody graded nor misses that the row is open (``nbgrader autograde`` fills it).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ...files import write_atomic
from ...gradebook import recorded_time
from ...grading import FinalScore
from ...grading.reading.student_ids import name_problem
from ...nbgrader_adapter import ExportPlugin, Gradebook, MissingEntry
from ...output.safe_text import csv_cell, printable

#: nbgrader's ``CsvExportPlugin`` columns, in its order (a tutor's scripts read them by name).
COLUMNS = ("assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score")


def _text(value: Any) -> str:
    return "" if value is None else csv_cell(str(value))


@dataclass(frozen=True)
class NotGraded:
    """A row left without a score: the gradebook graded another submission than ``submitted/`` holds."""

    assignment: str
    student_id: str
    #: The time of the submission the gradebook's grades belong to (None: a grading never finished).
    graded: datetime | None
    #: The time in ``timestamp.txt``.
    submitted: datetime

    def __str__(self) -> str:
        graded = "a grading that did not finish" if self.graded is None else f"the submission of {self.graded}"
        return (f"{printable(self.student_id)} ({printable(self.assignment)}): submitted at {self.submitted}, "
                f"but the gradebook holds {graded}: scores left empty, run `nbgrader autograde`")


def open_row(submitted: Path | None, assignment: str, student_id: str, graded: datetime | None) -> NotGraded | None:
    """Why a gradebook row's grades are not the submission's, or None when they are (or nothing says).

    Parameters
    ----------
    submitted : Path or None
        The course's ``submitted/`` (None: nothing to compare with, every row keeps its score).
    assignment, student_id : str
    graded : datetime or None
        The gradebook's time of the submission its grades belong to (None: a grading that did not finish).

    Returns
    -------
    NotGraded or None
        Set when ``submitted/<student_id>/<assignment>/timestamp.txt`` names another time.
    """
    # a gradebook id the student-id rule refuses (an older gradebook's) names no folder to read
    if submitted is None or name_problem(student_id) is not None:
        return None
    time = recorded_time.submitted_time(submitted, student_id, assignment)
    return NotGraded(assignment, student_id, graded, time) if time is not None and time != graded else None


def export_rows(gradebook: Gradebook, assignments: list[str], students: list[str],
                submitted: Path | None = None) -> tuple[list[list[str]], list[NotGraded]]:
    """nbgrader's rows (header first) for ``assignments`` × ``students`` (empty: all), each cell inert text.

    Parameters
    ----------
    gradebook : Gradebook
        The course's gradebook.
    assignments, students : list of str
        The rows to export (empty: all), as ``nbgrader export --assignment/--student``.
    submitted : Path or None
        The course's ``submitted/`` folder: a row whose time is not its ``timestamp.txt``'s gets
        empty scores (None: no such check).

    Returns
    -------
    rows : list of list of str
        The header, then one row per assignment and student.
    not_graded : list of NotGraded
        The rows left without a score, and why.
    """
    rows, not_graded = [list(COLUMNS)], []
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:  # no submission: 0, as nbgrader's export
                timestamp, raw, penalty, unmatched = None, 0.0, 0.0, None
            else:
                timestamp, raw = submission.timestamp, float(submission.score)
                penalty = float(submission.late_submission_penalty or 0.0)
                unmatched = open_row(submitted, assignment.name, student.id, timestamp)
            scores = [str(raw), str(penalty), str(FinalScore(total=raw, penalty=penalty).value)]
            if unmatched is not None:  # these grades are not the submission's: none
                not_graded.append(unmatched)
                scores = ["", "", ""]
            rows.append([
                _text(assignment.name), _text(assignment.duedate), _text(timestamp), _text(student.id),
                _text(student.last_name), _text(student.first_name), _text(student.email),
                *scores, str(float(assignment.max_score)),
            ])
    return rows, not_graded


class SafeCsvExportPlugin(ExportPlugin):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's CSV export with every cell quoted and no cell a formula (see the module)."""

    def export(self, gradebook: Gradebook) -> None:
        """Write ``--to`` (default ``grades.csv``), as nbgrader's ``CsvExportPlugin`` would, but safely."""
        destination = Path(self.to or "grades.csv")
        self.log.info("Exporting grades to %s", csv_cell(str(destination)))
        coursedir = getattr(self.parent, "coursedir", None)  # nbgrader's ExportApp, which made this plugin
        submitted = None if coursedir is None else Path(coursedir.root) / coursedir.submitted_directory
        rows, not_graded = export_rows(gradebook, [str(a) for a in self.assignment], [str(s) for s in self.student],
                                       submitted)
        for row in not_graded:
            self.log.warning("Not graded: %s", row)
        buffer = io.StringIO()
        csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
        write_atomic(destination, buffer.getvalue())
