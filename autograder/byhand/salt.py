"""A by-hand part's salt for the course: published in the source, read back from the release.

The cells themselves are the exercise's (written by its answered part's ``sync`` hook); this module
publishes a roster's salt in them (``variants``) and reads back what the release publishes, which
every student's variant came from. It reaches the exercise only through its by-hand hook
(:class:`~..grading.ByHand`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat

from ..errors import CourseError, UsageError
from ..exercises import EXERCISES, exercise_for
from ..grading import ByHand, Exercise


def by_hand(exercise: Exercise) -> ByHand:
    """The by-hand hook of ``exercise``.

    Raises
    ------
    UsageError
        When the exercise has no by-hand part; the message says so in one line.
    """
    hook = exercise.answered.by_hand if exercise.answered is not None else None
    if hook is None:
        with_one = ", ".join(name for name, other in EXERCISES.items()
                             if other.answered is not None and other.answered.by_hand is not None)
        raise UsageError(f"{exercise.assignment} has no by-hand part (a variant per student): nothing to do for it"
                         + (f"; exercises with one: {with_one}" if with_one else ""))
    return hook


def by_hand_exercise(assignment: str | None = None) -> Exercise:
    """The exercise ``assignment`` (default: the first registered one with a by-hand part).

    Raises
    ------
    UsageError
        For an unknown assignment, or one (or a course) without a by-hand part: one line says so.
    """
    if assignment is not None:
        exercise = exercise_for(assignment)
        by_hand(exercise)
        return exercise
    for exercise in EXERCISES.values():
        if exercise.answered is not None and exercise.answered.by_hand is not None:
            return exercise
    raise UsageError(f"no exercise of this course ({', '.join(EXERCISES)}) has a by-hand part: nothing to do")


def write_salt(root: Path, exercise: Exercise, salt: str, *, keep_earlier: bool = False) -> Path:
    """Publish ``salt`` in the exercise's source notebook; return the notebook's path.

    ``keep_earlier``: the salt it replaces stays valid for what students handed in.
    """
    path = root / "source" / exercise.assignment / exercise.notebook
    by_hand(exercise).write_salt(path, salt, keep_earlier)
    return path


def source_salt(root: Path, exercise: Exercise) -> str:
    """The salt the source notebook publishes now (a new offering's, or one chosen for a roster)."""
    notebook = nbformat.read(root / "source" / exercise.assignment / exercise.notebook, as_version=4)
    return by_hand(exercise).published(notebook)[0]


def release_variant(root: Path, exercise: Exercise) -> tuple[str, str]:
    """The salt and pool of the exercise's released notebook: what every student's variant came from."""
    path = root / "release" / exercise.assignment / exercise.notebook
    if not path.is_file():
        raise CourseError(f"no released notebook at {path}: run `python -m autograder release` first")
    return by_hand(exercise).published(nbformat.read(path, as_version=4))


def collisions(hook: ByHand, roster: Iterable[str], salt: str, pool: str) -> dict[tuple[int, ...], list[str]]:
    """The variants that more than one student of ``roster`` would get with ``salt``."""
    holders: dict[tuple[int, ...], list[str]] = {}
    for student in roster:
        holders.setdefault(hook.variant(student, salt, pool), []).append(student)
    return {variant: ids for variant, ids in holders.items() if len(ids) > 1}
