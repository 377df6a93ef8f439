"""The batch's outputs for tutors and programs: ``results.json`` and ``grades.csv``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from .cases import GROUPS, max_score
from .files import write_atomic

STATUSES = ("graded", "timeout", "error", "missing")


def status_summary(students: list[dict]) -> str:
    """E.g. ``5 graded, 1 timeout``: how many students have each status (zeros left out)."""
    counts = {status: sum(s["status"] == status for s in students) for status in STATUSES}
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def results_document(assignment: str, students: list[dict], sandbox_name: str) -> dict:
    """The content of ``results.json``."""
    return {
        "assignment": assignment,
        "max_score": max_score(),
        "sandbox": sandbox_name,
        "tests": [{"name": g.grade_id, "description": g.description, "max_points": g.points, "visible": g.visible} for g in GROUPS],
        "students": students,
    }


def grades_csv(students: list[dict]) -> str:
    """One row per student: id, status, score, max score, then points per test group."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student_id", "status", "score", "max_score", *(g.grade_id for g in GROUPS)])
    for student in students:
        points = {t["name"]: t["points"] for t in student["tests"]}
        writer.writerow([
            student["student_id"], student["status"], f"{student['score']:g}", f"{student['max_score']:g}",
            *(f"{points[g.grade_id]:g}" if g.grade_id in points else "" for g in GROUPS),
        ])
    return buffer.getvalue()


def write_results(out: Path, assignment: str, students: list[dict], sandbox_name: str) -> None:
    write_atomic(out / "results.json", json.dumps(results_document(assignment, students, sandbox_name), indent=2) + "\n")
    write_atomic(out / "grades.csv", grades_csv(students))


def score_table(students: list[dict]) -> str:
    """A plain-text table of the batch, for the terminal."""
    width = max([len("student")] + [len(s["student_id"]) for s in students])
    lines = [f"{'student':<{width}}  {'status':<8} {'score':>6} {'max':>5}  mistakes / message"]
    for s in students:
        message = s["message"] if s["status"] != "graded" or s["message"] != "graded" else ""
        message = ", ".join(s.get("diagnoses", []) + ([message] if message else []))
        if len(message) > 90:
            message = message[:87] + "..."
        lines.append(f"{s['student_id']:<{width}}  {s['status']:<8} {s['score']:>6g} {s['max_score']:>5g}  {message}")
    return "\n".join(lines)
