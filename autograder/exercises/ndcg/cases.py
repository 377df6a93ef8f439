"""The test cases of the DCG/nDCG exercise: the one place they are written down.

Each :class:`TestGroup` is one nbgrader grade cell (one ``grade_id``) worth some points; each
:class:`Case` is one call of the student's function. Expected values are never written here:
:func:`reference` computes them with :mod:`ndcg_ref`. The notebook's test cells are generated
from this table (see :mod:`autograder.course.notebook_cells.generated_cells`), and so is the grader's test run.

Only the lecture example is published course material; every other case is constructed for
this kit (``Case.constructed``), and its provenance says so.
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


def _dcg(rels: Sequence[float], k: int, what: str, constructed: bool = True) -> Case:
    return Case(Call("dcg", (tuple(rels), k)), what, constructed=constructed)


def _own_ratio(rels: Sequence[float], k: int) -> tuple[Call, Call]:
    """The student's own dcg of the ranking and of the ideal ranking: an ndcg that divides them is
    right for the student's dcg (a mistake in dcg is not counted again against ndcg)."""
    return Call("dcg", (tuple(rels), k)), Call("dcg", (tuple(sorted(rels, reverse=True)), k))


def _ndcg(rels: Sequence[float], k: int, what: str, constructed: bool = True) -> Case:
    return Case(Call("ndcg", (tuple(rels), k)), what, own_ratio=_own_ratio(rels, k), constructed=constructed)


def _zero(rels: Sequence[float], k: int, what: str) -> Case:
    """Nothing relevant: 0.0 is the only right answer, whatever the student's dcg."""
    return Case(Call("ndcg", (tuple(rels), k)), what, constructed=True)


def _contract(function: str, rels: Sequence[float], k: int, what: str = "a number, input list unchanged") -> Case:
    """A plain number comes back and the caller's list is unchanged, whatever the value."""
    return Case(Call(function, (tuple(rels), k)), what, True, Expect.NUMBER, constructed=True)


def _same(
    function: str, rels: Sequence[float], k: int, other: Sequence[float], other_k: int, what: str,
    factor: float = 1.0,
) -> Case:
    """``function(rels, k) == factor * function(other, other_k)``: a property of the student's own function."""
    return Case(
        Call(function, (tuple(rels), k)), what, expect=Expect.SAME_AS, constructed=True,
        companion=Call(function, (tuple(other), other_k)), factor=factor,
        own_ratio=_own_ratio(rels, k) if function == "ndcg" else None,
        meaning=_meaning(rels, k, other, other_k, factor),
    )


