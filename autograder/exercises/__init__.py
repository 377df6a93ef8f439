"""The course's exercises, by assignment id.

Adding an exercise means adding a package here that builds its ``EXERCISE``, its import and entry
in :data:`EXERCISES`, and its notebook in ``source/`` (the list: docs/architecture.md); the engine
does not change.
"""

from __future__ import annotations

from ..errors import UsageError
from ..grading import Exercise
from .ndcg import EXERCISE as NDCG

EXERCISES: dict[str, Exercise] = {NDCG.assignment: NDCG}


def exercise_for(assignment: str) -> Exercise:
    """The exercise graded as ``assignment``; :class:`UsageError` names the known ones."""
    try:
        return EXERCISES[assignment]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise UsageError(f"unknown assignment {assignment!r}: this course grades {known}") from None
