"""The nbgrader course around the exercise: release generation, plain autograde, gradebook scores.

nbgrader is driven through its command line (``nbgrader generate_assignment``, ``nbgrader
autograde``) with the course directory as working directory, because nbgrader reads
``nbgrader_config.py`` from there only. The venv's ``bin/`` is put on ``PATH`` so that nbgrader
finds the ``alembic`` program it runs when it creates the gradebook.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .notebook_tests import sync_source

ASSIGNMENT = "ndcg"
NOTEBOOK = "ndcg.ipynb"


class CourseError(RuntimeError):
    """An nbgrader step failed; the message carries the end of nbgrader's log."""


def find_root(start: Path | None = None) -> Path:
    """Return the course directory: the nearest folder upwards holding ``nbgrader_config.py``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "nbgrader_config.py").is_file():
            return folder
    raise CourseError(f"no nbgrader_config.py in {here} or above: run this from the course directory")


def tool_environment() -> dict[str, str]:
    """The environment for nbgrader and Jupyter child processes: this Python's ``bin/`` first on PATH."""
    env = dict(os.environ)
    python_bin = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != python_bin:
        env["PATH"] = os.pathsep.join([python_bin, env.get("PATH", "")])
    return env


def run_nbgrader(root: Path, *args: str, timeout: float = 3600) -> str:
    """Run ``nbgrader ARGS`` in ``root``; return its log, raise :class:`CourseError` if it fails."""
    command = [str(Path(sys.executable).parent / "nbgrader"), *args]
    try:
        done = subprocess.run(
            command, cwd=root, env=tool_environment(), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as error:
        raise CourseError(f"`nbgrader {' '.join(args)}` did not finish within {timeout:g} s") from error
    log = done.stdout + done.stderr
    if done.returncode != 0:
        tail = "\n".join(log.strip().splitlines()[-15:])
        raise CourseError(f"`nbgrader {' '.join(args)}` failed (exit {done.returncode}):\n{tail}")
    return log


def source_notebook(root: Path, assignment: str = ASSIGNMENT) -> Path:
    return root / "source" / assignment / NOTEBOOK


def release_notebook(root: Path, assignment: str = ASSIGNMENT) -> Path:
    return root / "release" / assignment / NOTEBOOK


def generate_release(root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Sync the source's test cells from the cases, then run ``nbgrader generate_assignment``.

    Returns the ids of the test cells that the sync changed.
    """
    changed = sync_source(source_notebook(root, assignment))
    run_nbgrader(root, "generate_assignment", assignment, "--force")
    return changed


def autograde(root: Path, assignment: str = ASSIGNMENT) -> str:
    """Run plain ``nbgrader autograde`` on every submission in ``root/submitted``; return its log."""
    return run_nbgrader(root, "autograde", assignment, "--force")


def gradebook_scores(root: Path, assignment: str = ASSIGNMENT) -> dict[str, tuple[float, float]]:
    """Return ``{student_id: (score, max_score)}`` from the course's gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    url = f"sqlite:///{root / 'gradebook.db'}"
    scores: dict[str, tuple[float, float]] = {}
    with Gradebook(url) as gradebook:
        for student in gradebook.students:
            try:
                submission = gradebook.find_submission(assignment, student.id)
            except MissingEntry:
                continue
            scores[student.id] = (float(submission.score), float(submission.max_score))
    return scores
