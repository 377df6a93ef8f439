"""Threat: a student turns an answer cell into markdown, and the two grading paths disagree on her score.

The batch command runs only code cells; nbgrader's ``OverwriteCells`` gives every cell of a release
id the release's type back, so the same markdown ran as code on nbgrader's path. The red team's
third round measured: the right ``dcg`` in a markdown answer cell, batch 5/15 and nbgrader 15/15;
the right ``dcg`` in a plain cell above a markdown answer cell holding ``dcg = None``, batch 15/15
and nbgrader 5/15. Now nbgrader's path reads such a cell as the batch does
(:mod:`autograder.course.notebook_cells.retyped_cells`): each student gets one score on both paths.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, run_nbgrader
from autograder.course.notebook_cells.retyped_cells import quiet_retyped_answers, release_cells
from autograder.exercises.ndcg import EXERCISE

from grading_run import CORRECT_DCG, RELEASE, add_student, generated_course, grade, needs_bwrap, results


def _as_markdown(path, grade_id: str, source: str | None = None) -> None:
    """Make the cell of ``grade_id`` a markdown cell (keeping its metadata and, unless given, its source)."""
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            markdown = new_markdown_cell(cell.source if source is None else source, metadata=cell.metadata)
            markdown["id"] = cell.get("id", markdown.get("id"))
            notebook.cells[index] = markdown
    nbformat.write(notebook, path)


def test_an_answer_cell_made_markdown_runs_nothing_and_keeps_its_text():
    release = nbformat.read(RELEASE, as_version=4)
    notebook = nbformat.read(RELEASE, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.metadata.get("nbgrader", {}).get("grade_id") in ("dcg", "byhand_answers", "intro"):
            notebook.cells[index] = new_markdown_cell("def dcg(rels, k):\n\n    return 1.0", metadata=cell.metadata)
    changed = quiet_retyped_answers(notebook, release_cells(release), EXERCISE.answered.cell_ids)
    assert changed == ["dcg"]  # not the by-hand answers (read as data), not a locked cell
    cell = next(c for c in notebook.cells if c.metadata["nbgrader"]["grade_id"] == "dcg")
    assert cell.cell_type == "code"
    assert all(line.startswith("#") for line in cell.source.splitlines())
    assert "# def dcg(rels, k):" in cell.source and "#     return 1.0" in cell.source
    compile(cell.source, "<cell>", "exec")  # still a valid code cell
    untouched = nbformat.read(RELEASE, as_version=4)
    assert quiet_retyped_answers(untouched, release_cells(release), EXERCISE.answered.cell_ids) == []


@pytest.mark.slow
@needs_bwrap
def test_both_paths_give_a_student_who_made_her_answer_cell_markdown_one_score(tmp_path):
    course = generated_course(tmp_path / "course")
    add_student(course, "ada")
    _as_markdown(add_student(course, "marta"), "dcg")  # the right code, as markdown
    _as_markdown(add_student(course, "shadow", extra=(CORRECT_DCG,)), "dcg", "dcg = None")
    batch = grade(course, "--gradebook", "none")
    assert batch.returncode == 0, batch.stderr[-2000:]
    expected = {student: result["score"] for student, result in results(course).items()}
    full = results(course)["ada"]["max_score"]
    # what the student saw running her notebook: marta's dcg undefined, shadow's from the cell above
    assert expected["ada"] == expected["shadow"] == full
    assert expected["marta"] < full
    shutil.rmtree(course / "autograded")
    log = run_nbgrader(course, "autograde", ASSIGNMENT, timeout=1800)
    assert "Traceback" not in log
    assert log.count("are not code cells in the submitted notebook") == 2
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "ir-ranking-evaluation") as gradebook:
        recorded = {student: gradebook.find_submission(ASSIGNMENT, student).score for student in expected}
    assert recorded == expected
    stored = nbformat.read(course / "autograded" / "marta" / ASSIGNMENT / RELEASE.name, as_version=4)
    answer = next(c for c in stored.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "dcg")
    assert "# def dcg" in answer.source  # the tutor still reads what she wrote


def test_the_students_own_cells_are_never_touched():
    # a plain code cell inserted by the student is hers: never touched, whatever its neighbours
    release = nbformat.read(RELEASE, as_version=4)
    notebook = nbformat.read(RELEASE, as_version=4)
    notebook.cells.insert(0, new_code_cell("x = 1"))
    notebook.cells.insert(0, new_markdown_cell("notes"))
    before = nbformat.writes(notebook)
    assert quiet_retyped_answers(notebook, release_cells(release), EXERCISE.answered.cell_ids) == []
    assert nbformat.writes(notebook) == before
