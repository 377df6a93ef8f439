"""``nbgrader export`` with the course's LMS plugins, read back as Moodle's and Canvas's importers read them.

The gradebook is built with nbgrader's own API the way grading leaves it (automatic scores per
grade cell, a tutor's manual score, a late penalty as ``AssignLatePenalties`` stores it), then the
real ``nbgrader export --exporter=...`` runs in the scratch course with the course's config.
Expected final scores are written as the points they come from.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.gradebook.scores import tool_environment

from conftest import ROOT

pytestmark = [
    pytest.mark.slow,
    # nbgrader's add_submission, building the gradebook: harmless (../shared/NBGRADER_NOTES.md)
    pytest.mark.filterwarnings("ignore:Object of type:sqlalchemy.exc.SAWarning"),
]
COURSE_ID = "ir-ranking-evaluation"  # nbgrader_config.py's course id
NBGRADER = Path(sys.executable).parent / "nbgrader"
MOODLE = "autograder.course.handback.lms_export.MoodleExportPlugin"
CANVAS = "autograder.course.handback.lms_export.CanvasExportPlugin"

POINTS = {"test_dcg": 4.0, "test_ndcg": 6.0}
MAX_SCORE = sum(POINTS.values())
FORMULA_NAME = '=HYPERLINK("http://x","y")'
# student id -> (first name, automatic score per grade cell, manual scores, late penalty); None: no submission
STUDENTS: dict[str, tuple[str, dict[str, float], dict[str, float], float] | None] = {
    "alice": ("Alice", {"test_dcg": 4, "test_ndcg": 6}, {}, 0.0),
    "bob": ("Bob", {"test_dcg": 4, "test_ndcg": 0}, {"test_ndcg": 3}, 0.0),
    "carol": ("Carol", {"test_dcg": 4, "test_ndcg": 6}, {}, 2.5),
    "erin": ("Erin", {"test_dcg": 4, "test_ndcg": 0}, {}, 10.0),
    "mallory": (FORMULA_NAME, {"test_dcg": 0, "test_ndcg": 6}, {"test_dcg": 1}, 0.0),
    "dave": None,
}
EXPECTED = {
    "alice": 4 + 6,                # full marks, on time
    "bob": 4 + 3,                  # the tutor's manual 3 wins over the automatic 0 of test_ndcg
    "carol": 4 + 6 - 2.5,          # late, penalty 2.5
    "erin": max(0.0, 4 + 0 - 10),  # late with penalty_method "zero": never below 0
    "mallory": 1 + 6,              # manual 1 over the automatic 0; her name is a formula
    "dave": 0,                     # no submission scores 0, as in nbgrader's own export
}


def _course(path: Path, emails: bool = True) -> Path:
    path.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", path)
    with Gradebook(f"sqlite:///{path / 'gradebook.db'}", COURSE_ID) as gradebook:
        gradebook.add_assignment("ndcg", duedate="2026-01-10 12:00:00")
        gradebook.add_notebook("ndcg", "ndcg")
        for cell, points in POINTS.items():
            gradebook.add_grade_cell(cell, "ndcg", "ndcg", max_score=points, cell_type="code")
        for student_id, work in STUDENTS.items():
            first = work[0] if work else "Dave"
            gradebook.add_student(student_id, first_name=first, last_name="Lovelace",
                                  email=f"{student_id}@example.org" if emails else None)
            if work is None:
                continue
            _, auto, manual, penalty = work
            gradebook.add_submission("ndcg", student_id, timestamp="2026-01-10 11:00:00")
            for cell in POINTS:
                grade = gradebook.find_grade(cell, "ndcg", "ndcg", student_id)
                grade.auto_score = auto[cell]
                grade.manual_score = manual.get(cell)
                grade.needs_manual_grade = False
            gradebook.find_submission_notebook("ndcg", "ndcg", student_id).late_submission_penalty = penalty
        gradebook.db.commit()
    return path


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return _course(tmp_path_factory.mktemp("lms") / "course")


def _export(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(NBGRADER), "export", *args], cwd=course, env=tool_environment(),
                          capture_output=True, text=True, timeout=300)


def _rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as stream:
        return list(csv.reader(stream))


def moodle_import(path: Path, identify_by: str, grade_item: str) -> dict[str, float | None]:
    """What Moodle's CSV grade import (grade/import/csv) takes from ``path`` for one grade item.

    As its loader does: the header's cells are trimmed, a line with at most one cell is skipped,
    '' and '-' mean no grade, any other value must be a number (else Moodle refuses the file).
    """
    header, *lines = _rows(path)
    header = [cell.strip() for cell in header]
    by, item = header.index(identify_by), header.index(grade_item)
    grades: dict[str, float | None] = {}
    for line in lines:
        if len(line) <= 1:
            continue
        value = line[item].strip()
        grades[line[by]] = None if value in ("", "-") else float(value)
    return grades


def canvas_import(path: Path, match_by: str, column: str) -> tuple[float, dict[str, float]]:
    """What Canvas's Gradebook import takes from ``path``: points possible and the scores of one column.

    The layout of Canvas's own export: the five student columns, then assignments; the second
    row is "Points Possible" (its first cell indented).
    """
    header, points_row, *lines = _rows(path)
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert points_row[0].strip() == "Points Possible"
    by, item = header.index(match_by), header.index(column)
    return float(points_row[item]), {line[by]: float(line[item]) for line in lines}


def _no_formula_cell(path: Path) -> None:
    for row in _rows(path):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@")), (cell, row)


def test_moodle_file_carries_final_scores_by_username(course):
    done = _export(course, f"--exporter={MOODLE}", "--to", "moodle.csv")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "map from 'Username' to username" in done.stderr

    grades = moodle_import(course / "moodle.csv", "Username", "ndcg")
    assert grades == pytest.approx(EXPECTED)
    _no_formula_cell(course / "moodle.csv")
    mallory = next(row for row in _rows(course / "moodle.csv") if row[0] == "mallory")
    assert mallory[1] == "'" + FORMULA_NAME


def test_moodle_file_by_email_with_the_grade_items_name(course):
    done = _export(course, f"--exporter={MOODLE}", "--to", "moodle-email.csv",
                   "--MoodleExportPlugin.identifier_field=email",
                   "--MoodleExportPlugin.grade_items", "ndcg=nDCG exercise")
    assert done.returncode == 0, done.stderr[-2000:]

    grades = moodle_import(course / "moodle-email.csv", "Email address", "nDCG exercise")
    assert grades == pytest.approx({f"{student}@example.org": score for student, score in EXPECTED.items()})


def test_canvas_file_has_points_possible_and_final_scores_by_sis_login(course):
    done = _export(course, f"--exporter={CANVAS}", "--to", "canvas.csv")
    assert done.returncode == 0, done.stderr[-2000:]

    points, scores = canvas_import(course / "canvas.csv", "SIS Login ID", "ndcg")
    assert points == pytest.approx(MAX_SCORE)
    assert scores == pytest.approx(EXPECTED)
    _no_formula_cell(course / "canvas.csv")
    assert _rows(course / "canvas.csv")[2][:5] == ["Lovelace, Alice", "", "", "alice", ""]


def test_canvas_file_names_the_canvas_assignment_and_id_column(course):
    done = _export(course, f"--exporter={CANVAS}", "--to", "canvas-sis.csv",
                   "--CanvasExportPlugin.student_id_column=SIS User ID",
                   "--CanvasExportPlugin.assignment_columns", "ndcg=nDCG (12345)")
    assert done.returncode == 0, done.stderr[-2000:]

    points, scores = canvas_import(course / "canvas-sis.csv", "SIS User ID", "nDCG (12345)")
    assert points == pytest.approx(MAX_SCORE)
    assert scores == pytest.approx(EXPECTED)
    header, _, first, *_ = _rows(course / "canvas-sis.csv")
    assert first[header.index("SIS Login ID")] == ""


def test_an_export_that_cannot_match_students_refuses_in_one_line_and_writes_nothing(tmp_path):
    course = _course(tmp_path / "course", emails=False)
    done = _export(course, f"--exporter={MOODLE}", "--to", "moodle.csv",
                   "--MoodleExportPlugin.identifier_field=email")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "no email in the gradebook for alice, bob" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not (course / "moodle.csv").exists()

    done = _export(course, f"--exporter={CANVAS}", "--CanvasExportPlugin.student_id_column=login")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "student_id_column" in done.stderr
    assert not (course / "canvas.csv").exists()
