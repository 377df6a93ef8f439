"""Threat: a student edits the nbgrader metadata of a release cell, and nbgrader's path stops that student.

Jupyter lets a student edit any cell's metadata. nbgrader's ``OverwriteCells`` puts back the cell
type, ``locked`` and the points, but reads ``grade``, ``solution`` and ``task`` as the student left
them: the red team's third round, from a fresh clone, changed one flag or value in each of eight
otherwise right notebooks; ``python -m autograder grade`` graded each 15/15, ``nbgrader autograde``
stopped each with a traceback and no score (the formgrader's Autograde button the same). The
course's first step (:class:`autograder.course.notebook_cells.unknown_cells.ForgetUnknownCells`) now gives every
cell of a release id the release's nbgrader metadata, so both paths grade the same notebook. A cell
whose ``nbgrader`` value is no mapping (a list, a text) is an ordinary student cell on both paths.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from typing import Any

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, run_nbgrader
from autograder.course.notebook_cells.unknown_cells import forget_unknown_cells, release_metadata

from grading_run import RELEASE, add_student, generated_course, grade, needs_bwrap, results

Change = Callable[[dict[str, Any]], None]

#: Each forged change of a cell's nbgrader metadata, by the cell it changes, and what nbgrader's path raised before.
FORGED: dict[str, tuple[str, Change]] = {
    "answer-as-test": ("dcg", lambda m: m.update(grade=True, points=100)),  # MissingEntry
    "helper-as-test": ("test_helpers", lambda m: m.update(grade=True, points=5)),  # MissingEntry
    "markdown-as-test": ("intro", lambda m: m.update(grade=True, points=5)),  # MissingEntry
    "points-text": ("test_dcg_lecture", lambda m: m.update(points="abc")),  # ValueError
    "points-null": ("test_dcg_lecture", lambda m: m.update(points=None)),  # TypeError
    "test-not-graded": ("test_dcg_lecture", lambda m: m.update(grade=False)),  # RuntimeError (checksums)
    "answer-as-task": ("byhand_answers", lambda m: m.update(task=True)),  # ValidationError
    "schema-99": ("dcg", lambda m: m.update(schema_version=99)),  # SchemaTooNewError
}
#: The answer cell's whole ``nbgrader`` value replaced by something that is no mapping (a cell's metadata).
REPLACED: dict[str, tuple[str, Change]] = {
    "nbgrader-list": ("dcg", lambda m: m.update(nbgrader=["dcg", True])),
    "nbgrader-text": ("dcg", lambda m: m.update(nbgrader="dcg")),
}


def _forge(notebook: dict[str, Any], target: str, change: Change, whole: bool = False) -> dict[str, Any]:
    cells = [cell for cell in notebook["cells"] if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == target]
    assert len(cells) == 1, target  # the release has the cell once
    change(cells[0]["metadata"] if whole else cells[0]["metadata"]["nbgrader"])
    return notebook


def test_every_release_cell_gets_the_release_metadata():
    known = release_metadata(nbformat.read(RELEASE, as_version=4))
    for name, (target, change) in FORGED.items():
        notebook = nbformat.from_dict(_forge(json.loads(RELEASE.read_text()), target, change))
        assert forget_unknown_cells(notebook, known) == ([], [target]), name
        kept = [cell.metadata["nbgrader"] for cell in notebook.cells if "nbgrader" in cell.metadata]
        assert kept == list(known.values()), name
    untouched = nbformat.read(RELEASE, as_version=4)
    assert forget_unknown_cells(untouched, known) == ([], [])


def test_a_cell_whose_nbgrader_value_is_no_mapping_is_the_students_own():
    known = release_metadata(nbformat.read(RELEASE, as_version=4))
    for name, (target, change) in REPLACED.items():
        notebook = nbformat.from_dict(_forge(json.loads(RELEASE.read_text()), target, change, whole=True))
        assert forget_unknown_cells(notebook, known) == (["None"], []), name
        assert all(isinstance(cell.metadata.get("nbgrader", {}), dict) for cell in notebook.cells), name
        assert target not in {cell.metadata.get("nbgrader", {}).get("grade_id") for cell in notebook.cells}, name


@pytest.mark.slow
@needs_bwrap
def test_both_paths_grade_a_forged_notebook_the_same(tmp_path):
    course = generated_course(tmp_path / "course")
    add_student(course, "ada")
    for group, whole in ((FORGED, False), (REPLACED, True)):
        for name, (target, change) in group.items():
            path = add_student(course, name)
            path.write_text(json.dumps(_forge(json.loads(path.read_text()), target, change, whole)))
    batch = grade(course, "--gradebook", "none")
    assert batch.returncode == 0, batch.stderr[-2000:]
    expected = {student: result["score"] for student, result in results(course).items()}
    assert set(expected.values()) == {results(course)["ada"]["max_score"]}, expected
    shutil.rmtree(course / "autograded")
    log = run_nbgrader(course, "autograde", ASSIGNMENT, timeout=1800)  # raises, with the log's tail, if it fails
    assert "Traceback" not in log
    assert log.count("differ from the release's") == len(FORGED)
    assert log.count("carry an nbgrader id the release does not have") == len(REPLACED)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "ir-ranking-evaluation") as gradebook:
        recorded = {student: gradebook.find_submission(ASSIGNMENT, student).score for student in expected}
    assert recorded == expected
