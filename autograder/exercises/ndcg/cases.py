"""The test cases of the DCG/nDCG exercise: the one place they are written down.

Each :class:`TestGroup` is one nbgrader grade cell (one ``grade_id``) worth some points; each
:class:`Case` is one call of the student's function. Expected values are never written here:
:func:`reference` computes them with :mod:`ndcg_ref`. The notebook's test cells are generated
from this table (see :mod:`autograder.course.generated_cells`), and so is the grader's test run.

Only the lecture example is published course material; every other case is constructed for
this kit and says so in its provenance.
"""

from __future__ import annotations

from collections.abc import Sequence

import ndcg_ref

from ...grading import Call, Case, Expect, TestGroup

LECTURE = "lecture 'Ranking and Evaluation', slide 25 example"


def reference(call: Call) -> float:
    """The reference value of ``dcg(rels, k)`` or ``ndcg(rels, k)``, computed by :mod:`ndcg_ref`.

    Examples
    --------
    >>> round(reference(Call("ndcg", ((1, 0, 2, 1, 0), 5))), 4)
    0.7763
    """
    rels, k = call.args
    function = {"dcg": ndcg_ref.dcg, "ndcg": ndcg_ref.ndcg}[call.function]
    return function(list(rels), k)


def _dcg(rels: Sequence[float], k: int, provenance: str) -> Case:
    return Case(Call("dcg", (tuple(rels), k)), provenance)


def _own_ratio(rels: Sequence[float], k: int) -> tuple[Call, Call]:
    """The student's own dcg of the ranking and of the ideal ranking: an ndcg that divides them is
    right for the student's dcg (a mistake in dcg is not counted again against ndcg)."""
    return Call("dcg", (tuple(rels), k)), Call("dcg", (tuple(sorted(rels, reverse=True)), k))


def _ndcg(rels: Sequence[float], k: int, provenance: str) -> Case:
    return Case(Call("ndcg", (tuple(rels), k)), provenance, own_ratio=_own_ratio(rels, k))


def _zero(rels: Sequence[float], k: int, provenance: str) -> Case:
    """Nothing relevant: 0.0 is the only right answer, whatever the student's dcg."""
    return Case(Call("ndcg", (tuple(rels), k)), provenance)


def _contract(function: str, rels: Sequence[float], k: int) -> Case:
    """A plain number comes back and the caller's list is unchanged, whatever the value."""
    return Case(Call(function, (tuple(rels), k)), "constructed: a number, input list unchanged", True, Expect.NUMBER)


def _same(
    function: str, rels: Sequence[float], k: int, other: Sequence[float], other_k: int, provenance: str,
    factor: float = 1.0,
) -> Case:
    """``function(rels, k) == factor * function(other, other_k)``: a property of the student's own function."""
    return Case(
        Call(function, (tuple(rels), k)), provenance, expect=Expect.SAME_AS,
        companion=Call(function, (tuple(other), other_k)), factor=factor,
        own_ratio=_own_ratio(rels, k) if function == "ndcg" else None,
    )


