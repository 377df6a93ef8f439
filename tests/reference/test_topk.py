"""Top-k ranking: the first k columns of the full ranking, exactly, with many ties at the boundary.

``rank_by_score(..., k=k)`` and ``ndcg_from_scores`` rank only each row's top k (a partition and
exact tie handling); every value must equal the full ranking's (Python's stable sort by score
descending, ties in column order) and the single-query ``ndcg``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ndcg_ref import ndcg, ndcg_batch, ndcg_from_scores, rank_by_score


def _full_ranking(grades, scores):
    """Each row's grades ordered by score descending, ties in column order (Python's sort is stable)."""
    return [[grades[q][c] for c in sorted(range(len(row)), key=lambda c, row=row: -row[c])]
            for q, row in enumerate(scores)]


@st.composite
def graded_scores(draw, max_rows=12, max_width=30):
    """Grades and scores of one shape; scores from a few values, so that ties at the k-th place are common."""
    rows, width = draw(st.integers(1, max_rows)), draw(st.integers(1, max_width))
    levels = draw(st.sampled_from([1, 2, 3, 5, 1000]))
    scores = draw(hnp.arrays(np.float64, (rows, width), elements=st.integers(0, levels - 1).map(float)))
    if draw(st.booleans()):
        scores = scores / 7 - 0.5  # fractions, negative and zero scores (-0.0 ties with 0.0)
        scores[scores == 0] = -0.0
    grades = draw(hnp.arrays(np.float64, (rows, width), elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5])))
    return grades, scores


@settings(max_examples=300)
@given(graded_scores(), st.integers(1, 35))
def test_top_k_is_the_first_k_of_the_full_ranking(data, k):
    grades, scores = data
    full = _full_ranking(grades.tolist(), scores.tolist())
    assert rank_by_score(grades, scores, k).tolist() == [row[:k] for row in full]
    assert rank_by_score(grades, scores).tolist() == full


@settings(max_examples=200)
@given(graded_scores(), st.lists(st.one_of(st.none(), st.integers(1, 35)), min_size=1, max_size=3),
       st.sampled_from(["linear", "exponential"]))
def test_ndcg_from_scores_equals_the_single_query_reference(data, ks, gain):
    grades, scores = data
    full = _full_ranking(grades.tolist(), scores.tolist())
    values = ndcg_from_scores(grades, scores, tuple(ks), gain=gain)
    for q, ranked in enumerate(full):
        assert values[q].tolist() == [ndcg(ranked, k, gain=gain) for k in ks]
    assert np.array_equal(values, ndcg_batch(rank_by_score(grades, scores), tuple(ks), gain=gain))


@pytest.mark.parametrize("workers", [1, 2])
def test_top_k_in_blocks_and_threads_with_ties_everywhere(small_blocks, workers):
    small_blocks(7, workers)
    rng = np.random.default_rng(21)
    grades = rng.integers(0, 4, size=(60, 40)).astype(float)
    scores = rng.integers(0, 3, size=(60, 40)).astype(float)  # every row tied at the boundary
    scores[::5] = rng.random((12, 40))  # some rows without ties
    full = _full_ranking(grades.tolist(), scores.tolist())
    for k in (1, 5, 10, 39, 40, 41):
        assert rank_by_score(grades, scores, k).tolist() == [row[:k] for row in full]
        assert ndcg_from_scores(grades, scores, k).tolist() == [ndcg(row, k) for row in full]


#: Scores the packed keys find hard: ties of -0.0 with +0.0, subnormals, huge and negative values.
_HARD_SCORES = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 0.5, -0.5, 1.0, 3.0, -3.0, 1e300, -1e300]
#: Scores at zero: float64 and float32 subnormals, values that float32 rounds to 0, -0.0.
_NEAR_ZERO = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 1e-50, -1e-50, 1.4e-45, -1.4e-45, 2e-323, -1.0]


@st.composite
def close_scores(draw, max_rows=6, max_width=300):
    """Scores that differ only in their last mantissa bits (the bits the packed keys give to the
    column), true ties, and -0.0 beside +0.0; grades of one shape, with -0.0 grades too."""
    rows, width = draw(st.integers(1, max_rows)), draw(st.sampled_from([2, 3, 8, 9, 16, 17, 40, 129, 300]))
    width = min(width, max_width)
    pool = draw(st.sampled_from([_HARD_SCORES, _NEAR_ZERO]))
    base = np.array(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4)))
    picks = draw(hnp.arrays(np.intp, (rows, width), elements=st.integers(0, len(base) - 1)))
    ulps = draw(hnp.arrays(np.int64, (rows, width), elements=st.sampled_from([0, 0, 1, 2, 3, 127, 128, 255, 256])))
    scores = base[picks]
    moved = scores != 0  # ulps away from a non-zero base: still finite, same sign
    scores[moved] = (scores[moved].view(np.int64) + ulps[moved]).view(np.float64)
    if draw(st.booleans()):  # a negative score elsewhere in the block changes the keys of every row
        scores = np.vstack([scores, -np.ones((1, width))])
    grades = draw(hnp.arrays(np.float64, scores.shape, elements=st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5])))
    return grades, scores


@settings(max_examples=400)
@given(close_scores(), st.integers(1, 20))
def test_scores_that_differ_in_their_last_bits_are_ranked_exactly(data, k):
    grades, scores = data
    full = _full_ranking(grades.tolist(), scores.tolist())
    assert rank_by_score(grades, scores, k).tolist() == [row[:k] for row in full]
    assert rank_by_score(grades, scores).tolist() == full
    assert ndcg_from_scores(grades, scores, k).tolist() == [ndcg(row, k) for row in full]


def _ulps_above(value: float, ulps: int) -> float:
    return float((np.array([value]).view(np.int64) + ulps).view(np.float64)[0])


def test_scores_one_ulp_apart_inside_the_top_are_ordered_by_score_not_column():
    # 0.5 + 1 ulp and 0.5 + 3 ulps agree in all but the bits that carry the column (8 columns: 3 bits)
    scores = [[_ulps_above(0.5, 1), _ulps_above(0.5, 3), 0.4, 0.1, 0.1, 0.1, 0.1, 0.1]]
    grades = [[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    assert rank_by_score(grades, scores, 3).tolist() == [[2.0, 1.0, 3.0]]


def test_negative_zero_in_the_top_ties_with_zero():
    # -0.0's bit pattern is the largest unsigned key when no score is negative: it must not lead
    scores = [[0.0, -0.0, 1.0, 0.0]]
    grades = [[1.0, 2.0, 3.0, 0.0]]
    assert rank_by_score(grades, scores, 2).tolist() == [[3.0, 1.0]]
    assert rank_by_score(grades, [[0.0, -0.0, 1.0, -1.0]], 3).tolist() == [[3.0, 1.0, 2.0]]
    # found by hypothesis: -0.0 leads the keys, and the two true ties behind it look settled
    assert rank_by_score([[0.0, 1.0, 2.0]], [[-0.0, 5e-324, 5e-324]], 2).tolist() == [[1.0, 2.0]]


@pytest.mark.parametrize("odd", [0.1, 3.0000001, 1e-40, 1e39, 2.0**130, 2.0**-140, 2.0**-149, 1e-300])
def test_grades_that_are_no_float32_numbers_are_ranked_exactly(odd):
    # The ideal sorts grades as float32 where that is exact; these are not (mantissa or range;
    # 2**-149 is). Each grade comes with a neighbour 2**-20 apart, which float32 keeps apart only
    # in its normal range, and half the rows hold no other grades, so the small ones count too.
    rng = np.random.default_rng(24)
    grades = rng.choice([0.0, 1.0, 2.0, odd, odd * (1 + 2.0**-20)], size=(60, 30))
    grades[::2] = rng.choice([0.0, odd, odd * (1 + 2.0**-20)], size=(30, 30))
    scores = rng.random((60, 30))
    full = _full_ranking(grades.tolist(), scores.tolist())
    assert ndcg_from_scores(grades, scores, (3, 10)).tolist() == [[ndcg(row, 3), ndcg(row, 10)] for row in full]


@pytest.mark.parametrize(
    ("scores", "k"),
    [  # found by an adversarial review: -0.0 behind the top keys, a tiny score among +0.0's keys
        ([0.0, -0.0, 5e-324, -1.0], 1),
        ([-0.0, 0.0, 1e-50, -1.0], 1),  # 1e-50 is +0.0 in float32
        ([-0.0, 0.0, 5e-324, 0.0, 0.0, -1.0], 2),
        ([-0.0, 0.0, 5e-324, 1e-50, -1.0], 2),  # undecided by the 32-bit keys, then by the 64-bit ones
        ([0.0, -0.0, 5e-324] + [-1.0] * 254, 1),  # 257 columns: 64-bit keys only
    ],
)
def test_negative_zero_behind_the_top_and_tiny_scores_beside_zero(scores, k):
    grades = [[float(c + 1) for c in range(len(scores))]]
    full = _full_ranking(grades, [scores])
    assert rank_by_score(grades, [scores], k).tolist() == [full[0][:k]]
    assert ndcg_from_scores(grades, [scores], k).tolist() == [ndcg(full[0], k)]


def test_negative_zero_in_a_row_whose_block_has_a_negative_score_elsewhere():
    grades, scores = [[1.0, 2.0, 3.0]] * 2, [[0.0, -0.0, 1e-300], [-1.0, 2.0, 3.0]]
    assert rank_by_score(grades, scores, 1).tolist() == [[3.0], [3.0]]


def test_huge_finite_values_raise_no_warning():
    # the finiteness checks sum the values: an overflow of that sum is no problem of the input
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        assert rank_by_score([[1.0, 2.0, 3.0]], [[1e308, 1e308, 1e-50]], 2).tolist() == [[1.0, 2.0]]
        assert ndcg_from_scores([[1e308, 1e308, 0.0]], [[-1e308, 1e308, 0.5]], 2).tolist() == [
            ndcg([1e308, 0.0, 1e308], 2)
        ]


def test_a_negative_zero_grade_is_no_grade_above_the_others():
    # -0.0's bit pattern is the largest of all, read as an unsigned integer: it must not lead the ideal
    grades = [[-0.0, 1.0, 0.0, 3.0]]
    assert ndcg_from_scores(grades, [[0.4, 0.3, 0.2, 0.1]], 2).tolist() == [ndcg([-0.0, 1.0, 0.0, 3.0], 2)]


@pytest.mark.parametrize("bad", [float("nan"), -float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("shift", [0.0, -0.5])  # scores all >= 0, or some below 0 (other keys)
@pytest.mark.parametrize("k", [3, 40])  # keys, or the whole row ranked
def test_a_score_that_is_not_finite_is_named_wherever_it_sorts(bad, shift, k):
    rng = np.random.default_rng(23)
    scores = rng.random((6, 40)) + shift
    scores[3, 5] = bad
    scores[4, 0] = bad  # a later one is not the one named
    with pytest.raises(ValueError, match=r"scores\[3\]\[5\] is .*: scores must be finite"):
        rank_by_score(np.ones((6, 40)), scores, k)
    with pytest.raises(ValueError, match=r"scores\[3\]\[5\] is "):
        ndcg_from_scores(np.ones((6, 40)), scores, k)


@pytest.mark.parametrize("chunk", [1, 4096])
def test_a_bad_score_and_a_bad_grade_name_the_same_one_in_both_functions(small_blocks, chunk):
    # the first block of rows with a problem, and within it a score before a grade, whatever the blocks
    small_blocks(chunk)
    grades, scores = [[1.0, 2.0, 3.0], [-1.0, 2.0, 3.0]], [[0.5, 0.2, float("nan")], [0.1, 0.2, 0.3]]
    for rank in (lambda: rank_by_score(grades, scores, 2), lambda: ndcg_from_scores(grades, scores, 2)):
        with pytest.raises(ValueError, match=r"scores\[0\]\[2\] is nan"):
            rank()


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"scores\[1\]\[0\] is nan"):
        ndcg_from_scores([[1, 2], [3, 4]], [[0.5, 0.1], [float("nan"), 0.2]], 1)
    with pytest.raises(ValueError, match=r"grades\[0\]\[1\] is -1"):
        ndcg_from_scores([[1, -1]], [[0.5, 0.1]], 1)
    with pytest.raises(ValueError, match="shape"):
        ndcg_from_scores([[1, 2]], [[0.5]], 1)
    with pytest.raises(ValueError, match="at least 1"):
        rank_by_score([[1, 2]], [[0.5, 0.1]], 0)


def test_long_rows_take_the_partition_path_for_the_ideal_too():
    # rows much longer than the cut-off: the ideal's top grades come from a partition, not a sort
    rng = np.random.default_rng(22)
    grades = rng.integers(0, 4, size=(30, 300)).astype(float) * rng.choice([1.0, 0.37], size=(30, 1))
    scores = rng.integers(0, 50, size=(30, 300)).astype(float)
    full = _full_ranking(grades.tolist(), scores.tolist())
    for k in (1, 3, (2, 7)):
        ks = k if isinstance(k, tuple) else (k,)
        values = ndcg_from_scores(grades, scores, ks)
        assert values.tolist() == [[ndcg(row, c) for c in ks] for row in full]
