"""Fresh test instances for one submission: drawn from the groups' templates, seeded by a keyed hash.

A hidden input can leak out of the sandbox through channels no sandbox closes (the kernel's page
cache outlives every run). So that a leaked input is worth nothing, every hidden group holds, beside
its fixed cases, fresh instances drawn for the submission being graded. The seed is an HMAC, keyed
with the course's secret (never mounted into a sandbox), of the student id and the code the
submission runs: re-grading the same notebook draws the same instances (the same score), a changed
notebook draws new ones, and nobody without the secret can tell which.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
from collections.abc import Sequence
from dataclasses import replace

from .exercise import Call, Exercise, TestGroup

#: Shown beside a result: which instances were drawn (a digest of the seed, never the seed itself).
LABEL_LENGTH = 12


def draw_seed(key: bytes, student_id: str, cells: Sequence[str]) -> bytes:
    """The seed of one submission's instances: HMAC-SHA256(key, student id, digest of the code cells).

    Parameters
    ----------
    key
        The course's secret (empty: instances that anyone can recompute; for tests and examples).
    student_id
        The student's folder name (any bytes: a name that is not UTF-8 keeps its bytes).
    cells
        The sources of the student's code cells, as the sandbox runs them: both grading paths (the
        batch command and nbgrader's autograde) read the same cells from the same notebook.

    Returns
    -------
    bytes
        32 bytes.
    """
    code = hashlib.sha256(json.dumps(list(cells)).encode("ascii")).digest()
    return hmac.new(key, os.fsencode(student_id) + b"\0" + code, "sha256").digest()


def draw_label(seed: bytes) -> str:
    """A short name of a seed's instances, for results and logs: equal labels, equal instances."""
    return hashlib.sha256(b"label\0" + seed).hexdigest()[:LABEL_LENGTH]


def _rng(seed: bytes, grade_id: str, number: int) -> random.Random:
    """Each template its own stream: adding a template elsewhere changes no other instance."""
    digest = hmac.new(seed, f"{grade_id}\0{number}".encode(), "sha256").digest()
    return random.Random(int.from_bytes(digest, "big"))


def drawn_groups(exercise: Exercise, seed: bytes) -> tuple[TestGroup, ...]:
    """The exercise's groups with one fresh instance of every template appended to each group's cases."""
    return tuple(
        replace(group, cases=group.cases + tuple(
            template.instance(_rng(seed, group.grade_id, number)) for number, template in enumerate(group.templates)
        )) if group.templates else group
        for group in exercise.groups
    )


def drawn_witnesses(exercise: Exercise, seed: bytes) -> tuple[Call, ...]:
    """The exercise's witness calls for the submission ``seed`` is of (none if it has no witnesses)."""
    if exercise.witnesses is None:
        return ()
    return tuple(dict.fromkeys(exercise.witnesses(_rng(seed, "witnesses", 0))))
