"""Threat: Task 1.2's cells carry script into the formgrader's view through the batch command's autograded/.

nbgrader's path stores the notebook through the course's SanitiseNotebook; the batch command writes
``autograded/<id>/ndcg/`` itself, and must leave Task 1.2's cells as inert: the release's read-only
cells put back (a forged derivation cell would show another list), the student's markdown and
outputs with nothing that runs. Everything happens in a temporary course.
"""

from __future__ import annotations

import nbformat
from byhand_answers import answer_cell
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbformat.v4 import new_markdown_cell, new_output

from autograder.byhand.salt import release_variant
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, DERIVATION_ID, TASK_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.steps import every_steps

from grading_run import add_student, grade, results, whole_course

SCRIPT = "<script>alert(1)</script>"
LIVE_OUTPUTS = ("text/html", "application/javascript", "image/svg+xml")


def _hostile(release: nbformat.NotebookNode, answers: str) -> nbformat.NotebookNode:
    notebook = nbformat.from_dict(release)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == TASK_ID:
            cell.source = f'<img src="x" onerror="alert(1)"> {SCRIPT}'
        elif grade_id == DERIVATION_ID:  # shows another list to whoever reads the stored notebook
            cell.source = "print('RELS = [3, 3, 3, 3, 3, 3, 0, 0, 0]')"
            cell.outputs = [new_output("display_data", data={"text/html": SCRIPT})]
        elif grade_id == ANSWERS_ID:
            cell.source = answers
            cell.outputs = [new_output("display_data", data={"application/javascript": "alert(1)",
                                                             "text/html": SCRIPT})]
    notebook.cells.append(new_markdown_cell('<svg onload="alert(1)"></svg> [x](javascript:alert(1))'))
    return notebook


def test_the_batch_stores_hostile_by_hand_cells_inert_and_grades_them_as_usual(tmp_path):
    course = whole_course(tmp_path / "course")
    release = nbformat.read(course / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    rels = student_list("mallory", *release_variant(course, NDCG))
    target = add_student(course, "mallory", by_hand=None)  # the right code; the hostile cells below
    code = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(target, as_version=4).cells
            if c.metadata.get("nbgrader", {}).get("solution")}
    hostile = _hostile(release, answer_cell(every_steps(rels, CUTOFF)["right"]))
    for cell in hostile.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in ("dcg", "ndcg"):
            cell.source = code[cell.metadata["nbgrader"]["grade_id"]]
    nbformat.write(hostile, target)

    done = grade(course, "--gradebook", "none", "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    # nothing gained, nothing lost: the answers and the code are right
    assert results(course)["mallory"]["score"] == EXERCISE.max_score
    stored = nbformat.read(course / "autograded" / "mallory" / ASSIGNMENT / NOTEBOOK, as_version=4)

    originals = {cell.metadata["nbgrader"]["grade_id"]: cell for cell in release.cells}
    for cell in stored.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in (TASK_ID, DERIVATION_ID):  # the release's read-only cells, whatever was submitted
            assert cell.source == originals[grade_id].source
        for output in cell.get("outputs", []):
            assert not set(output.get("data", {})) & set(LIVE_OUTPUTS), (grade_id, output)
        if cell.cell_type == "markdown":  # as the formgrader's renderer shows it: text, no element that runs
            html = markdown2html_mistune(cell.source)
            assert not any(tag in html for tag in ("<svg", "<script", "<img", 'href="javascript')), html
    assert str(list(rels)) in nbformat.writes(stored)  # the list worked through is the derived one
