"""Grading a course whose gradebook does not exist yet records the assignment as nbgrader does.

The batch command runs nbgrader's own preprocessors (generate_assignment's, up to SaveCells) on
the source notebook, so the gradebook knows every cell: a later ``generate_assignment --force``
still works, and nbgrader's ``autograde`` accepts the course.
"""

from __future__ import annotations

import shutil

import pytest
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import gradebook_scores, run_nbgrader
from autograder.exercises.ndcg import EXERCISE

from grading_run import add_student, generated_course, grade, whole_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]


def _cells(course) -> dict[str, list[tuple[str, str | None]]]:
    """Every kind of cell nbgrader records for the notebook, with its checksum."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_notebook("ndcg", "ndcg")
        return {
            kind: sorted((cell.name, getattr(cell, "checksum", None)) for cell in getattr(notebook, kind))
            for kind in ("grade_cells", "solution_cells", "task_cells", "source_cells")
        }


def test_a_course_without_gradebook_is_recorded_as_generate_assignment_records_it(tmp_path):
    fresh = whole_course(tmp_path / "fresh")
    (fresh / "submitted").mkdir()
    add_student(fresh, "alice")
    done = grade(fresh, "--timeout", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    assert gradebook_scores(fresh)["alice"] == (EXERCISE.max_score, EXERCISE.max_score)

    reference = generated_course(tmp_path / "reference")  # as generate_assignment records it (grading_run)
    recorded = _cells(fresh)
    assert recorded == _cells(reference)
    # the comparison above is not of empty lists (the notebook has no task cells)
    assert recorded["grade_cells"] and recorded["solution_cells"] and recorded["source_cells"]

    # the submission exists, and nbgrader still accepts regenerating the release
    run_nbgrader(fresh, "generate_assignment", "ndcg", "--force")
    assert gradebook_scores(fresh)["alice"] == (EXERCISE.max_score, EXERCISE.max_score)
