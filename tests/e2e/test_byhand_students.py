"""Task 1.2 of the exam notebook in a real browser, as two students with accounts of their own (two login names).

For each of two system users (``nobody``, ``daemon``): ``ndcg`` fetched from the exchange as that
user (and its two functions written, as the student would after Task 1.2), JupyterLab started as
that user, the notebook opened in headless Debian Chromium, the student's id typed into its STUDENT_ID
cell, Run All; the test reads the list the page
shows, works it out with ``ndcg_ref``, types the answers into the answer cell, saves, presses
nbgrader's Validate button, and submits with the Assignment List's Submit button (Nbgrader menu). The two pages show two
different lists; the tutor collects and grades both to full marks with ``python -m autograder grade``.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

import ndcg_ref
from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.course.setup.student_config import student_config
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, STUDENT_CELL_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF

from e2e_support import LAB_SETTINGS, chromium, free_port, requires_browser, screenshot_on_failure
from grading_run import CORRECT_DCG, CORRECT_NDCG, grade, results, stop_process_group, whole_course
from other_users import reach_for

pytestmark = [
    pytest.mark.e2e, pytest.mark.slow, requires_browser,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                       reason="two students with accounts of their own need root and setpriv"),
]
USERS = ("nobody", "daemon")
TIMEOUT = 90_000  # ms


def _shared_python() -> str:
    """A Python of this version that other users may run (the venv's may live in root's home)."""
    for folder in os.defpath.split(os.pathsep):
        candidate = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}", path=folder)
        if candidate and os.stat(os.path.realpath(candidate)).st_mode & 0o001:
            return candidate
    pytest.skip("no Python of this version that other users may run")


def _as_user(user: str, home: Path) -> tuple[list[str], dict[str, str]]:
    """The command prefix and environment that run the shared Python as ``user`` with the course's packages."""
    entry = pwd.getpwnam(user)
    python = _shared_python()
    venv = Path(sys.prefix)
    env = {
        "PATH": f"{Path(python).parent}{os.pathsep}{os.defpath}", "HOME": str(home),
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        # the venv's Jupyter extensions (nbgrader's Validate button) and their settings
        "JUPYTER_PATH": str(venv / "share" / "jupyter"), "JUPYTER_CONFIG_PATH": str(venv / "etc" / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    # the checkout (the venv, the editable install) as the tests see it, wherever it lives
    prefix = [*reach_for(entry.pw_uid, home.parent), "setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
              "--clear-groups", python]
    return prefix, env


def _run_as(user: str, home: Path, *args: str) -> str:
    prefix, env = _as_user(user, home)
    done = subprocess.run([*prefix, *args], cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    return done.stdout + done.stderr


@contextlib.contextmanager
def _lab_as(user: str, home: Path) -> Iterator[tuple[str, str]]:
    for name, settings in LAB_SETTINGS.items():
        target = home / "settings" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(settings), encoding="utf-8")
    subprocess.run(["chown", "-R", user, str(home)], check=True)
    prefix, env = _as_user(user, home)
    port, token = free_port(), secrets.token_hex(16)
    log = (home / "lab.log").open("wb")
    process = subprocess.Popen(
        [*prefix, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.token={token}", "--ServerApp.port_retries=0"],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=10).read()
                break
            except (urllib.error.URLError, ConnectionError):
                assert process.poll() is None and time.monotonic() < deadline, (home / "lab.log").read_text()[-3000:]
                time.sleep(0.5)
        yield url, token
    finally:
        stop_process_group(process, timeout=20)
        log.close()


def _answers(rels: list[int]) -> str:
    """What a student who worked the list out writes (values from ndcg_ref, rounded to two decimals)."""
    ideal = sorted(rels, reverse=True)
    return (f"IDEAL_RANKING = {ideal}\nDCG_AT_K = {ndcg_ref.dcg(rels, CUTOFF):.2f}\n"
            f"IDCG_AT_K = {ndcg_ref.idcg(rels, CUTOFF):.2f}\nNDCG_AT_K = {ndcg_ref.ndcg(rels, CUTOFF):.2f}\n")


def _cell_index(home: Path, cell_id: str) -> int:
    """Where a cell of Task 1.2 is in the fetched notebook (the page shows every cell in order)."""
    cells = nbformat.read(home / ASSIGNMENT / NOTEBOOK, as_version=4).cells
    return next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == cell_id)


def _type_into(page, home: Path, cell_id: str, text: str) -> None:
    """Replace a cell's text as the student does: click into it, select all, type (no key events: no auto-closing)."""
    page.locator(".jp-Notebook .jp-Cell").nth(_cell_index(home, cell_id)).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")


def _write_code(home: Path) -> None:
    """The student's two functions, written before the browser session (it tests Task 1.2)."""
    path = home / ASSIGNMENT / NOTEBOOK
    notebook = fill_solutions(nbformat.read(path, as_version=4), {"dcg": CORRECT_DCG, "ndcg": CORRECT_NDCG})
    nbformat.write(notebook, path)


def _student_session(browser, user: str, home: Path, shots: Path) -> list[int]:
    """Open, read the list, answer, save, validate in the browser; return the list the page showed."""
    with _lab_as(user, home) as (url, token):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(TIMEOUT)
        with screenshot_on_failure(page, shots / f"{user}.png"):
            page.goto(f"{url}/lab/tree/{ASSIGNMENT}/{NOTEBOOK}?token={token}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            page.wait_for_function(
                "[...document.querySelectorAll('.jp-StatusBar-TextItem')].some(e => /\\| Idle$/.test(e.innerText.trim()))")
            _type_into(page, home, STUDENT_CELL_ID, f'STUDENT_ID = "{user}"')  # once, before Run All
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            page.wait_for_selector(".jp-OutputArea-output:has-text('your ranked list is RELS')")
            shown = page.inner_text(".jp-OutputArea-output:has-text('your ranked list is RELS')")
            match = re.search(r"student (\S+): your ranked list is RELS = (\[[\d, ]+\])", shown)
            assert match is not None and match.group(1) == user, shown
            rels = json.loads(match.group(2))
            _type_into(page, home, ANSWERS_ID, _answers(rels))  # then, in command mode, the toolbar's save button
            page.click(".jp-NotebookPanel-toolbar [data-command='docmanager:save']")
            page.wait_for_function("!document.querySelector('.lm-TabBar-tab.jp-mod-dirty')")
            page.click(".jp-NotebookPanel-toolbar .validate-button button, .jp-NotebookPanel-toolbar button.validate-button")
            page.wait_for_selector(".jp-Dialog .validation-success, .jp-Dialog .validation-failed", timeout=180_000)
            assert "Success! Your notebook passes all the tests." in page.inner_text(".jp-Dialog")
            page.keyboard.press("Escape")
            page.wait_for_selector(".jp-Dialog", state="detached")
            _submit_in_assignment_list(page)
        page.close()
    return rels


def _submit_in_assignment_list(page) -> None:
    """Submit as the student does: Nbgrader > Assignment List, the fetched assignment's Submit button."""
    page.click(".lm-MenuBar-itemLabel:text-is('Nbgrader')")
    page.click("#jp-mainmenu-nbgrader li[data-command='nbgrader:open-assignment-list']")
    fetched = page.locator("#fetched_assignments_list > .list_item")
    fetched.first.wait_for()
    assert fetched.count() == 1 and ASSIGNMENT in fetched.first.inner_text()
    fetched.first.locator(".item_status button:text-is('Submit')").click()
    submitted = page.locator("#submitted_assignments_list > .list_item")
    submitted.first.wait_for()
    assert ASSIGNMENT in submitted.first.inner_text()


def test_two_students_see_two_lists_answer_validate_and_submit(tmp_path):
    with tempfile.TemporaryDirectory(prefix="byhand-e2e-") as scratch:
        os.chmod(scratch, 0o755)  # the students' homes and the course must be reachable by them
        root = Path(scratch)
        course = whole_course(root / "course")
        run_nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
        run_nbgrader(course, "release_assignment", ASSIGNMENT, "--force")
        shown = {}
        with chromium() as browser:
            for user in USERS:
                home = root / user
                (home / ".jupyter").mkdir(parents=True)
                (home / ".jupyter" / "nbgrader_config.py").write_text(student_config(course), encoding="utf-8")
                subprocess.run(["chown", "-R", user, str(home)], check=True)
                _run_as(user, home, "-m", "nbgrader", "fetch_assignment", ASSIGNMENT)
                _write_code(home)
                shown[user] = _student_session(browser, user, home, tmp_path)  # submits, too
        assert shown["nobody"] != shown["daemon"]
        run_nbgrader(course, "collect", ASSIGNMENT)  # what the two Submit buttons put in the exchange
        assert {p.name for p in (course / "submitted").iterdir()} == set(USERS)
        # the students reach the exchange inside this scratch course, so others can read it: allowed here
        graded = grade(course, "--gradebook", "none", "--allow-readable-course")
        assert graded.returncode == 0, graded.stderr[-2000:]
        found = results(course)
        assert {user: found[user]["score"] for user in USERS} == {user: EXERCISE.max_score for user in USERS}
        for user in USERS:  # the grader derived the list the page showed
            assert any(str(shown[user]) in test["message"] for test in found[user]["tests"]), user
