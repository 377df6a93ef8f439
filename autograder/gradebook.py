"""Record the grader's scores in nbgrader's gradebook, so ``nbgrader export`` and the formgrader agree.

Each test group is one nbgrader grade cell (same ``grade_id``, same points); its score becomes the
cell's ``auto_score`` (a score a tutor set by hand in the formgrader is left alone and still
takes precedence, as in nbgrader). Students whose submission is missing get no submission row, as in nbgrader.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from .cases import GROUPS
from .course import check_gradebook, gradebook_path, tool_environment


def record_scores(db_url: str, assignment: str, notebook: str, students: list[dict]) -> int:
    """Write every submitted student's per-test points into the gradebook at ``db_url``; return how many.

    Raises :class:`~autograder.course.CourseError` for an SQLite file that is not a database.
    """
    path = gradebook_path(db_url)
    if path is not None:
        check_gradebook(path)
    # nbgrader runs the `alembic` program when it creates a gradebook: it lives next to this Python.
    os.environ["PATH"] = tool_environment()["PATH"]
    from nbgrader.api import Assignment, Grade, Gradebook, GradeCell, Notebook, SubmittedAssignment, SubmittedNotebook

    notebook_id = Path(notebook).stem
    submitted = [s for s in students if s["status"] != "missing"]
    with warnings.catch_warnings(), Gradebook(db_url) as gradebook:
        # nbgrader's own models emit SQLAlchemy "not in session" warnings that mean nothing here
        warnings.simplefilter("ignore")
        gradebook.update_or_create_assignment(assignment)
        gradebook.update_or_create_notebook(notebook_id, assignment)
        for group in GROUPS:
            gradebook.update_or_create_grade_cell(
                group.grade_id, notebook_id, assignment, max_score=group.points, cell_type="code"
            )
        existing = {s.student.id for s in gradebook.find_assignment(assignment).submissions}
        for student in submitted:
            if student["student_id"] not in existing:
                gradebook.update_or_create_student(student["student_id"])
                gradebook.add_submission(assignment, student["student_id"])
        # one query for every grade of the assignment, instead of one per student and cell
        grades = {
            (student_id, cell_name): grade
            for grade, cell_name, student_id in gradebook.db.query(Grade, GradeCell.name, SubmittedAssignment.student_id)
            .join(GradeCell, GradeCell.id == Grade.cell_id)
            .join(SubmittedNotebook, SubmittedNotebook.id == Grade.notebook_id)
            .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
            .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
            .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
            .filter(Assignment.name == assignment, Notebook.name == notebook_id)
        }
        for student in submitted:
            points = {t["name"]: t["points"] for t in student["tests"]}
            for group in GROUPS:
                # a score a tutor set by hand (manual_score) still wins, as in nbgrader
                grades[(student["student_id"], group.grade_id)].auto_score = points.get(group.grade_id, 0.0)
        gradebook.db.commit()
    recorded = len(submitted)
    return recorded
