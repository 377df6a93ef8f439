"""The DCG/nDCG exercise: students write ``dcg(rels, k)`` and ``ndcg(rels, k)``.

Everything that is specific to this exercise lives in this package: the test cases and their
provenance (:mod:`.cases`), the catalogue of known mistakes with their mutants
(:mod:`.catalogue`), the diagnosis (:mod:`.diagnosis`) and the definition students are graded
against (``definition.html``). :data:`EXERCISE` hands them to the engine.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ndcg_ref

from ...files import code_digest, source_digest
from ...grading import Exercise
from .byhand.answered_part import ANSWERED
from .cases import GROUPS, reference
from .catalogue import CATALOGUE
from .diagnosis import ALL_PROBES, diagnose
from .diagnosis.likeness import resembles
from .fresh import TEMPLATES, witnesses
from .tolerance import ABS_TOL, REL_TOL, SINGLE_PRECISION_REL_TOL

_HERE = Path(__file__).parent


EXERCISE = Exercise(
    assignment="ndcg",
    notebook="ndcg.ipynb",
    title="DCG and nDCG",
    # every hidden group also gets fresh instances drawn per submission (a leaked input is worth nothing)
    groups=tuple(replace(group, templates=TEMPLATES.get(group.grade_id, ())) for group in GROUPS),
    reference=reference,
    probes=ALL_PROBES,
    diagnose=diagnose,
    catalogue=CATALOGUE,
    resembles=resembles,
    witnesses=witnesses,
    definition_html=(_HERE / "definition.html").read_text(encoding="utf-8"),
    # the tolerance policy, written down once (rounding fails, float32 noise does not): .tolerance
    rel_tol=REL_TOL,
    abs_tol=ABS_TOL,
    noise_rel_tol=SINGLE_PRECISION_REL_TOL,
    unchanged_hint="do not modify `rels` (use sorted(rels), not rels.sort())",
    # Task 1.2 by hand, before the code: its answers are read as numbers, never run
    answered=ANSWERED,
    # a change to the exercise or to the reference functions its cases and diagnosis call re-grades
    # cached results; a change elsewhere in ndcg_ref (its TREC reader, its batch kernels) does not
    fingerprint=source_digest(_HERE) + code_digest(ndcg_ref.dcg, ndcg_ref.ndcg),
)

__all__ = ["EXERCISE"]