#: Which groups each single mistake of the catalogue should cost is declared with its mutants
#: (:mod:`.catalogue`); the groups are built so that a mistake costs the group about it: the
#: contract groups ask only for a number and an unchanged list, the cut-off and grade groups are
#: properties of the student's own function that hold whatever discount it uses, and the ideal
#: ranking's cases have values that do not depend on the discount.
GROUPS: tuple[TestGroup, ...] = (
    # ----- Task 1.3: dcg -------------------------------------------------------------------
    TestGroup(
        "test_dcg_lecture", "dcg", "dcg reproduces the lecture example", 1.0, True,
        (
            _dcg([1, 0, 2, 1, 0], 5, LECTURE),
            _dcg([1, 0, 2, 1, 0], 3, LECTURE + ", cut at k=3"),
        ),
    ),
    TestGroup(
        "test_dcg_discount", "dcg", "dcg divides the grade at rank i by log2(i + 1)", 1.0, False,
        (
            _dcg([1, 0, 0, 0, 0], 5, "constructed: rank 1 is not discounted"),
            _dcg([0, 1, 0, 0], 4, "constructed: one relevant document at rank 2"),
            _dcg([0, 0, 0, 1, 0, 0], 6, "constructed: one relevant document at rank 4"),
            _dcg([0, 0, 0, 0, 0, 0, 0, 0, 1, 0], 10, "constructed: one relevant document at rank 9"),
            _dcg([1, 1, 0, 1, 0], 5, "constructed: three relevant documents"),
        ),
    ),
    TestGroup(
        "test_dcg_cutoff", "dcg", "dcg sums exactly the top k ranks, for k below and beyond the list length",
        1.5, False,
        (
            _same("dcg", [2, 1, 3, 0, 2], 2, [2, 1, 0, 0, 0], 5, "constructed: ranks below k do not count"),
            _same("dcg", [1, 0, 2, 3, 1, 2, 1], 4, [1, 0, 2, 3, 0, 0], 6, "constructed: cut-off inside the list"),
            _same("dcg", [3, 2, 1], 1, [3, 0, 0], 3, "constructed: k=1, only rank 1 counts"),
            _same("dcg", [0, 1, 2], 7, [0, 1, 2], 3, "constructed: k larger than the list length"),
            _same("dcg", [2.5], 10, [2.5], 1, "constructed: one document, k larger than the list"),
        ),
    ),
    TestGroup(
        "test_dcg_grades", "dcg", "dcg uses the grade itself as the gain: zero, tied and fractional grades",
        1.0, False,
        (
            _dcg([0, 0, 0, 0], 3, "constructed: nothing relevant"),
            _same("dcg", [2, 2, 2, 1, 1], 5, [1, 1, 1, 0.5, 0.5], 5, "constructed: tied grades", factor=2.0),
            _same("dcg", [0.5, 1.5, 0, 2.25], 4, [2, 6, 0, 9], 4, "constructed: fractional grades", factor=0.25),
            _same("dcg", [2.75, 0], 2, [1, 0], 2, "constructed: a fractional grade", factor=2.75),
        ),
    ),
    TestGroup(
        "test_dcg_contract", "dcg", "dcg returns a number and leaves its input list unchanged", 0.5, False,
        (_contract("dcg", [0, 3, 1, 2], 3), _contract("dcg", [2, 0, 0, 1, 3], 5)),
    ),
    # ----- Task 1.4: ndcg ------------------------------------------------------------------
    TestGroup(
        "test_ndcg_lecture", "ndcg", "ndcg reproduces the lecture example", 1.0, True,
        (
            _ndcg([1, 0, 2, 1, 0], 5, LECTURE),
            _ndcg([1, 0, 2, 1, 0], 2, LECTURE + ", cut at k=2"),
        ),
    ),
    TestGroup(
        "test_ndcg_ideal", "ndcg", "ndcg's ideal ranking is the whole list sorted descending, cut at k", 1.5, False,
        (
            # values that are the same whatever the discount: the ideal's top k is twice the ranking's
            _ndcg([1, 1, 0, 2, 2], 2, "constructed: the best documents sit below the cut-off"),
            _ndcg([1, 1, 3, 3], 2, "constructed: the ideal ranking must be sorted, best first"),
            _ndcg([3, 2, 1, 1, 0], 2, "constructed: the ideal ranking must be cut at k"),
            _ndcg([2, 2, 1, 1, 0], 4, "constructed: a perfect ranking with ties scores 1"),
            _ndcg([0.5, 0.5, 0, 1, 1], 2, "constructed: fractional grades"),
        ),
    ),
    TestGroup(
        "test_ndcg_cutoff", "ndcg", "ndcg for k=1, for k beyond the list length and for a single document", 1.0,
        False,
        (
            # properties that hold whatever the ideal ranking: they are about k
            _same("ndcg", [3, 1, 2], 1, [3, 2, 1], 1, "constructed: k=1, only rank 1 counts"),
            _same("ndcg", [2, 0, 3], 8, [2, 0, 3], 3, "constructed: k larger than the list length"),
            _same("ndcg", [1.5], 1, [1.5, 0], 1, "constructed: a single document (scikit-learn refuses these)"),
            _same("ndcg", [2.5], 5, [2.5], 1, "constructed: a single document, k beyond it"),
        ),
    ),
    TestGroup(
        "test_ndcg_zero", "ndcg", "ndcg returns 0.0 when the ideal DCG is 0", 0.5, False,
        (
            _zero([0, 0, 0, 0], 3, "constructed: nothing relevant, iDCG = 0"),
            _zero([0, 0, 0, 0, 0, 0], 2, "constructed: nothing relevant, k below the length"),
            _zero([0.0], 1, "constructed: a single irrelevant document"),
        ),
    ),
    TestGroup(
        "test_ndcg_contract", "ndcg", "ndcg returns a number and leaves its input list unchanged", 1.0, False,
        (_contract("ndcg", [1, 0, 3, 2], 4), _contract("ndcg", [0, 2, 2, 1, 0, 3], 3)),
    ),
)
