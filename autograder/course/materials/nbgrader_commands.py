"""The nbgrader course around the exercises: release generation, plain autograde, gradebook scores.

nbgrader is driven through its command line (``nbgrader generate_assignment``, ``nbgrader
autograde``) with the course directory as working directory, because nbgrader reads
``nbgrader_config.py`` from there only. The venv's ``bin/`` is put on ``PATH`` so that nbgrader
finds the ``alembic`` program it runs when it creates the gradebook.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ...errors import CourseError
from ...exercises import EXERCISES, exercise_for
from ...gradebook.database import open_gradebook
from ...gradebook.scores import check_gradebook, gradebook_path, tool_environment
from ..notebook_cells.generated_cells import sync_source

#: Appended to a course's config: nbgrader's own, unsandboxed Execute back in place of SandboxedExecute.
#: Only for trusted notebooks: the tests and the benchmark use it as the reference to agree with.
NBGRADER_OWN_EXECUTE = """
from nbgrader.preprocessors import Execute
c.Autograde.autograde_preprocessors = [Execute, *c.Autograde.autograde_preprocessors[1:]]
"""

#: The course's exercise when none is named: the first registered (a one-exercise course's only one).
ASSIGNMENT = next(iter(EXERCISES))
NOTEBOOK = EXERCISES[ASSIGNMENT].notebook


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
    """The instructor's notebook of ``assignment``."""
    return root / "source" / assignment / exercise_for(assignment).notebook


def release_notebook(root: Path, assignment: str = ASSIGNMENT, notebook: str | None = None) -> Path:
    """The students' notebook of ``assignment`` as nbgrader generated it (``notebook``: by default the exercise's)."""
    return root / "release" / assignment / (notebook or exercise_for(assignment).notebook)


def generate_release(root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Sync the source's test cells from the cases, then run ``nbgrader generate_assignment``.

    Returns the ids of the test cells that the sync changed. If nbgrader fails, the previous
    release is put back as it was.
    """
    check_gradebook(root / "gradebook.db")
    changed = sync_exercise(root, assignment)
    release = release_notebook(root, assignment).parent
    with tempfile.TemporaryDirectory(prefix="release-backup-") as backup:
        kept = Path(backup) / assignment
        if release.is_dir():
            shutil.copytree(release, kept)
        try:
            run_nbgrader(root, "generate_assignment", assignment, "--force")
        except CourseError:
            # `--force` removed the old release before nbgrader failed: put it back
            if kept.is_dir():
                shutil.rmtree(release, ignore_errors=True)
                shutil.copytree(kept, release)
            raise
    return changed


def sync_exercise(root: Path, assignment: str = ASSIGNMENT) -> list[str]:
    """Write ``assignment``'s generated cells into its source notebook; return the ids that changed.

    An answered part's own cells first (its :attr:`~...grading.AnsweredPart.sync` hook, e.g. the nDCG
    exercise's Task 1.2), then the test cells from the exercise's cases.
    """
    exercise = exercise_for(assignment)
    source = source_notebook(root, assignment)
    changed = []
    if exercise.answered is not None and exercise.answered.sync is not None:
        changed += exercise.answered.sync(source)
    return changed + sync_source(source, exercise)


def autograde(root: Path, assignment: str = ASSIGNMENT) -> str:
    """Run plain ``nbgrader autograde`` on every submission in ``root/submitted``; return its log."""
    check_gradebook(root / "gradebook.db")
    return run_nbgrader(root, "autograde", assignment, "--force")


def gradebook_scores(root: Path, assignment: str = ASSIGNMENT) -> dict[str, tuple[float, float]]:
    """Return ``{student_id: (score, max_score)}`` from the course's gradebook (``c.CourseDirectory.db_url``)."""
    from ...gradebook.url import course_gradebook
    from ...nbgrader_adapter import MissingEntry

    target = course_gradebook(root)
    if target is None:  # only `--gradebook none` names none
        return {}
    if (path := gradebook_path(target.url)) is not None:
        check_gradebook(path)
    scores: dict[str, tuple[float, float]] = {}
    with open_gradebook(target.url) as gradebook:
        for student in gradebook.students:
            try:
                submission = gradebook.find_submission(assignment, student.id)
            except MissingEntry:
                continue
            scores[student.id] = (float(submission.score), float(submission.max_score))
    return scores
