"""``nbgrader export``'s default in this course: nbgrader's CSV columns, every cell quoted and inert.

nbgrader's ``CsvExportPlugin`` joins the fields with ``","`` and quotes nothing, so a student id, a
name or an email with a comma and a newline adds a well-formed row of its own (a forged grade), and
a cell starting with ``=`` or ``@`` is a live spreadsheet formula. This plugin, selected in
``nbgrader_config.py`` (``c.ExportApp.plugin_class``), writes the same columns in the same order
with Python's ``csv`` module quoting every cell, each text cell made printable and kept from being a
formula with a leading ``'`` (:func:`~autograder.output.safe_text.csv_cell`, as the kit's
``grades.csv`` and the LMS files). Scores are numbers it formats itself.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from ..files import write_atomic
from ..output.safe_text import csv_cell

#: nbgrader's ``CsvExportPlugin`` columns, in its order (a tutor's scripts read them by name).
COLUMNS = ("assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score")


def _text(value: Any) -> str:
    return "" if value is None else csv_cell(str(value))


def export_rows(gradebook: Gradebook, assignments: list[str], students: list[str]) -> list[list[str]]:
    """nbgrader's rows (header first) for ``assignments`` × ``students`` (empty: all), each cell inert text."""
    rows = [list(COLUMNS)]
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:  # no submission: 0, as nbgrader's export
                timestamp, raw, penalty = None, 0.0, 0.0
            else:
                timestamp, raw = submission.timestamp, float(submission.score)
                penalty = float(submission.late_submission_penalty or 0.0)
            rows.append([
                _text(assignment.name), _text(assignment.duedate), _text(timestamp), _text(student.id),
                _text(student.last_name), _text(student.first_name), _text(student.email),
                str(raw), str(penalty), str(max(0.0, raw - penalty)), str(float(assignment.max_score)),
            ])
    return rows


class SafeCsvExportPlugin(ExportPlugin):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's CSV export with every cell quoted and no cell a formula (see the module)."""

    def export(self, gradebook: Gradebook) -> None:
        """Write ``--to`` (default ``grades.csv``), as nbgrader's ``CsvExportPlugin`` would, but safely."""
        destination = Path(self.to or "grades.csv")
        self.log.info("Exporting grades to %s", csv_cell(str(destination)))
        rows = export_rows(gradebook, [str(a) for a in self.assignment], [str(s) for s in self.student])
        buffer = io.StringIO()
        csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
        write_atomic(destination, buffer.getvalue())
