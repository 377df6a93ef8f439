"""The reference package: the lecture example, every stated convention, and properties."""

from __future__ import annotations

import math
from math import log2

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcg_ref import cg, dcg, idcg, ndcg

from strategies import any_rankings, cutoffs, nonempty_rankings, rankings

LECTURE = [1, 0, 2, 1, 0]  # lecture "Ranking and Evaluation", slide 25 example


# --- the lecture example -------------------------------------------------------------------

def test_lecture_dcg5():
    assert dcg(LECTURE, 5) == pytest.approx(1 / log2(2) + 0 / log2(3) + 2 / log2(4) + 1 / log2(5) + 0 / log2(6))
    assert round(dcg(LECTURE, 5), 2) == 2.43


def test_lecture_idcg5():
    # ideal ranking 2, 1, 1, 0, 0
    assert idcg(LECTURE, 5) == pytest.approx(2 / log2(2) + 1 / log2(3) + 1 / log2(4))
    assert round(idcg(LECTURE, 5), 2) == 3.13


def test_lecture_ndcg5():
    expected = (1 + 2 / log2(4) + 1 / log2(5)) / (2 + 1 / log2(3) + 1 / log2(4))
    assert ndcg(LECTURE, 5) == pytest.approx(expected, rel=1e-12)
    assert round(ndcg(LECTURE, 5), 4) == 0.7763


def test_lecture_only_three_relevant_documents_exist():
    # "only 3 relevant documents exist overall": the ideal is built from all of them
    assert ndcg(LECTURE, 5, ideal=[2, 1, 1]) == pytest.approx(ndcg(LECTURE, 5))


# --- conventions ---------------------------------------------------------------------------

def test_rank_one_is_undiscounted():
    assert dcg([3], 1) == 3.0


def test_k_none_means_whole_list():
    assert dcg(LECTURE) == dcg(LECTURE, len(LECTURE))
    assert ndcg(LECTURE) == ndcg(LECTURE, len(LECTURE))
    assert cg(LECTURE) == sum(LECTURE)


def test_k_beyond_length_uses_whole_list():
    assert dcg(LECTURE, 50) == dcg(LECTURE, 5)
    assert ndcg([0, 1], 10) == pytest.approx((1 / log2(3)) / 1.0)


def test_k_cuts_the_ranking():
    assert dcg(LECTURE, 2) == pytest.approx(1.0)
    assert dcg(LECTURE, 3) == pytest.approx(1 + 2 / log2(4))


def test_ideal_is_cut_at_k():
    # ideal 2, 1, 1: iDCG@2 = 2 + 1/log2(3), not the whole ideal list
    assert idcg(LECTURE, 2) == pytest.approx(2 + 1 / log2(3))
    assert ndcg(LECTURE, 2) == pytest.approx(1 / (2 + 1 / log2(3)))


def test_ideal_includes_documents_below_the_cutoff():
    # the grade-2 document sits at rank 3; the ideal @2 still starts with it
    assert ndcg([1, 0, 2], 2) == pytest.approx(1 / (2 + 1 / log2(3)))


def test_ideal_includes_unretrieved_documents():
    assert ndcg([1, 0, 0], 3, ideal=[2, 1]) == pytest.approx(1 / (2 + 1 / log2(3)))


def test_ideal_may_hold_grades_in_any_order():
    assert idcg([1], 2, ideal=[1, 3, 2]) == idcg([1], 2, ideal=[3, 2, 1])


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_zero_ideal_gives_zero(k):
    assert ndcg([0, 0, 0], k) == 0.0
    assert ndcg([], k) == 0.0
    assert ndcg([0, 0], k, ideal=[]) == 0.0
    assert ndcg([0, 0], k, ideal=[0, 0]) == 0.0


def test_empty_ranking_has_zero_gain():
    assert dcg([]) == 0.0
    assert cg([], 3) == 0.0
    assert ndcg([], 3, ideal=[2, 1]) == 0.0


@pytest.mark.parametrize("make", [list, tuple, np.array, lambda v: np.array(v, dtype=np.int64)])
def test_accepts_lists_tuples_and_arrays(make):
    assert dcg(make(LECTURE), 5) == pytest.approx(dcg(LECTURE, 5))
    assert ndcg(make(LECTURE), 5, ideal=make([2, 1, 1])) == pytest.approx(ndcg(LECTURE, 5))


def test_accepts_numpy_integer_cutoff():
    assert dcg(LECTURE, np.int64(3)) == dcg(LECTURE, 3)


@pytest.mark.parametrize("func", [cg, dcg, idcg, ndcg])
def test_input_is_never_modified(func):
    ranking = [0, 1, 3, 2]
    array = np.array([0.0, 1.0, 3.0, 2.0])
    func(ranking, 3)
    func(array, 3)
    assert ranking == [0, 1, 3, 2]
    assert array.tolist() == [0.0, 1.0, 3.0, 2.0]


