"""nbgrader's autograde in this course says nothing alarming about an honest submission.

Before the course's config handled them, every command warned "root '.' is not absolute" and every
autograde warned "Attribute 'checksum' … has changed!" once per test cell with hidden tests (the
release holds those cells without them), and SQLAlchemy's "not in session" warnings came with each
new submission. The checksum warning must stay for a cell the student really changed, and the
released cell must be put back as nbgrader puts it back.
"""

from __future__ import annotations

import re
import shutil

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import run_nbgrader

from grading_run import ROOT, add_student, generated_course, grade, whole_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.cold_start,  # what nbgrader prints while it starts counts too
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
EDITED = "test_dcg_cutoff"


def _hidden_test_cells(course) -> list[str]:
    source = nbformat.read(course / "source" / "ndcg" / "ndcg.ipynb", as_version=4)
    return [cell.metadata["nbgrader"]["grade_id"] for cell in source.cells
            if "BEGIN HIDDEN TESTS" in cell.source and cell.metadata.get("nbgrader", {}).get("grade")]


def _cell(course, student: str, grade_id: str) -> str:
    notebook = nbformat.read(course / "autograded" / student / "ndcg" / "ndcg.ipynb", as_version=4)
    (cell,) = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return str(cell.source)


def test_only_a_changed_cell_is_reported(tmp_path):
    course = whole_course(tmp_path / "course")
    generated = run_nbgrader(course, "generate_assignment", "ndcg", "--force")
    add_student(course, "honest")
    edited = add_student(course, "editor")
    notebook = nbformat.read(edited, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == EDITED:
            cell.source += "\nassert True  # the student's own line"
    nbformat.write(notebook, edited)
    assert len(_hidden_test_cells(course)) > 1  # the warning came once per such cell

    honest = run_nbgrader(course, "autograde", "ndcg", "--student", "honest")
    editor = run_nbgrader(course, "autograde", "ndcg", "--student", "editor")
    for log in (generated, honest, editor):
        assert "is not absolute" not in log and "SAWarning" not in log, log[-2000:]
    assert "checksum" not in honest, honest[-2000:]
    assert re.findall(r"Attribute 'checksum' for cell (\S+) has changed", editor) == [EDITED]
    assert "the student's own line" not in _cell(course, "editor", EDITED)
    assert _cell(course, "editor", EDITED) == _cell(course, "honest", EDITED)


def _explained() -> list[re.Pattern]:
    """The messages of docs/tutor-guide.md's "What nbgrader prints" table: each row's first code span as a
    pattern ("…" any text, "<student>" one path part)."""
    guide = (ROOT / "docs" / "tutor-guide.md").read_text(encoding="utf-8")
    table = guide.split("### What nbgrader prints")[1].split("\n### ")[0]
    spans = [re.match(r"\| `([^`]+)`", row)[1] for row in table.splitlines() if re.match(r"\| `", row)]
    return [re.compile(re.escape(span).replace("…", ".*").replace("<student>", r"[^/\s]+")) for span in spans]


def test_each_warning_of_generate_feedback_after_grade_is_explained_in_the_guide(tmp_path):
    """The formgrader's Generate Feedback after `make grade` (the walk-through's order): every WARNING it logs is
    one the guide's table explains (it warned once per student, "Removing existing assignment: …/feedback/…")."""
    course = generated_course(tmp_path / "course")
    for student in ("alice", "bob"):
        add_student(course, student)
    done = grade(course, "--timeout", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    log = run_nbgrader(course, "generate_feedback", "ndcg", "--force")  # as the formgrader's button runs it
    warnings = [line for line in log.splitlines() if "WARNING" in line]
    assert warnings  # the pages grade wrote are written again, and nbgrader says so
    explained = _explained()
    for line in warnings:
        assert any(message.search(line) for message in explained), line
