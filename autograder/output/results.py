"""The batch's outputs for programs and tutors: ``results.json``, ``grades.csv``, the terminal table."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..files import write_atomic
from ..grading import SCHEMA_VERSION, BatchResult, Status, StudentResult
from .feedback import feedback_path
from .lateness import lateness_note
from .marks import manual_note
from .text import csv_cell, printable


def results_document(batch: BatchResult) -> dict[str, Any]:
    """The content of ``results.json``."""
    return {
        "schema_version": SCHEMA_VERSION,
        "assignment": batch.assignment,
        "max_score": batch.max_score,
        "sandbox": batch.sandbox,
        "tests": [asdict(group) for group in batch.groups],
        "students": [
            {
                **student.to_json(),
                # the folder's name as text: bytes that are not UTF-8 and control characters escaped
                "student_id": printable(student.student_id),
                "feedback": printable(feedback_path(batch, student).as_posix()),
            }
            for student in batch.students
        ],
    }


def grades_csv(batch: BatchResult) -> str:
    """One row per student: id, status, score, max score, points per test group, then the gradebook's columns.

    ``score`` and the group columns are the grader's; ``gradebook_score`` is the gradebook's total
    (a tutor's manual scores and extra credit included; empty without a gradebook entry),
    ``manual`` is ``yes`` where a tutor changed a score, ``penalty`` the late penalty in the
    gradebook (empty without a due date), ``final_score`` the total less the penalty, as ``nbgrader
    export`` has it.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    names = [group.name for group in batch.groups]
    writer.writerow([
        "student_id", "status", "score", "max_score", *(csv_cell(name) for name in names),
        "gradebook_score", "manual", "penalty", "final_score",
    ])
    for student in batch.students:
        points = {test.name: test.points for test in student.tests}
        writer.writerow([
            csv_cell(student.student_id), student.status.value, f"{student.score:g}", f"{student.max_score:g}",
            *(f"{points[name]:g}" if name in points else "" for name in names),
            "" if student.manual is None else f"{student.manual.score:g}",
            "yes" if student.manual is not None and student.manual.overridden else "",
            "" if student.late is None else f"{student.late.penalty:g}", f"{student.final_score:g}",
        ])
    return buffer.getvalue()


def write_results(out: Path, batch: BatchResult) -> None:
    """Write ``results.json`` and ``grades.csv`` into ``out``."""
    write_atomic(out / "results.json", json.dumps(results_document(batch), indent=2) + "\n")
    write_atomic(out / "grades.csv", grades_csv(batch))


def _table_message(student: StudentResult) -> str:
    message = "" if student.status is Status.GRADED and student.message == "graded" else student.message
    notes = [note for note in (lateness_note(student.late), manual_note(student.manual, student.score)) if note]
    text = printable(", ".join(notes + student.diagnosis.ids + ([message] if message else [])
                               + student.warnings))
    return text[:87] + "..." if len(text) > 90 else text


def score_table(batch: BatchResult) -> str:
    """A plain-text table of the batch, for the terminal; the score is the final one (late penalty taken off)."""
    ids = {s.student_id: printable(s.student_id) for s in batch.students}
    width = min(40, max([len("student")] + [len(shown) for shown in ids.values()]))
    status_width = max([len("status")] + [len(s.status.value) for s in batch.students])
    lines = [f"{'student':<{width}}  {'status':<{status_width}} {'score':>6} {'max':>5}  mistakes / message"]
    for s in batch.students:
        lines.append(
            f"{ids[s.student_id]:<{width}}  {s.status.value:<{status_width}} {s.final_score:>6g} {s.max_score:>5g}"
            f"  {_table_message(s)}"
        )
    return "\n".join(lines)
