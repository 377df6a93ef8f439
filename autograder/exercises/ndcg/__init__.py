"""The DCG/nDCG exercise: students write ``dcg(rels, k)`` and ``ndcg(rels, k)``.

Everything that is specific to this exercise lives in this package: the test cases and their
provenance (:mod:`.cases`), the catalogue of known mistakes with their mutants
(:mod:`.catalogue`), the diagnosis (:mod:`.diagnosis`) and the definition students are graded
against (``definition.html``). :data:`EXERCISE` hands them to the engine.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import ndcg_ref

from ...grading import Exercise
from .cases import GROUPS, reference
from .catalogue import CATALOGUE
from .diagnosis import ALL_PROBES, diagnose

_HERE = Path(__file__).parent


def _reference_fingerprint() -> str:
    """The reference package's source: a fix there must re-grade cached results."""
    package = Path(ndcg_ref.__file__).parent
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


EXERCISE = Exercise(
    assignment="ndcg",
    notebook="ndcg.ipynb",
    title="DCG and nDCG",
    groups=GROUPS,
    reference=reference,
    probes=ALL_PROBES,
    diagnose=diagnose,
    catalogue=CATALOGUE,
    definition_html=(_HERE / "definition.html").read_text(encoding="utf-8"),
    # Tight enough that a result rounded to 2 or 4 decimals fails, loose enough for any summation order.
    rel_tol=1e-9,
    abs_tol=1e-12,
    unchanged_hint="do not modify `rels` (use sorted(rels), not rels.sort())",
    fingerprint=_reference_fingerprint(),
)

__all__ = ["EXERCISE"]
