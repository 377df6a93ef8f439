"""Threat: a notebook makes the grader's own process (outside any sandbox and its budget) work for minutes.

The red team's round found the sanitiser (which makes every stored notebook inert) spending the grader's
CPU on student text: a markdown cell of ``](&AMP`` repeated (7.8 MB, under the notebook bound) cost
each of its 1.3 million link destinations an entity decoding of a 300-character window, 3 minutes of
CPU per grading run of that student and 6 under ``nbgrader autograde`` (two passes); and on nbgrader's
path raw cells were escaped once per pass, so 7.5 MB of ``&`` became a 67 MB autograded notebook and
an honest ``a < b`` showed as ``a &amp;lt; b``. Now a notebook's link checks are bounded (every one
beyond is disarmed unchecked) and raw cells are escaped once, on both paths.
"""

from __future__ import annotations

import html
import time

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell, new_notebook, new_raw_cell

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.course.notebook_cells import sanitise
from autograder.course.notebook_cells.sanitise import MAX_CHECKED_LINKS, sanitise_notebook

from grading_run import add_student, generated_course, grade

BOMB = "](&AMP"
HONEST_RAW = "a < b & c <script>x</script>"


def _bomb_notebook(megabytes: float) -> nbformat.NotebookNode:
    return new_notebook(cells=[new_markdown_cell(BOMB * int(megabytes * 1024**2 / len(BOMB)))])


def test_a_cell_of_link_openers_costs_a_bounded_number_of_checks(monkeypatch):
    checked = []
    real = sanitise.url_scheme
    monkeypatch.setattr(sanitise, "url_scheme", lambda text: checked.append(1) or real(text))
    notebook = _bomb_notebook(1)
    notebook.cells.append(new_markdown_cell("[late](javascript:alert(1)) [ok](https://example.org)"))
    sanitise_notebook(notebook, None)
    assert len(checked) <= MAX_CHECKED_LINKS
    last = notebook.cells[-1].source  # past the budget: disarmed unchecked, the honest link too (text, not a link)
    assert "](javascript" not in last and "](https" not in last


def test_the_sanitisers_cpu_time_grows_like_plain_texts():
    """CPU time of the process (not the wall clock: the machine's load does not count), against plain text."""
    def cpu(notebook: nbformat.NotebookNode) -> float:
        start = time.process_time()
        sanitise_notebook(notebook, None)
        return time.process_time() - start

    plain = cpu(new_notebook(cells=[new_markdown_cell("a" * 4 * 1024**2)]))
    bomb = cpu(_bomb_notebook(4))  # before: about 80 s of CPU
    assert bomb < 20 * plain + 2.0, (bomb, plain)


def test_raw_cells_are_escaped_once_over_two_passes():
    notebook = new_notebook(cells=[new_raw_cell(HONEST_RAW)])
    sanitise_notebook(notebook, None, last=False)
    between = notebook.cells[0]
    assert between.metadata.get("raw_mimetype") == "text/plain"  # no HTML page shows it until the last pass
    sanitise_notebook(notebook, None)
    assert notebook.cells[0].source == html.escape(HONEST_RAW)
    assert "raw_mimetype" not in notebook.cells[0].metadata


@pytest.mark.slow
def test_both_paths_store_a_raw_cell_escaped_once_and_grade_a_bomb_quickly(tmp_path):
    course = generated_course(tmp_path / "course")
    for student in ("ada", "mallory"):
        path = add_student(course, student)
        notebook = nbformat.read(path, as_version=4)
        notebook.cells.append(new_raw_cell(HONEST_RAW + "&" * (1024**2 if student == "mallory" else 0)))
        if student == "mallory":
            notebook.cells.append(_bomb_notebook(1).cells[0])
        nbformat.write(notebook, path)
    run_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    stored = course / "autograded" / "mallory" / ASSIGNMENT / NOTEBOOK
    assert stored.stat().st_size < 8 * 1024**2  # escaped once: about 5 MiB of "&amp;"
    for student in ("ada", "mallory"):
        raw = [c for c in nbformat.read(course / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4).cells
               if c.cell_type == "raw"]
        assert raw[-1].source.startswith(html.escape(HONEST_RAW)) and "&amp;amp;" not in raw[-1].source
    batch = grade(course, "--gradebook", "none", "--force")
    assert batch.returncode == 0, batch.stderr[-2000:]
    raw = [c for c in nbformat.read(course / "autograded" / "ada" / ASSIGNMENT / NOTEBOOK, as_version=4).cells
           if c.cell_type == "raw"]
    assert raw[-1].source == html.escape(HONEST_RAW)
