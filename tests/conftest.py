"""Shared fixtures: a throw-away copy of the nbgrader course, graded once per test session."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import built_once
import nbformat
import prestarted
import pytest
from byhand_answers import answer_by_hand

from autograder.course.materials.demo_course import stage_examples
from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import (
    ASSIGNMENT,
    NBGRADER_OWN_EXECUTE,
    NOTEBOOK,
    autograde,
    gradebook_scores,
    run_nbgrader,
)
from autograder.exercises import EXERCISES
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, STUDENT_CELL_ID
from autograder.sandbox import choose_sandbox

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """nbgrader's and the grader's commands run with ``subprocess.run`` are forked from an interpreter
    that imported them once (:mod:`prestarted`), except in the tests marked ``cold_start``."""
    subprocess.run = prestarted.run


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any of the test's fixtures (module-scoped ones too), two things.

    Whether its commands start cold (marked ``cold_start``, or ``TESTS_COLD_START=1``).

    A test marked ``serial`` fails in a pytest-xdist worker: it loads both cores on purpose (or
    judges the machine's load), and beside another worker it would make that worker's honest
    sandboxes wait, or be judged under a load it did not make. ``make test`` runs them alone."""
    prestarted.cold = item.get_closest_marker("cold_start") is not None or os.environ.get("TESTS_COLD_START") == "1"
    if item.get_closest_marker("serial") is not None and hasattr(item.config, "workerinput"):
        pytest.fail("marked serial: run it alone, not under pytest -n (make test runs `pytest -m serial` "
                    "after the parallel part)", pytrace=False)


@pytest.fixture
def small_blocks(monkeypatch):
    """``small_blocks(rows, workers=None)``: make ndcg_ref's batch functions work in blocks of
    ``rows`` rows (and ``workers`` threads), for this test only, so that small inputs cross blocks."""
    from ndcg_ref.batch import parallel

    def set_blocks(rows: int, workers: int | None = None) -> None:
        monkeypatch.setattr(parallel, "_CHUNK", rows)
        monkeypatch.setattr(parallel, "_MIN_CHUNK", 1)
        if workers is not None:
            monkeypatch.setattr(parallel, "_workers", lambda: workers)

    return set_blocks


def solution_code(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """The sources of the solution code cells of a notebook, by grade_id (Task 1.2's answers are numbers, not code,
    and its STUDENT_ID is the student's: :func:`byhand_answers.answer_by_hand` writes both for a student)."""
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
        and cell.metadata["nbgrader"]["grade_id"] not in (ANSWERS_ID, STUDENT_CELL_ID)
    }


@pytest.fixture(scope="session", autouse=True)
def _built_once_folder(tmp_path_factory) -> None:
    """Where :mod:`built_once` builds: the run's base folder, which pytest-xdist's workers share."""
    base = tmp_path_factory.getbasetemp()
    built_once.share(base.parent if "PYTEST_XDIST_WORKER" in os.environ else base)


def _generate_course(root: Path) -> None:
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    (root / "nbgrader_config.py").write_text(config + NBGRADER_OWN_EXECUTE, encoding="utf-8")
    shutil.copytree(ROOT / "source", root / "source")
    shutil.copytree(ROOT / "examples", root / "examples")
    for assignment in EXERCISES:  # every exercise's release, for the guards of tests/course/test_course.py
        run_nbgrader(root, "generate_assignment", assignment, "--force")


def _autograde_examples(root: Path) -> None:
    shutil.copytree(built_once.built_once("reference-course", _generate_course), root, dirs_exist_ok=True)
    submitted = root / "submitted"
    stage_examples(root, submitted, hostile=False)  # plain nbgrader is not safe against them
    release = nbformat.read(root / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    source = nbformat.read(root / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    for student, notebook in {
        "zz_solution": answer_by_hand(fill_solutions(release, solution_code(source)), "zz_solution"),
        "zz_stubs": release,
    }.items():
        target = submitted / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    autograde(root)


@pytest.fixture(scope="session")
def course(tmp_path_factory) -> Path:
    """A copy of the course (config, source, examples) whose release nbgrader generated afresh.

    Its nbgrader runs its own Execute (see :data:`NBGRADER_OWN_EXECUTE`): the reference the grader
    must agree with. Generated once per test run (:mod:`built_once`); each worker gets a copy.
    """
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(built_once.built_once("reference-course", _generate_course), root, dirs_exist_ok=True)
    return root


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory) -> tuple[Path, dict[str, tuple[float, float]]]:
    """The course after ``nbgrader autograde`` with nbgrader's own Execute of the (trusted) examples, the
    source solution and the stubs (autograded once per test run; each worker gets a copy)."""
    root = tmp_path_factory.mktemp("graded-course")
    shutil.copytree(built_once.built_once("reference-graded", _autograde_examples), root, dirs_exist_ok=True)
    return root, gradebook_scores(root)


# ----- warm starts (tests/sandbox/test_threat_warm_start_channels.py, test_threat_zygote_attacks.py)
@pytest.fixture(scope="module")
def warm_sandbox():
    """A bubblewrap sandbox that forks its runs from warm zygotes (ended after the module)."""
    chosen = choose_sandbox("required")
    if chosen.zygotes is None:
        pytest.fail("a bubblewrap sandbox with cgroups and seccomp must fork its runs from a zygote")
    yield chosen
    chosen.zygotes.close()


@pytest.fixture
def acquired(warm_sandbox, monkeypatch):
    """Every zygote the ``warm_sandbox`` fixture's pool lends a run from now on (None where it lent none)."""
    taken = []
    acquire = warm_sandbox.zygotes.acquire

    def recording(trial):
        zygote = acquire(trial)
        taken.append(zygote)
        return zygote

    monkeypatch.setattr(warm_sandbox.zygotes, "acquire", recording)
    return taken