def test_ideal_argument_is_never_modified():
    ideal = [1, 3, 2]
    ndcg([1], 2, ideal=ideal)
    assert ideal == [1, 3, 2]


@pytest.mark.parametrize("func", [cg, dcg, idcg, ndcg])
def test_returns_python_float(func):
    assert type(func([1, 2], 2)) is float
    assert type(func(np.array([1, 2]), 2)) is float


def test_fractional_grades():
    assert dcg([0.5, 1.5], 2) == pytest.approx(0.5 + 1.5 / log2(3))


def test_exponential_gain():
    assert dcg([3, 0, 1], 3, gain="exponential") == pytest.approx((2**3 - 1) + (2**1 - 1) / log2(4))
    assert ndcg([0, 3], 2, gain="exponential") == pytest.approx((7 / log2(3)) / 7)


def test_exponential_and_linear_agree_on_binary_grades():
    assert dcg([1, 0, 1], gain="exponential") == dcg([1, 0, 1])


# --- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "k, error, words",
    [
        (0, ValueError, "at least 1"),
        (-2, ValueError, "at least 1"),
        (2.0, TypeError, "integer"),
        (2.5, TypeError, "integer"),
        (True, TypeError, "bool"),
        ("3", TypeError, "str"),
    ],
)
def test_bad_cutoff(k, error, words):
    for func in (cg, dcg, idcg, ndcg):
        with pytest.raises(error, match=words):
            func(LECTURE, k)


@pytest.mark.parametrize(
    "rels, error, words",
    [
        ([1, -1, 0], ValueError, r"rels\[1\] is -1.*>= 0"),
        ([1, float("nan")], ValueError, r"rels\[1\] is nan"),
        ([float("inf")], ValueError, "finite"),
        ("120", TypeError, "string"),
        ([1, "2"], TypeError, r"rels\[1\] must be a number"),
        ([[1, 0], [2]], ValueError, "nested"),
        (np.array([[1, 0], [2, 1]]), ValueError, "one-dimensional"),
        (None, TypeError, "NoneType"),
        ({1: 2}, TypeError, "dict"),
        (np.array(["a", "b"]), TypeError, "dtype"),
        ([1, None], TypeError, r"rels\[1\] must be a number"),
        ([1 + 2j], TypeError, "complex"),
    ],
)
def test_bad_relevances(rels, error, words):
    for func in (cg, dcg, idcg, ndcg):
        with pytest.raises(error, match=words):
            func(rels, 2)


def test_bad_ideal():
    with pytest.raises(ValueError, match=r"ideal\[0\] is -1"):
        ndcg([1], 1, ideal=[-1])
    with pytest.raises(ValueError, match="does not cover"):
        ndcg([3, 1], 2, ideal=[2, 1])  # a grade-3 document the ideal does not know of
    with pytest.raises(ValueError, match="does not cover"):
        ndcg([1, 1], 2, ideal=[1])  # more relevant documents retrieved than exist


def test_bad_gain():
    with pytest.raises(ValueError, match="gain must be"):
        dcg([1], gain="exp")


# --- properties ----------------------------------------------------------------------------

@given(any_rankings, cutoffs)
def test_ndcg_is_between_zero_and_one(rels, k):
    value = ndcg(rels, k)
    assert 0.0 <= value <= 1.0 + 1e-12


@given(any_rankings, cutoffs)
def test_ideal_ordering_scores_one(rels, k):
    ideal = sorted(rels, reverse=True)
    expected = 1.0 if any(g > 0 for g in ideal[:k]) else 0.0
    assert ndcg(ideal, k) == pytest.approx(expected)


@given(nonempty_rankings, cutoffs, st.data())
def test_moving_a_more_relevant_document_up_never_lowers_dcg(rels, k, data):
    i = data.draw(st.integers(0, len(rels) - 1))
    j = data.draw(st.integers(0, len(rels) - 1))
    upper, lower = min(i, j), max(i, j)
    if rels[lower] <= rels[upper]:
        return
    swapped = list(rels)
    swapped[upper], swapped[lower] = swapped[lower], swapped[upper]
    assert dcg(swapped, k) >= dcg(rels, k) - 1e-12
    assert ndcg(swapped, k) >= ndcg(rels, k) - 1e-12


@given(rankings, st.integers(1, 40), st.randoms(use_true_random=False))
def test_cg_ignores_order_inside_top_k(rels, k, rnd):
    top, rest = list(rels[:k]), list(rels[k:])
    rnd.shuffle(top)
    assert cg(top + rest, k) == cg(rels, k)
    assert cg(rels, k) == sum(rels[:k])


@given(any_rankings, cutoffs)
def test_dcg_is_the_written_out_formula(rels, k):
    n = len(rels) if k is None else min(k, len(rels))
    expected = math.fsum(rels[i] / log2(i + 2) for i in range(n))  # exam solution, 0-based i
    assert dcg(rels, k) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@given(any_rankings, cutoffs)
def test_dcg_never_exceeds_idcg(rels, k):
    assert dcg(rels, k) <= idcg(rels, k) + 1e-12
