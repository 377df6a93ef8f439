"""Families of DCGs with a twist the catalogue has no name for, generated: the other side of ``non_dcg``.

Each member computes a DCG, wrongly: a discount whose logarithm is shifted by some ranks or has another
base or a factor in front, rank 1 left undiscounted with a shifted discount after it, the last
document of the list dropped, and stacks of these (the result rounded to 2 decimals or more, too), on the lecture's gain or a known wrong one
(``2 ** rel - 1``, ``int(rel)``) and a known cut-off mistake or none. Its ``ndcg`` divides it by the
ideal's DCG as the lecture does (returning 0.0 when nothing is relevant, by a check or by catching the
zero division) or with a known mistake in the ideal. The evidence rule must give every such member
each group whose cases it meets (``tests/exercises/test_evidence.py``): the rule stops code that
computes no DCG, not code whose mistake has no catalogue id.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from hypothesis import strategies as st

from autograder.exercises.ndcg.catalogue import BY_ID, CORRECT_NDCG

#: The gains: the lecture's, and two known mistakes (so that a twist stacks on a named mistake).
GAINS = {"linear": "rels[i]", "exponential": "(2 ** rels[i] - 1)", "int": "int(rels[i])"}
#: How many documents are summed: the lecture's, the last one dropped (a twist), two known mistakes.
CUTOFFS = {
    "k": "min(k, len(rels))",
    "last dropped": "min(k, len(rels) - 1)",
    "whole list": "len(rels)",
    "one too many": "min(k + 1, len(rels))",
}
#: 0-based shifts of the logarithm's argument: i + 2 is the lecture's, i + 3 a known offset, the rest unknown
#: (with rank 1 undiscounted, i + 2 from rank 2 on is the lecture's too, and i + 3 in base 2 is known).
SHIFTS = (2, 3, 4, 5, 6, 7, 9)
BASES = ("2", "math.e", "3", "10")
SCALES = (1.0, 0.5, 2.0, 3.0, 1 / math.log(2))
#: Decimals the result is rounded to (None: not rounded); fewer than 2 keep too little of a shape to judge.
ROUNDINGS = (None, 2, 3, 6)
NDCGS = {
    "lecture formula": CORRECT_NDCG,
    "zero division caught": (
        "def ndcg(rels, k):\n    try:\n        return dcg(rels, k) / dcg(sorted(rels, reverse=True), k)\n"
        "    except ZeroDivisionError:\n        return 0.0"
    ),
    "ideal not cut": BY_ID["ideal-not-cut"].mutants[0].ndcg,
    "ideal from the top k": BY_ID["ideal-from-top-k"].mutants[0].ndcg,
}


@dataclass(frozen=True)
class Twisted:
    """A generated submission whose dcg computes a DCG with a twist, and how it was built."""

    label: str
    dcg: str
    ndcg: str


def _twists(shift: int, base: str, scale: float, undiscounted: bool, cutoff: str) -> list[str]:
    """The twists a combination has that no catalogue entry names (empty: only known mistakes)."""
    twists = []
    if shift > 3:
        twists.append(f"log(i + {shift})")
    if scale != 1.0 or (base != "2" and undiscounted):  # (every rank in another base: the known log-base)
        twists.append(f"scaled {scale:g}, base {base}")
    if cutoff == "last dropped":
        twists.append("last document dropped")
    return twists


def generate(rng: random.Random) -> Twisted:
    """One member, drawn with ``rng``: at least one twist the catalogue does not name."""
    while True:
        gain = rng.choices(list(GAINS), weights=(6, 2, 1))[0]
        cutoff = rng.choices(list(CUTOFFS), weights=(3, 3, 1, 1))[0]
        shift, scale = rng.choice(SHIFTS), rng.choice(SCALES)
        undiscounted = rng.random() < 0.3
        # rank 1 undiscounted beside a logarithm of base 3 is a shape nobody writes: not generated
        base = rng.choice(BASES[:2] + BASES[3:] if undiscounted else BASES)
        twists = _twists(shift, base, scale, undiscounted, cutoff)
        if twists:
            break
    term = f"{scale!r} * {GAINS[gain]} / math.log(i + {shift}, {base})"
    if undiscounted:  # rank 1 as it is, the shifted discount from rank 2 on
        body = (f"n = {CUTOFFS[cutoff]}\nif n <= 0:\n    return 0.0\n"
                f"return {scale!r} * {GAINS[gain].replace('[i]', '[0]')} + sum({term} for i in range(1, n))")
    else:
        body = f"return sum({term} for i in range({CUTOFFS[cutoff]}))"
    dcg = "import math\n\n\ndef dcg(rels, k):\n" + "\n".join("    " + line for line in body.splitlines())
    # a result rounded to 2 decimals or more still shows its shape (the hand answers' 2.43)
    rounding = rng.choices(ROUNDINGS, weights=(6, 2, 1, 1))[0]
    if rounding is not None:
        dcg = dcg.replace("def dcg(rels, k):", "def _dcg(rels, k):") + (
            f"\n\n\ndef dcg(rels, k):\n    return round(_dcg(rels, k), {rounding})")
    ndcg = rng.choice(list(NDCGS))
    label = (f"gain {gain}, cut {cutoff}, twists {twists}{', rank 1 undiscounted' if undiscounted else ''}"
             f"{f', rounded to {rounding}' if rounding is not None else ''}; ndcg {ndcg}")
    return Twisted(label, dcg, NDCGS[ndcg])


@st.composite
def twisted_dcg(draw: st.DrawFn) -> Twisted:
    """A hypothesis strategy over the families."""
    return generate(random.Random(draw(st.integers(0, 2**32 - 1))))
