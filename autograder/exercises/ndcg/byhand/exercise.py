"""The by-hand part as the engine's :class:`~autograder.grading.Exercise`: for the gradebook and the feedback page.

Nothing of the by-hand part runs in a sandbox (:mod:`.marking` reads the answers as numbers), so
this exercise has no cases and no probes: its groups are the four steps (the notebook's grade cells
with their points), its catalogue and definition are the code part's (the hand mistakes carry the
catalogue's IDs), so that the gradebook records and the feedback page renders a by-hand result
exactly as they do the code part's. It is not in :data:`autograder.exercises.EXERCISES`:
``python -m autograder grade`` never grades it.
"""

from __future__ import annotations

from dataclasses import replace

from ....grading import Call, Diagnosis, TestGroup
from .. import EXERCISE as CODE_PART
from .marking import STEPS

ASSIGNMENT = "byhand"
NOTEBOOK = "byhand.ipynb"


def _no_reference(call: Call) -> float:
    raise TypeError(f"the by-hand part computes no call ({call}): its answers are marked by .marking")


BY_HAND = replace(
    CODE_PART,
    assignment=ASSIGNMENT,
    notebook=NOTEBOOK,
    title="nDCG by hand",
    groups=tuple(TestGroup(step.grade_id, step.step, step.description, step.points, True, ()) for step in STEPS),
    reference=_no_reference,
    probes=(),
    diagnose=lambda records: Diagnosis(),
    witnesses=None,
)
