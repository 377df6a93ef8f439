"""Helpers to build a batch of submissions in a throw-away course and run the real grader on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import pytest
from built_once import built_once
from nbformat.v4 import new_code_cell

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.course.notebook_cells.generated_cells import skipped_cell_ids
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import GradingSettings
from autograder.grading.reading.notebook import release_sources

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "release" / ASSIGNMENT / NOTEBOOK

CORRECT_DCG = '''import math


def dcg(rels, k):
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))'''

CORRECT_NDCG = '''def ndcg(rels, k):
    ideal = dcg(sorted(rels, reverse=True), k)
    return dcg(rels, k) / ideal if ideal else 0.0'''


def new_course(path: Path) -> Path:
    """A course directory with the config and the committed release, and an empty submitted/."""
    path.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", path)
    shutil.copytree(ROOT / "release", path / "release")
    (path / "submitted").mkdir()
    return path


def whole_course(path: Path) -> Path:
    """A course directory with the config, source, release, examples and walkthroughs: enough for release and demo."""
    path.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", path)
    for folder in ("source", "release", "examples", "notebooks"):
        shutil.copytree(ROOT / folder, path / folder)
    return path


def _generate(folder: Path) -> None:
    from autograder.course.materials.nbgrader_commands import run_nbgrader

    template = whole_course(folder)
    run_nbgrader(template, "generate_assignment", ASSIGNMENT, "--force")
    if str(folder).encode() in (template / "gradebook.db").read_bytes():  # a copy would name the wrong folder
        raise RuntimeError("the generated gradebook names its folder: generate the course in place")


def generated_course(path: Path) -> Path:
    """:func:`whole_course` at ``path`` after ``nbgrader generate_assignment ndcg --force`` (release and gradebook).

    nbgrader generates the course once per test run (about 12 s of CPU time; :mod:`built_once`), in a
    folder of its own; every caller gets a copy. The gradebook holds no path of the folder it was made
    in, so a copy is the course nbgrader would have made at ``path`` (tests about generate_assignment
    itself, or about paths, run it themselves).
    """
    shutil.copytree(built_once("generated-course", _generate), path, symlinks=True, dirs_exist_ok=True)
    return path


def release_settings(timeout: float, release: Path = RELEASE, **options: Any) -> GradingSettings:
    """The settings the batch command grades ``release``'s submissions with: its skipped cells and Task 1.2's salt."""
    answered = EXERCISE.answered
    return GradingSettings(EXERCISE, timeout, skipped_cell_ids(EXERCISE, release),
                           published=release_sources(release, answered.published_ids) if answered else (), **options)


def notebook_path(course: Path, student: str, name: str = NOTEBOOK) -> Path:
    return course / "submitted" / student / ASSIGNMENT / name


def add_student(course: Path, student: str, dcg: str = CORRECT_DCG, ndcg: str = CORRECT_NDCG,
                extra: tuple[str, ...] = (), name: str = NOTEBOOK, by_hand: str | None = "right") -> Path:
    """Write a submission: the release with the solution cells filled and ``extra`` cells before them.

    Task 1.2 is answered as the student works their own list ``by_hand`` (a way of
    :func:`~autograder.exercises.ndcg.byhand.steps.every_steps`; None: left as released).
    """
    from byhand_answers import answer_by_hand

    notebook = answer_by_hand(fill_solutions(nbformat.read(RELEASE, as_version=4), {"dcg": dcg, "ndcg": ndcg}),
                              student, by_hand)
    first_solution = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    for offset, source in enumerate(extra):
        notebook.cells.insert(first_solution + offset, new_code_cell(source))
    target = notebook_path(course, student, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return target


def add_raw(course: Path, student: str, data: bytes) -> Path:
    target = notebook_path(course, student)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def grade(course: Path, *args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``python -m autograder grade ARGS`` in ``course`` as a tutor would."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(ROOT)
    if env:
        environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--quiet", *args], cwd=course, env=environment,
        capture_output=True, text=True, timeout=timeout,
    )


def results(course: Path, out: str = "graded") -> dict[str, dict]:
    document = json.loads((course / out / "results.json").read_text())
    return {student["student_id"]: student for student in document["students"]}


def python_in_sandbox(sandbox, code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -c code`` in one run of ``sandbox`` (from a fresh scratch home), as the grader starts it."""

    with tempfile.TemporaryDirectory() as scratch:
        launch = sandbox.launch(Path(scratch), slot=0)
        try:
            return subprocess.run(
                [*launch.argv[:-1], "-c", code], cwd=launch.cwd, env=launch.env, pass_fds=launch.pass_fds,
                capture_output=True, text=True, timeout=timeout,
            )
        finally:
            launch.end()


def _cgroup_problem() -> str | None:
    """Why this machine has no writable cgroups for the sandbox, or None if it has."""
    from autograder.sandbox.resources.cgroups import CgroupsUnavailable, detect
    from autograder.sandbox.resources.limits import Limits

    try:
        detect(Limits()).close()
    except CgroupsUnavailable as error:
        return str(error)
    return None


CGROUP_PROBLEM = _cgroup_problem()
needs_cgroups = pytest.mark.skipif(CGROUP_PROBLEM is not None, reason=f"no writable cgroups: {CGROUP_PROBLEM}")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


def stop_process_group(process: subprocess.Popen, timeout: float = 30) -> None:
    """Stop a server started in a process group of its own: SIGTERM, then SIGKILL if it does not go."""
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)


def gradebook_submissions(course: Path) -> list[str]:
    """The ids with an ``ndcg`` submission in ``course``'s gradebook (empty without the assignment)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "ir-ranking-evaluation") as gradebook:
        try:
            return [submission.student.id for submission in gradebook.find_assignment(ASSIGNMENT).submissions]
        except MissingEntry:
            return []