def _meaning(rels: Sequence[float], k: int, other: Sequence[float], other_k: int, factor: float) -> str:
    """What a property case checks, in words (no input: it is said of hidden cases too)."""
    if factor != 1.0:
        return ("multiplying every grade by the same number must multiply the value by that number "
                "(the gain is the grade itself, fractions included)")
    if list(rels) == list(other):
        return "a k beyond the list's length must give the value of the whole list"
    if k == 1:
        return "at k=1 only the document at rank 1 counts"
    return "the documents below rank k must not change the value"


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
            _dcg([1, 0, 2, 1, 0], 5, LECTURE, constructed=False),
            _dcg([1, 0, 2, 1, 0], 3, LECTURE + ", cut at k=3", constructed=False),
        ),
    ),
    TestGroup(
        "test_dcg_discount", "dcg", "dcg divides the grade at rank i by log2(i + 1)", 1.0, False,
        (
            # relevant documents from rank 1 down, k at the list's end: the cut-off's mistakes (one too
            # many, the whole list, a cut at the number of relevant documents) all agree here
            _dcg([1, 0, 0, 0, 0], 5, "rank 1 is not discounted"),
            _dcg([1, 1, 0, 0, 0, 0, 0], 7, "relevant documents at ranks 1 and 2"),
            _dcg([1, 1, 1, 1, 0], 5, "relevant documents down to rank 4"),
            _dcg([1, 1, 1, 1, 1, 1, 1, 1, 1, 0], 10, "relevant documents down to rank 9"),
            _dcg([1, 1, 1, 0, 0, 0, 0, 0], 8, "three relevant documents"),
        ),
    ),
    TestGroup(
        "test_dcg_cutoff", "dcg", "dcg sums exactly the top k ranks, for k below and beyond the list length",
        1.5, False,
        (
            # grades 0-2 and two documents or more: a group about k does not hinge on grade 3 or on
            # one-document lists (the grade and contract groups hold those)
            _same("dcg", [2, 1, 2, 0, 2], 2, [2, 1, 0, 0, 0], 5, "ranks below k do not count"),
            _same("dcg", [1, 0, 2, 2, 1, 2, 1], 4, [1, 0, 2, 2, 0, 0], 6, "cut-off inside the list"),
            _same("dcg", [2, 2, 1], 1, [2, 0, 0], 3, "k=1, only rank 1 counts"),
            _same("dcg", [0, 1, 2], 7, [0, 1, 2], 3, "k larger than the list length"),
            # 0 whatever the discount, and no constant: a property alone would hold for one
            _dcg([0, 0, 0, 2], 3, "a relevant document just below the cut-off adds nothing"),
        ),
    ),
    TestGroup(
        "test_dcg_grades", "dcg", "dcg uses the grade itself as the gain: zero, tied and fractional grades",
        1.0, False,
        (
            _dcg([0, 0, 0, 0], 3, "nothing relevant"),
            _same("dcg", [2, 2, 2, 1, 1], 5, [1, 1, 1, 0.5, 0.5], 5, "tied grades", factor=2.0),
            _same("dcg", [0.5, 1.5, 0, 2.25], 4, [2, 6, 0, 9], 4, "fractional grades", factor=0.25),
            _same("dcg", [0, 2.75, 0, 0], 4, [0, 1, 0, 0], 4, "a fractional grade", factor=2.75),
        ),
    ),
    TestGroup(
        "test_dcg_contract", "dcg",
        "dcg returns a number, also for a single document, and leaves its input list unchanged", 0.5, False,
        (
            _contract("dcg", [0, 2, 1, 2], 3), _contract("dcg", [2, 0, 0, 1, 2], 5),
            _contract("dcg", [0], 1, "a single document is a ranking too"),
        ),
    ),
    # ----- Task 1.4: ndcg ------------------------------------------------------------------
    TestGroup(
        "test_ndcg_lecture", "ndcg", "ndcg reproduces the lecture example", 1.0, True,
        (
            _ndcg([1, 0, 2, 1, 0], 5, LECTURE, constructed=False),
            _ndcg([1, 0, 2, 1, 0], 2, LECTURE + ", cut at k=2", constructed=False),
        ),
    ),
    TestGroup(
        "test_ndcg_ideal", "ndcg", "ndcg's ideal ranking is the whole list sorted descending, cut at k", 1.5, False,
        (
            # values that are the same whatever the discount: the ideal's top k is twice the ranking's
            _ndcg([1, 1, 0, 2, 2], 2, "the best documents sit below the cut-off"),
            _ndcg([1, 1, 3, 3], 2, "the ideal ranking must be sorted, best first"),
            _ndcg([3, 2, 1, 1, 0], 2, "the ideal ranking must be cut at k"),
            _ndcg([2, 2, 1, 1, 0], 4, "a perfect ranking with ties scores 1"),
            _ndcg([2, 1, 0, 0, 0], 4, "a perfect ranking with fewer relevant documents than k scores 1"),
            _ndcg([0.5, 0.5, 0, 1, 1], 2, "fractional grades"),
            # 0 whatever the discount, and the ideal is not: a dcg that counts hits (binary relevance)
            # gives the ranking and its ideal different values here, so its own ratio says something
            _ndcg([0, 0, 1, 2], 2, "every relevant document below the cut-off"),
            # an irrelevant document in the top k, a better one below: with binary relevance too, an
            # ideal from the top k (or an inverted, rounded ratio) shows
            _ndcg([1, 0, 0, 3], 2, "an irrelevant document in the top k, a better one below it"),
        ),
    ),
    TestGroup(
        "test_ndcg_cutoff", "ndcg",
        "ndcg for k=1, for k beyond the list length and below the only relevant document", 1.0,
        False,
        (
            # properties that hold whatever the ideal ranking: they are about k
            # (grades 0-2, two documents or more: see test_dcg_cutoff)
            _same("ndcg", [2, 0, 1], 1, [2, 1, 0], 1, "k=1, only rank 1 counts"),
            _same("ndcg", [1, 0, 2], 8, [1, 0, 2], 3, "k larger than the list length"),
            _ndcg([0, 0, 2], 2, "the only relevant document below the cut-off gives 0"),
        ),
    ),
    TestGroup(
        "test_ndcg_zero", "ndcg", "ndcg returns 0.0 when the ideal DCG is 0", 0.5, False,
        (
            _zero([0, 0, 0, 0], 3, "nothing relevant, iDCG = 0"),
            _zero([0, 0, 0, 0, 0, 0], 2, "nothing relevant, k below the length"),
            _zero([0.0, 0.0, 0.0], 1, "nothing relevant, k=1"),
        ),
    ),
    TestGroup(
        "test_ndcg_contract", "ndcg",
        "ndcg returns a number, also for a single document, and leaves its input list unchanged", 1.0, False,
        (
            _contract("ndcg", [1, 0, 2, 2], 4), _contract("ndcg", [0, 2, 2, 1, 0, 1], 3),
            _contract("ndcg", [1], 1, "a single document is a ranking too"),
        ),
    ),
)
