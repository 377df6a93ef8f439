"""The student's side in a real browser: the released notebook, filled with a correct solution (Task 1.2
worked out by hand on the list this user's kernel derives, the code written), opened
in JupyterLab (headless Debian Chromium, Playwright); Kernel → Restart Kernel and Run All Cells; the
visible tests say they passed and nothing fails; nbgrader's Validate button says the notebook passes.
"""

from __future__ import annotations

import nbformat
import pytest
from byhand_answers import answer_by_hand

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.derive import current_student

from conftest import ROOT, solution_code
from e2e_support import chromium, jupyter_lab, requires_browser, screenshot_on_failure

pytestmark = [pytest.mark.e2e, pytest.mark.slow, requires_browser]

TIMEOUT = 60_000  # ms, for each wait in the browser
RUN_TIMEOUT = 180_000  # ms, for the whole notebook to run


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    """(notebook, page, tmp): the student's folder served by JupyterLab, the notebook open in the browser."""
    tmp = tmp_path_factory.mktemp("student")
    home = tmp / "home"  # a student's folder: the fetched assignment, no course files
    release = nbformat.read(ROOT / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
    source = nbformat.read(ROOT / "source" / "ndcg" / "ndcg.ipynb", as_version=4)
    # Task 1.2 answered for the kernel's user (this test's): an unanswered cell stops Run All at its error
    notebook = answer_by_hand(fill_solutions(release, solution_code(source)), current_student())
    (home / "ndcg").mkdir(parents=True)
    nbformat.write(notebook, home / "ndcg" / "ndcg.ipynb")
    with jupyter_lab(home, tmp / "jupyter") as lab, chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(TIMEOUT)
        with screenshot_on_failure(page, tmp / "open.png"):
            page.goto(f"{lab.url}/login?next=%2Flab%2Ftree%2Fndcg%2Fndcg.ipynb")
            page.fill("input[type=password]", lab.token)
            page.click("button[type=submit]")
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            page.wait_for_selector(".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']")
            wait_for_kernel_idle(page)
        yield notebook, page, tmp


def wait_for_kernel_idle(page) -> None:
    """Until the status bar says the kernel is idle ("Python 3 (ipykernel) | Idle").

    The toolbar's execution indicator says idle before the kernel's websocket has settled; a
    restart in that window raced the connection JupyterLab was still replacing, and the run's
    messages went to a closed stream ("Got events for closed stream" in the server log; the cells
    stayed at [*]; 4 of 8 runs on 2026-11-30, none of 7 after this wait)."""
    page.wait_for_function(
        "[...document.querySelectorAll('.jp-StatusBar-TextItem')].some(e => /\\| Idle$/.test(e.innerText.trim()))"
    )


def run_all(page) -> None:
    """Kernel → Restart Kernel and Run All Cells…, confirm, and wait until every code cell has run."""
    page.click(".lm-MenuBar-itemLabel:text-is('Kernel')")
    page.click(".lm-Menu-itemLabel:text-is('Restart Kernel and Run All Cells…')")
    page.click(".jp-Dialog .jp-mod-accept")  # "Confirm Kernel Restart"
    page.wait_for_function(
        "[...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt')]"
        ".every(p => /^\\[\\d+\\]:$/.test(p.innerText.trim()))",
        timeout=RUN_TIMEOUT,
    )
    page.wait_for_selector(".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']")


def test_run_all_shows_the_visible_tests_passing_and_no_error(student):
    notebook, page, tmp = student
    with screenshot_on_failure(page, tmp / "run_all.png"):
        run_all(page)
        outputs = page.eval_on_selector_all(
            ".jp-NotebookPanel .jp-Notebook .jp-Cell",
            "cells => cells.map(c => [...c.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText).join('\\n'))",
        )
        errors = page.locator(".jp-NotebookPanel .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        error_texts = errors.all_inner_texts()
    assert len(outputs) == len(notebook.cells)  # the DOM's cells are the notebook's, in order
    index = {cell.metadata.get("nbgrader", {}).get("grade_id"): i for i, cell in enumerate(notebook.cells)}
    for group in EXERCISE.groups:
        text = outputs[index[group.grade_id]]
        if group.visible:
            assert f"passed: {group.description}" in text, group.grade_id
        else:
            assert text.strip() == "", group.grade_id  # hidden tests: nothing that looks like a result
    assert not [text for text in error_texts if "Error" in text or "Traceback" in text]


def test_the_validate_button_says_the_notebook_passes(student):
    _, page, tmp = student
    with screenshot_on_failure(page, tmp / "validate.png"):
        page.click(".jp-NotebookPanel-toolbar .validate-button button, .jp-NotebookPanel-toolbar button.validate-button")
        page.wait_for_selector(".jp-Dialog .validation-success, .jp-Dialog .validation-failed", timeout=RUN_TIMEOUT)
        text = page.inner_text(".jp-Dialog")
    assert "Success! Your notebook passes all the tests." in text
