"""Families of functions that compute no DCG at all, generated: the search behind "no points for non-DCG code".

Each member is written as a student's ``dcg``/``ndcg`` source: constants and piecewise constants on
emptiness, length, k, sortedness, the maximum, a sum, the first element; ``inf`` and ``nan``; lookup
tables of the lecture's and the release's visible values; scale-invariant shapes; and combinations
with a correct ``ndcg`` formula. Used by an in-process property test (hypothesis) and by a batch
graded in the sandbox; each member must score at most the contract points.

Left out on purpose, because they *are* ways of computing a DCG that the catalogue knows: the plain
sum of the top k (no discount), the sum of the whole list (no discount, no cut-off), and for ``ndcg``
the sum of the top k over the sum of the list (both of those, an ideal not cut).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import strategies as st

import ndcg_ref
from autograder.exercises.ndcg.catalogue import CORRECT_NDCG

#: Quantities of the input a non-DCG function may be built from (``top`` is ``rels[:k]``).
FEATURES: dict[str, str] = {
    "one": "1.0",
    "nonempty": "float(any(top))",
    "length": "float(len(rels))",
    "k": "float(k)",
    "cut": "float(len(top))",
    "sorted": "float(list(top) == sorted(rels, reverse=True)[:k])",
    "max": "float(max(top, default=0))",
    "first": "(float(rels[0]) if rels else 0.0)",
    "squared_sum": "float(sum(top)) ** 2",
    "shifted_total": "(float(sum(rels)) + 1.0)",
    "max_share": "(max(top, default=0) / max(rels) if any(rels) else 0.0)",
    "count_relevant": "float(sum(1 for r in top if r > 0))",
}
#: Ways of combining features into a value (``{a}``, ``{b}``: features; ``{c}``: a constant).
SHAPES: tuple[str, ...] = (
    "{a}",
    "{c} * {a}",
    "({c} if {a} else 0.0)",
    "({a} * {b})",
    "({a} + {b})",
    "({a} / ({b} + 1.0))",
    "(float('inf') if {a} else 0.0)",
    "(float('nan') if {a} else 0.0)",
    "({c} if {a} else {b})",
)
CONSTANTS = (0.5, 1.0, 2.0, 3.0, 0.7763, 2.4307)

#: The visible calls of the release (the lecture example) with their reference values: what a
#: lookup table can know without computing anything.
LECTURE = (1, 0, 2, 1, 0)
DCG_TABLE = {(LECTURE, k): ndcg_ref.dcg(list(LECTURE), k) for k in (1, 2, 3, 4, 5)}
NDCG_TABLE = {(LECTURE, k): ndcg_ref.ndcg(list(LECTURE), k) for k in (1, 2, 3, 4, 5)}


@dataclass(frozen=True)
class NonDcg:
    """A generated submission that computes no DCG, and how it was built (for the failure message)."""

    label: str
    dcg: str
    ndcg: str


def _function(name: str, expression: str, table: dict | None) -> str:
    lookup = ""
    if table is not None:
        lookup = (
            f"    hit = {table!r}.get((tuple(rels), k))\n"
            "    if hit is not None:\n"
            "        return hit\n"
        )
    return f"def {name}(rels, k):\n    top = list(rels[:k])\n{lookup}    return {expression}\n"


def _expression(rng: random.Random) -> tuple[str, str]:
    shape = rng.choice(SHAPES)
    a, b = rng.choice(sorted(FEATURES)), rng.choice(sorted(FEATURES))
    c = rng.choice(CONSTANTS)
    label = shape.format(a=a, b=b, c=c)
    return label, shape.format(a=FEATURES[a], b=FEATURES[b], c=repr(c))


def generate(rng: random.Random) -> NonDcg:
    """One member of the families, drawn with ``rng``."""
    dcg_label, dcg_expression = _expression(rng)
    dcg_table = DCG_TABLE if rng.random() < 0.4 else None
    dcg = _function("dcg", dcg_expression, dcg_table)
    pick = rng.random()
    if pick < 0.35:  # a correct ndcg formula over the non-DCG dcg
        ndcg, ndcg_label = CORRECT_NDCG, "correct formula"
    else:
        ndcg_label, ndcg_expression = _expression(rng)
        ndcg = _function("ndcg", ndcg_expression, NDCG_TABLE if rng.random() < 0.4 else None)
    tables = f"{'+table' if dcg_table else ''}"
    return NonDcg(f"dcg={dcg_label}{tables}; ndcg={ndcg_label}", dcg, ndcg)


@st.composite
def non_dcg(draw: st.DrawFn) -> NonDcg:
    """A hypothesis strategy over the families (shrinks towards the first shapes and features)."""
    return generate(random.Random(draw(st.integers(0, 2**32 - 1))))
