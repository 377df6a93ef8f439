"""The course's ``nbgrader export`` in-process: a row whose grading is not the submission's gets no score.

A row is open when the gradebook's time is not the one in ``submitted/<id>/<assignment>/timestamp.txt``
(resubmitted and not graded since, or a grading that did not finish). The real ``nbgrader export``
after a killed re-grade is in tests/sandbox/test_threat_nbgrader_first_conversion.py.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.handback.lms_export import read_final_scores
from autograder.course.handback.safe_export import export_rows

pytestmark = pytest.mark.filterwarnings("ignore:Object of type:sqlalchemy.exc.SAWarning")

FIRST, SECOND = datetime(2026, 12, 1, 10), datetime(2026, 12, 2, 10)
#: student -> (the gradebook's time, the time in timestamp.txt; None: no folder in submitted/)
CASES = {
    "ann": (FIRST, FIRST),  # graded, not resubmitted
    "bob": (FIRST, SECOND),  # resubmitted, not graded since
    "cy": (None, SECOND),  # a new submission whose grading did not finish
    "dee": (FIRST, None),  # submitted/ cleaned up after the term
}


def _stamp(folder: Path, when: datetime) -> None:
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(f"{when:%Y-%m-%d %H:%M:%S}.000000 UTC")


@pytest.fixture
def course(tmp_path: Path) -> tuple[Gradebook, Path]:
    submitted = tmp_path / "course" / "submitted"
    submitted.mkdir(parents=True)
    book = Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}")
    book.add_assignment("ndcg")
    book.add_notebook("ndcg", "ndcg")
    book.add_grade_cell("test_dcg", "ndcg", "ndcg", max_score=4, cell_type="code")
    for student, (graded, handed_in) in {**CASES, "..": (FIRST, None)}.items():
        book.add_student(student)
        book.add_submission("ndcg", student, timestamp=graded)
        grade = book.find_grade("test_dcg", "ndcg", "ndcg", student)
        grade.auto_score, grade.needs_manual_grade = 4, False
        if handed_in is not None:
            _stamp(submitted / student / "ndcg", handed_in)
    book.db.commit()
    # an id the student-id rule refuses (an older gradebook's) names no folder: it is not read
    _stamp(tmp_path / "course" / "ndcg", SECOND)
    yield book, submitted
    book.close()


def test_a_row_whose_time_is_not_the_submissions_has_no_score(course):
    book, submitted = course
    rows, not_graded = export_rows(book, [], [], submitted)
    by_student = {row[3]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    scores = {student: (row["raw_score"], row["score"]) for student, row in by_student.items()}
    assert scores == {"ann": ("4.0", "4.0"), "bob": ("", ""), "cy": ("", ""), "dee": ("4.0", "4.0"),
                      "..": ("4.0", "4.0")}
    assert by_student["bob"]["timestamp"] == str(FIRST)  # the time of the grading it holds, as before
    assert by_student["bob"]["max_score"] == "4.0"
    assert [(row.student_id, row.graded, row.submitted) for row in not_graded] == [
        ("bob", FIRST, SECOND), ("cy", None, SECOND)]
    assert str(not_graded[0]) == ("bob (ndcg): submitted at 2026-12-02 10:00:00, but the gradebook holds the "
                                  "submission of 2026-12-01 10:00:00: scores left empty, run `nbgrader autograde`")
    assert "a grading that did not finish" in str(not_graded[1])


def test_without_a_submitted_folder_every_row_keeps_its_score(course):
    book, submitted = course
    rows, not_graded = export_rows(book, [], [], None)
    assert not_graded == [] and all(row[7] == "4.0" for row in rows[1:])
    rows, not_graded = export_rows(book, [], [], submitted.parent / "elsewhere")
    assert not_graded == [] and all(row[7] == "4.0" for row in rows[1:])


def test_the_lms_files_leave_the_same_rows_without_a_score(course):
    # the Moodle and Canvas files sent a re-submitted student's old score, without a warning (a tutor's walk)
    book, submitted = course
    table = read_final_scores(book, [], [], submitted)
    cells = {student.student_id: student.scores[0].cell for student in table.students}
    assert cells == {"ann": "4", "bob": "", "cy": "", "dee": "4", "..": "4"}
    reasons = {s.student_id: str(s.scores[0].not_graded) for s in table.students if s.scores[0].not_graded}
    assert set(reasons) == {"bob", "cy"} and "run `nbgrader autograde`" in reasons["bob"]
    unchecked = read_final_scores(book, [], [], None)  # nothing to compare with: every score, as before
    assert all(student.scores[0].cell == "4" for student in unchecked.students)
