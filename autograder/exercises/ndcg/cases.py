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

from ...grading import Call, Case, TestGroup

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


def _dcg(rels: Sequence[float], k: int, provenance: str, *, check_unchanged: bool = False) -> Case:
    return Case(Call("dcg", (tuple(rels), k)), provenance, check_unchanged)


def _ndcg(rels: Sequence[float], k: int, provenance: str, *, check_unchanged: bool = False) -> Case:
    return Case(Call("ndcg", (tuple(rels), k)), provenance, check_unchanged)


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
        "test_dcg_cutoff", "dcg", "dcg sums exactly the top k ranks, for k below and beyond the list length",
        2.0, False,
        (
            _dcg([3, 0, 0, 2, 1, 0], 2, "constructed: relevant documents below the cut-off"),
            _dcg([0, 2, 3, 1], 1, "constructed: k=1, only rank 1 counts"),
            _dcg([2, 0, 1, 3, 3, 0, 1], 4, "constructed: cut-off inside the list"),
            _dcg([1, 3, 0, 2], 4, "constructed: k equal to the list length"),
            _dcg([0, 1, 2], 7, "constructed: k larger than the list length"),
            _dcg([3], 10, "constructed: one document, k larger than the list"),
        ),
    ),
    TestGroup(
        "test_dcg_grades", "dcg", "dcg handles zero, tied and fractional grades", 1.0, False,
        (
            _dcg([0, 0, 0, 0], 3, "constructed: nothing relevant"),
            _dcg([2, 2, 2, 1, 1], 5, "constructed: tied grades"),
            _dcg([0.5, 1.5, 0, 2.25], 4, "constructed: fractional grades"),
            _dcg([0, 0, 0, 0, 0, 0, 0, 0, 0, 3], 10, "constructed: the only relevant document at rank 10"),
            _dcg([3, 2, 3, 0, 1, 2, 0, 0, 1, 3, 2, 1], 12, "constructed: a longer ranking"),
            _dcg([2.75], 1, "constructed: a single document with a fractional grade"),
        ),
    ),
    TestGroup(
        "test_dcg_contract", "dcg", "dcg returns a number and leaves its input list unchanged", 1.0, False,
        (
            _dcg([0, 3, 1, 2], 3, "constructed: input list must not change", check_unchanged=True),
            _dcg([2, 0, 0, 1, 3], 5, "constructed: input list must not change", check_unchanged=True),
        ),
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
            _ndcg([0, 1, 0, 3, 2], 2, "constructed: the best documents sit below the cut-off"),
            _ndcg([1, 2, 0, 0, 3], 3, "constructed: the ideal ranking must be cut at k"),
            _ndcg([1, 1, 2, 0, 2, 3], 4, "constructed: ties in the ideal ranking"),
            _ndcg([3, 2, 1, 0], 4, "constructed: a perfect ranking scores 1"),
            _ndcg([0, 1, 2, 3], 4, "constructed: the worst ordering of the same grades"),
        ),
    ),
    TestGroup(
        "test_ndcg_cutoff", "ndcg", "ndcg for k=1 and k beyond the list length, and fractional grades", 1.0, False,
        (
            _ndcg([1, 3, 2], 1, "constructed: k=1"),
            _ndcg([2, 0, 3], 8, "constructed: k larger than the list length"),
            _ndcg([0.5, 0, 1.75, 1], 3, "constructed: fractional grades"),
            _ndcg([2], 1, "constructed: a single document (scikit-learn refuses these)"),
            _ndcg([3], 5, "constructed: a single document, k beyond it"),
        ),
    ),
    TestGroup(
        "test_ndcg_zero", "ndcg", "ndcg returns 0.0 when the ideal DCG is 0", 0.5, False,
        (
            _ndcg([0, 0, 0], 3, "constructed: nothing relevant, iDCG = 0"),
            _ndcg([0, 0, 0, 0, 0, 0], 2, "constructed: nothing relevant, k below the length"),
            _ndcg([0.0], 2, "constructed: a single irrelevant document"),
        ),
    ),
    TestGroup(
        "test_ndcg_contract", "ndcg", "ndcg returns a number and leaves its input list unchanged", 1.0, False,
        (
            _ndcg([1, 0, 3, 2], 4, "constructed: input list must not change", check_unchanged=True),
            _ndcg([0, 2, 2, 1, 0, 3], 3, "constructed: input list must not change", check_unchanged=True),
        ),
    ),
)
