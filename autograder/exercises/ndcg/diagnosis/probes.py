"""The probe calls: small inputs chosen to tell the mistakes apart, separate from the test cases.

The student's ``dcg`` and ``ndcg`` run on these in the sandbox, after the test calls; their
values are matched against the models in the grader's process (:mod:`.matching`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ....grading import Call
from .variants import CUTS, ORDERS, SCOPES, ideal_list


def probe(function: str, rels: Sequence[float], k: int) -> Call:
    """The call ``function(rels, k)``."""
    return Call(function, (tuple(rels), k))


def rels_of(call: Call) -> tuple[float, ...]:
    """The ranking a call is made on."""
    rels: tuple[float, ...] = call.args[0]
    return rels


def k_of(call: Call) -> int:
    """The cut-off a call is made with."""
    k: int = call.args[1]
    return k


def describe(call: Call) -> str:
    """E.g. ``rels=[1, 0, 2], k=3``."""
    return f"rels={list(rels_of(call))}, k={k_of(call)}"


#: dcg probes: small lists first (they make the clearest counterexamples). The single documents
#: at rank 1 separate the gains; the single grade-1 documents at ranks 2..6 of a long list (k below
#: its end, so that k + 1 still fits) measure the discount; the lists of ones measure the cut-off.
_DCG_LISTS: list[tuple[Sequence[float], int]] = [
    ([3, 2], 2), ([2, 0, 1], 3), ([1], 1), ([2], 1), ([3], 1),
    *(([0] * (rank - 1) + [1] + [0] * (16 - rank), 12) for rank in range(2, 7)),
    ([0, 0, 2] + [0] * 13, 12), ([1] * 12, 4), ([1] * 6, 3), ([2, 1, 3, 0, 1, 2, 1], 5),
    # fractional grades (a truncated or thresholded grade shows), relevant documents after
    # irrelevant ones (a cut at the number of relevant documents shows)
    ([2.5, 0.5], 2), ([0.5, 1.5, 0, 2], 4), ([0, 0, 1, 1, 0, 1], 6), ([1.5, 0.5, 0.5, 2.5, 0.5, 1], 6),
    ([3, 3, 3, 3, 3, 3, 3], 5), ([0.5] * 8, 8),
]
DCG_PROBES: tuple[Call, ...] = tuple(probe("dcg", rels, k) for rels, k in _DCG_LISTS)
#: Probes with k beyond the list: an exception here (and not elsewhere) is `k-beyond-length`.
BEYOND_PROBES: tuple[Call, ...] = (probe("dcg", (1, 2), 5), probe("ndcg", (2, 0, 1), 6))
#: ndcg probes: relevant documents below the cut-off, cut-offs inside the list, ties.
_NDCG_LISTS: list[tuple[Sequence[float], int]] = [
    ([1, 3, 0, 2, 0], 2), ([0, 1, 0, 2, 3, 1], 3), ([2, 1, 0, 3], 2), ([1, 3, 2], 3),
    ([0, 2, 1, 0, 0, 3, 1], 4), ([3, 0, 1], 2), ([1, 1, 2, 0], 3),
    # grades 0-2 only: code that crashes on grade 3 still shows what it computes
    ([2, 0, 1, 2, 1, 0, 0], 2), ([0, 2, 2, 1, 0, 2], 3), ([1, 2, 0, 2, 0, 1, 0, 0], 4), ([1, 0, 0, 2, 2], 2),
    # fewer relevant documents than k: an ideal of every position relevant shows
    ([0, 2, 0, 0, 1, 0], 4),
    # few zeros: an ascending ideal is not 0 here either
    ([2, 1, 1, 2], 2), ([1, 2, 2, 1, 1], 3),
    # fractional grades (grades 0-2): code that truncates them, or raises on them, in the ideal shows
    ([0.5, 2, 0, 1.5, 1, 0], 3), ([1.5, 0, 1, 0.5, 2, 0], 2),
]
NDCG_PROBES: tuple[Call, ...] = tuple(probe("ndcg", rels, k) for rels, k in _NDCG_LISTS)
#: One document: a ranking too (scikit-learn's ndcg_score refuses it). dcg has its own among DCG_PROBES.
ONE_DOCUMENT_PROBES: tuple[Call, ...] = (probe("ndcg", (2,), 1), probe("ndcg", (3,), 1))
#: Nothing relevant: the only correct answer is 0.0.
ZERO_PROBES: tuple[Call, ...] = (probe("ndcg", (0, 0, 0, 0, 0), 4), probe("ndcg", (0, 0), 1))


@dataclass(frozen=True)
class PropertyProbe:
    """``call == factor * companion`` on a visible input: a property a hidden group checks, shown on the
    student's own function where the diagnosis has no name for what it does."""

    call: Call
    companion: Call
    factor: float
    #: What it checks, in the words the hidden group's message uses.
    meaning: str


#: One of each kind of property the hidden groups check (inputs of their own: no hidden case's).
PROPERTY_PROBES: tuple[PropertyProbe, ...] = (
    PropertyProbe(probe("dcg", (3, 1, 2, 0), 3), probe("dcg", (1.5, 0.5, 1, 0), 3), 2.0,
                  "multiplying every grade by the same number must multiply the value by that number"),
    PropertyProbe(probe("dcg", (2, 0, 1, 2, 1), 2), probe("dcg", (2, 0, 0, 0, 0), 5), 1.0,
                  "the documents below rank k must not change the value"),
    PropertyProbe(probe("dcg", (1, 0, 2), 9), probe("dcg", (1, 0, 2), 3), 1.0,
                  "a k beyond the list's length must give the value of the whole list"),
    PropertyProbe(probe("ndcg", (2, 1, 0, 1), 1), probe("ndcg", (2, 0, 1, 1), 1), 1.0,
                  "at k=1 only the document at rank 1 counts"),
    PropertyProbe(probe("ndcg", (0, 2, 1), 7), probe("ndcg", (0, 2, 1), 3), 1.0,
                  "a k beyond the list's length must give the value of the whole list"),
)


def _auxiliary_probes() -> tuple[Call, ...]:
    """The student's dcg on every list an ndcg model may divide by (so that models can use it)."""
    calls = [probe("dcg", rels_of(p), k_of(p)) for p in ZERO_PROBES]
    for p in NDCG_PROBES:
        rels, k = rels_of(p), k_of(p)
        calls.append(probe("dcg", rels, k))
        for order, scope, cut in itertools.product(ORDERS, SCOPES, CUTS):
            ideal = ideal_list(rels, k, order, scope)
            calls.append(probe("dcg", ideal, cut.rule(k, len(ideal))))
    return tuple(dict.fromkeys(calls))


AUXILIARY_PROBES = _auxiliary_probes()

#: Every probe call, each once, in the order the runner makes them.
ALL_PROBES: tuple[Call, ...] = tuple(
    dict.fromkeys(
        DCG_PROBES + AUXILIARY_PROBES + BEYOND_PROBES + NDCG_PROBES + ZERO_PROBES + ONE_DOCUMENT_PROBES
        + tuple(c for p in PROPERTY_PROBES for c in (p.call, p.companion))
    )
)
