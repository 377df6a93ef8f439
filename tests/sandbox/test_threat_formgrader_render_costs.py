"""Threat: a notebook under the size limit freezes the tutor's formgrader when its submission is opened.

The formgrader's grading view renders ``autograded/<student>/<assignment>/<notebook>.ipynb`` with
nbconvert (nbgrader 0.9.6's ``SubmissionHandler``: pygments for code, mistune and a heading anchor
for markdown) synchronously in the tutor's Jupyter server, whose one event loop serves nothing
else meanwhile. The red team's third round, from a fresh clone under ``/tmp``: a code cell of 7.8 MB
of comment lines (a 7.8 MB notebook, graded 15/15 on both paths) cost 42.6 s of CPU and 1.1 GB of
memory per view; 5 million characters of setext headings (``a`` over ``=``, an 8.2 MB notebook) had
not rendered after 15 minutes. Now the stored notebook shows a bounded part of each student cell
(:mod:`autograder.course.notebook_cells.shown_text`), says what was cut, and the grade is still computed from
every character; both grading paths write the same bounded notebook.

The render is nbgrader's own exporter with the formgrader's template and configuration; times are
the process's CPU time (not the wall clock), against an honest notebook's render in the same process.
"""

from __future__ import annotations

import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell
from nbgrader.api import Gradebook
from traitlets.config import Config

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.course.notebook_cells.generated_cells import grade_id
from autograder.course.notebook_cells.sanitise import sanitise_notebook
from autograder.course.notebook_cells.shown_text import MAX_SHOWN_CELL_CHARS, MAX_SHOWN_EXTRA_CHARS

from grading_run import RELEASE, add_student, generated_course, grade, needs_bwrap, results

COMMENTS = "# x = 1 + 2  # c\n"
SETEXT = "a\n=\n"
HONEST_NOTE = "My notes on the discount: " + "log2(i + 1) grows slowly. " * 300  # 7.8 KB: kept whole
_RESOURCES = {"assignment_id": ASSIGNMENT, "notebook_id": "ndcg", "submission_id": "x", "index": 0, "total": 1,
              "base_url": "/", "student": "s", "last_name": "l", "first_name": "f", "notebook_path": "/x"}


def _render_seconds(notebook: nbformat.NotebookNode) -> float:
    """CPU seconds of the formgrader's render of ``notebook`` (its exporter, template and configuration)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    exporter = HTMLExporter(config=config)
    start = time.process_time()
    exporter.from_notebook_node(notebook, resources=dict(_RESOURCES))
    return time.process_time() - start


def _release() -> nbformat.NotebookNode:
    return nbformat.read(RELEASE, as_version=4)


def _with(cells: list[nbformat.NotebookNode], dcg: str | None = None) -> nbformat.NotebookNode:
    notebook = _release()
    for cell in notebook.cells:
        if dcg is not None and grade_id(cell) == "dcg":
            cell.source = dcg
    notebook.cells += cells
    return notebook


def _student_text(notebook: nbformat.NotebookNode) -> int:
    release = {grade_id(cell): cell.source for cell in _release().cells}
    return sum(len(cell.source) for cell in notebook.cells if cell.source != release.get(grade_id(cell)))


def test_the_stored_notebook_renders_in_bounded_time():
    honest = _render_seconds(sanitise_notebook(_with([new_markdown_cell(HONEST_NOTE)]), _release()))
    bombs = {
        "comment lines": [new_code_cell(COMMENTS * (2 * 1024**2 // len(COMMENTS)))],
        "setext headings": [new_markdown_cell(SETEXT * (400 * 1024 // len(SETEXT)))],  # before: about 30 s
        "many cells of both": [new_markdown_cell(SETEXT * 4000), new_code_cell(COMMENTS * 2000)] * 20,
        "raw text": [new_raw_cell("<&" * 1024**2)],
    }
    for name, cells in bombs.items():
        stored = sanitise_notebook(_with(cells), _release())
        assert _student_text(stored) < MAX_SHOWN_EXTRA_CHARS * 5, name  # escaping: & is &amp;
        assert _render_seconds(stored) < 4 * honest + 4.0, name


def test_honest_text_is_whole_and_a_cut_says_so():
    big_dcg = "def dcg(rels, k):\n    return 0.0\n" + "# a long comment of the graded cell\n" * 2000
    stored = sanitise_notebook(
        _with([new_markdown_cell(HONEST_NOTE), new_code_cell(COMMENTS * 100_000)], dcg=big_dcg), _release())
    cells = {grade_id(cell): cell for cell in stored.cells if grade_id(cell)}
    added = [cell for cell in stored.cells if grade_id(cell) is None]
    assert added[-2].source == HONEST_NOTE  # an honest note is kept as written
    # the graded cell keeps its own bound, whatever the added cells took; the cut is said in the cell
    assert cells["dcg"].source.startswith(big_dcg[:MAX_SHOWN_CELL_CHARS])
    assert "more characters of this cell are not shown here" in cells["dcg"].source
    assert "submitted/ holds all of it" in added[-1].source
    assert len(added[-1].source) < MAX_SHOWN_EXTRA_CHARS + 500


def test_the_first_pass_keeps_every_character_the_sandbox_runs():
    """nbgrader's first conversion gives the notebook that is graded: nothing of it may be cut."""
    code = COMMENTS * 100_000
    stored = sanitise_notebook(_with([new_code_cell(code)]), _release(), last=False)
    assert stored.cells[-1].source == code


@pytest.mark.slow
@needs_bwrap
def test_both_paths_store_a_bounded_notebook_and_grade_every_character(tmp_path):
    course = generated_course(tmp_path / "course")
    add_student(course, "ada", extra=(HONEST_NOTE.replace("My notes", "# My notes"),))
    path = add_student(course, "mallory")
    notebook = nbformat.read(path, as_version=4)
    # as Jupyter saves it (a value a line): as much as the value bound lets through (1.5 MB and 128 KB)
    notebook.cells += [new_code_cell(COMMENTS * (3 * 1024**2 // 2 // len(COMMENTS))),
                       new_markdown_cell(SETEXT * (128 * 1024 // len(SETEXT)))]
    nbformat.write(notebook, path)
    honest = _render_seconds(nbformat.read(RELEASE, as_version=4))

    def check(path_name: str) -> None:
        for student in ("ada", "mallory"):
            stored = nbformat.read(course / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4)
            assert _render_seconds(stored) < 4 * honest + 4.0, (path_name, student)
            if student == "ada":
                assert any(cell.source == HONEST_NOTE.replace("My notes", "# My notes") for cell in stored.cells)
            else:
                assert _student_text(stored) < 2 * MAX_SHOWN_EXTRA_CHARS
                assert sum("not shown here" in cell.source for cell in stored.cells) == 2

    batch = grade(course, "--gradebook", "none", "--force")
    assert batch.returncode == 0, batch.stderr[-2000:]
    scores = {student: result["score"] for student, result in results(course).items()}
    assert scores["mallory"] == scores["ada"] == results(course)["ada"]["max_score"], scores
    check("grade")
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    check("nbgrader autograde")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "ir-ranking-evaluation") as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "mallory").score == scores["ada"]
