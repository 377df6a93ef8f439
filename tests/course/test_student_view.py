"""What a student sees running the released notebook with a correct solution: visible tests say they
passed, hidden-test cells show nothing that looks like a result, and the menu names are JupyterLab 4's."""

from __future__ import annotations

import nbformat
import pytest
from byhand_answers import answer_by_hand
from nbclient import NotebookClient

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.exercises.ndcg import EXERCISE

from conftest import ROOT, solution_code

pytestmark = pytest.mark.slow  # starts a kernel

RELEASE = ROOT / "release" / "ndcg" / "ndcg.ipynb"
SOURCE = ROOT / "source" / "ndcg" / "ndcg.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    notebook = fill_solutions(nbformat.read(RELEASE, as_version=4), solution_code(nbformat.read(SOURCE, as_version=4)))
    answer_by_hand(notebook, "student")  # numbers for some list: the step cells check their form
    folder = tmp_path_factory.mktemp("student")
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in notebook.cells}


def test_visible_tests_say_they_passed(executed):
    for group in EXERCISE.groups:
        if group.visible:
            text = "".join(o.get("text", "") for o in executed[group.grade_id].outputs)
            assert f"passed: {group.description}" in text


def test_hidden_test_cells_show_nothing(executed):
    for group in EXERCISE.groups:
        if not group.visible:
            assert executed[group.grade_id].outputs == [], group.grade_id


def test_menu_names_are_those_of_jupyterlab_4():
    text = RELEASE.read_text(encoding="utf-8")
    assert "Restart Kernel and Run All Cells" in text and "Restart & Run All" not in text
