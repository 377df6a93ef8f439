"""Record the grader's scores in nbgrader's gradebook, so ``nbgrader export`` and the formgrader agree.

Each test group is one nbgrader grade cell (same ``grade_id``, same points); its score becomes the
cell's ``auto_score`` (a score a tutor set by hand in the formgrader is left alone and still
takes precedence, as in nbgrader). Students whose submission is missing get no submission row, as in nbgrader.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from .cases import GROUPS


def record_scores(db_url: str, assignment: str, notebook: str, students: list[dict]) -> int:
    """Write every submitted student's per-test points into the gradebook at ``db_url``; return how many."""
    # nbgrader runs the `alembic` program when it creates a gradebook: it lives next to this Python.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    from nbgrader.api import Gradebook

    notebook_id = Path(notebook).stem
    recorded = 0
    with warnings.catch_warnings(), Gradebook(db_url) as gradebook:
        # nbgrader's own models emit SQLAlchemy "not in session" warnings that mean nothing here
        warnings.simplefilter("ignore")
        gradebook.update_or_create_assignment(assignment)
        gradebook.update_or_create_notebook(notebook_id, assignment)
        for group in GROUPS:
            gradebook.update_or_create_grade_cell(
                group.grade_id, notebook_id, assignment, max_score=group.points, cell_type="code"
            )
        for student in students:
            if student["status"] == "missing":
                continue
            gradebook.update_or_create_student(student["student_id"])
            gradebook.update_or_create_submission(assignment, student["student_id"])
            points = {t["name"]: t["points"] for t in student["tests"]}
            for group in GROUPS:
                grade = gradebook.find_grade(group.grade_id, notebook_id, assignment, student["student_id"])
                grade.auto_score = points.get(group.grade_id, 0.0)  # a tutor's manual_score still wins
            recorded += 1
        gradebook.db.commit()
    return recorded
