"""The terminal table of ``python -m autograder grade``: a student's notes are never cut, whatever their length."""

from __future__ import annotations

from datetime import datetime

import pytest
from graded_outputs import table_rows

from autograder.course.autograde.submission_folder import left_out_note
from autograder.exercises.ndcg.catalogue import CATALOGUE
from autograder.grading import BatchResult, Diagnosis, Finding, Lateness, Status, StudentResult
from autograder.output.results import TABLE_WIDTHS, score_table

MAX = 15.0
LONG_ID = "a-student-id-of-forty-characters-exactly"


def _late_student(student_id: str, mistakes: int) -> StudentResult:
    """A late student with ``mistakes`` of the catalogue's diagnosed mistakes and a copied-from note."""
    findings = [Finding(m.id, "dcg", m.title, "dcg([3, 2], 2)") for m in CATALOGUE[:mistakes]]
    late = Lateness(datetime(2026, 12, 1, 17), None, datetime(2026, 12, 3, 19, 4, 29), 2 * 86400 + 7469.0, 7.5)
    return StudentResult(student_id=student_id, status=Status.GRADED, score=11.0, max_score=MAX, message="2 of 9 test groups failed",
                         diagnosis=Diagnosis(findings), late=late, copied_from="ada",
                         warnings=["timestamp from the exchange's folder"])


@pytest.mark.parametrize("width", TABLE_WIDTHS)
@pytest.mark.parametrize("student_id", ["erin", LONG_ID])
def test_every_note_is_shown_in_lines_that_fit(width, student_id):
    student = _late_student(student_id, mistakes=6)
    batch = BatchResult("ndcg", "ndcg.ipynb", "", MAX, "", [], [student, StudentResult(student_id="bob", status=Status.GRADED, score=MAX, max_score=MAX)])
    table = score_table(batch, width)
    row = table_rows(table)[student_id]
    for note in ("late 2 d 2 h, penalty 7.5", "needs a look: Task 1.2 answers fit the list of ada",
                 *student.diagnosis.ids, "2 of 9 test groups failed", "timestamp from the exchange's folder"):
        assert note in row, (note, table)
    assert "..." not in table
    lines = table.splitlines()
    assert all(len(line) <= width for line in lines), table
    assert len(lines) > 3  # the notes went on to further lines, under the notes' column
    row_line = next(i for i, line in enumerate(lines) if line.startswith(student_id + " "))
    beside = "needs a look" in lines[row_line]
    start = lines[row_line].index("needs a look") if beside else 4  # beside the row, or below it
    assert all(line[:start].isspace() and not line[start].isspace() for line in lines[row_line + 1:-1]), table
    assert lines[-1].startswith("bob ") and table_rows(table)["bob"].split() == ["bob", "graded", "15", "15"]


def test_a_warning_naming_a_file_is_shown_as_results_json_holds_it():
    """The kit's warnings name a student's files escaped already (:func:`left_out_note`): the table shows them so,
    as nbgrader's log does ("\\x1b" once, not "\\\\x1b"), and a warning that is not printable is still escaped."""
    words = left_out_note(["ndcg.ipynb", "\x1b[2J\rmallory.ipynb"], "ndcg.ipynb")
    assert words == "left out, not the assignment's notebook: \\x1b[2J\\rmallory.ipynb"
    raw = "a warning that names \x1b[2J raw"
    student = StudentResult(student_id="mallory", status=Status.GRADED, score=MAX, max_score=MAX,
                            warnings=[words, raw])
    table = score_table(BatchResult("ndcg", "ndcg.ipynb", "", MAX, "", [], [student]))
    row = table_rows(table)["mallory"]
    assert words in row and "\\\\x1b" not in row, table
    assert "\x1b" not in table and "a warning that names \\x1b[2J raw" in row, table
