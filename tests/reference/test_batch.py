"""The batch API agrees exactly with the single-query functions, over many queries and cut-offs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcg_ref import dcg, dcg_batch, idcg, idcg_batch, ndcg, ndcg_batch, rank_by_score
from ndcg_ref.batch import parallel

from strategies import any_rankings, cutoffs

ragged = st.lists(any_rankings, min_size=1, max_size=12)


@given(ragged, cutoffs)
def test_ragged_lists_agree_exactly_with_single_queries(rows, k):
    assert dcg_batch(rows, k).tolist() == [dcg(r, k) for r in rows]
    assert idcg_batch(rows, k).tolist() == [idcg(r, k) for r in rows]
    assert ndcg_batch(rows, k).tolist() == [ndcg(r, k) for r in rows]


@given(ragged, st.lists(st.one_of(st.none(), st.integers(1, 40)), min_size=1, max_size=4))
def test_several_cutoffs_in_one_call(rows, ks):
    values = ndcg_batch(rows, tuple(ks))
    assert values.shape == (len(rows), len(ks))
    for column, k in enumerate(ks):
        assert values[:, column].tolist() == [ndcg(r, k) for r in rows]


@given(ragged, cutoffs, st.sampled_from(["linear", "exponential"]))
def test_padded_matrix_equals_ragged_lists(rows, k, gain):
    width = max(len(r) for r in rows)
    matrix = np.array([list(r) + [0.0] * (width - len(r)) for r in rows], dtype=float)
    assert np.array_equal(ndcg_batch(matrix, k, gain=gain), ndcg_batch(rows, k, gain=gain))
    assert dcg_batch(matrix, k, gain=gain).tolist() == [dcg(r, k, gain=gain) for r in rows]


def test_ideal_from_all_judged_documents():
    rows = [[1, 0, 2, 1, 0], [0, 0, 1], [0, 0]]
    ideal = [[2, 2, 1, 1], [2, 1], []]
    for k in (None, 1, 3, 5, 10):
        expected = [ndcg(r, k, ideal=i) for r, i in zip(rows, ideal, strict=True)]
        assert ndcg_batch(rows, k, ideal=ideal).tolist() == expected


def test_many_queries_across_chunks(monkeypatch):
    monkeypatch.setattr(parallel, "_CHUNK", 7)
    rng = np.random.default_rng(5)
    matrix = rng.integers(0, 4, size=(50, 13)).astype(float)
    values = ndcg_batch(matrix, (3, 10, None))
    for q in range(50):
        assert values[q].tolist() == [ndcg(matrix[q], 3), ndcg(matrix[q], 10), ndcg(matrix[q])]


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_blocks_and_threads_do_not_change_values(small_blocks, workers, gain):
    small_blocks(5, workers)
    rng = np.random.default_rng(workers)
    matrix = rng.integers(0, 4, size=(41, 9)).astype(float) * rng.choice([1.0, 0.37], size=(41, 1))
    ideal = np.concatenate([matrix, rng.integers(0, 3, size=(41, 4))], axis=1)
    ks = (1, 4, None, 20)
    values = ndcg_batch(matrix, ks, ideal=ideal, gain=gain)
    ideals = idcg_batch(matrix, ks, gain=gain)
    for q in range(41):
        assert values[q].tolist() == [ndcg(matrix[q], k, ideal=ideal[q], gain=gain) for k in ks]
        assert ideals[q].tolist() == [idcg(matrix[q], k, gain=gain) for k in ks]
    assert dcg_batch(matrix, ks, gain=gain).tolist() == [[dcg(row, k, gain=gain) for k in ks] for row in matrix]


def test_mostly_irrelevant_rankings_and_all_zero_blocks(small_blocks):
    small_blocks(4)
    rng = np.random.default_rng(8)
    matrix = (rng.random((30, 25)) < 0.08) * rng.integers(1, 4, size=(30, 25)).astype(float)
    matrix[8:12] = 0  # one block without any relevant document
    ks = (1, 2, 5, None)
    for gain in ("linear", "exponential"):
        values, ideals = ndcg_batch(matrix, ks, gain=gain), idcg_batch(matrix, ks, gain=gain)
        for q in range(30):
            assert values[q].tolist() == [ndcg(matrix[q], k, gain=gain) for k in ks]
            assert ideals[q].tolist() == [idcg(matrix[q], k, gain=gain) for k in ks]


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("function", [dcg_batch, idcg_batch, ndcg_batch])
def test_bad_grade_in_a_later_block_names_its_query(small_blocks, bad, function):
    small_blocks(4)
    matrix = np.ones((20, 6))
    matrix[13, 2] = bad
    with pytest.raises(ValueError, match=rf"rels\[13\]\[2\] is {bad:g}"):
        function(matrix, 3)


def test_bad_ideal_grade_in_a_later_block_names_its_query(small_blocks):
    small_blocks(4)
    matrix = np.ones((20, 6))
    ideal = np.ones((20, 8))
    ideal[9, 7] = float("nan")
    with pytest.raises(ValueError, match=r"ideal\[9\]\[7\] is nan"):
        ndcg_batch(matrix, 3, ideal=ideal)


def test_input_is_not_modified():
    matrix = np.array([[0.0, 3.0, 1.0]])
    ndcg_batch(matrix, 2)
    assert matrix.tolist() == [[0.0, 3.0, 1.0]]


def test_rank_by_score_orders_each_row():
    grades = np.array([[0, 2, 1], [3, 0, 1]])
    scores = np.array([[0.1, 0.9, 0.5], [0.2, 0.3, 0.1]])
    assert rank_by_score(grades, scores).tolist() == [[2, 1, 0], [0, 3, 1]]


graded_scores = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30)  # (grade, score)


@given(st.lists(graded_scores, min_size=1, max_size=8))
def test_rank_by_score_breaks_ties_by_column_order(rows):
    width = max(len(r) for r in rows)
    grades = np.zeros((len(rows), width))
    scores = np.full((len(rows), width), -1.0)  # padding sorts last
    for q, row in enumerate(rows):
        grades[q, : len(row)] = [g for g, _ in row]
        scores[q, : len(row)] = [s for _, s in row]
    ranked = rank_by_score(grades, scores)
    for q in range(len(rows)):
        order = sorted(range(width), key=lambda column: -scores[q, column])  # Python's sort is stable
        assert ranked[q].tolist() == [grades[q, column] for column in order]


@pytest.mark.parametrize("workers", [1, 2])
def test_rank_by_score_in_blocks_and_threads(small_blocks, workers):
    small_blocks(3, workers)
    rng = np.random.default_rng(11)
    grades = np.asfortranarray(rng.integers(0, 4, size=(17, 12)).astype(float))  # not C-contiguous
    scores = rng.random((17, 12))
    scores[[4, 9, 16]] = rng.integers(0, 3, size=(3, 12))  # rows with ties, in later blocks
    ranked = rank_by_score(grades, scores)
    for q in range(17):
        order = sorted(range(12), key=lambda column: -scores[q, column])  # Python's sort is stable
        assert ranked[q].tolist() == [grades[q, column] for column in order]


def test_rank_by_score_rejects_bad_scores(small_blocks):
    with pytest.raises(ValueError, match=r"scores\[0\]\[1\] is nan"):
        rank_by_score([[1, 2]], [[0.5, float("nan")]])
    for bad in (float("inf"), float("-inf"), float("nan")):
        scores = np.ones((20, 5))
        scores[13, 3] = bad
        small_blocks(4)
        with pytest.raises(ValueError, match=rf"scores\[13\]\[3\] is {bad}"):
            rank_by_score(np.ones((20, 5)), scores)
    grades = np.ones((20, 5))
    grades[7, 0] = -2
    with pytest.raises(ValueError, match=r"grades\[7\]\[0\] is -2"):
        rank_by_score(grades, np.ones((20, 5)))
    with pytest.raises(ValueError, match="shape"):
        rank_by_score([[1, 2]], [[0.5]])


@pytest.mark.parametrize(
    "rels, error, words",
    [
        ([[1, -1]], ValueError, r"rels\[0\]\[1\] is -1"),
        ([[1], [2, float("nan")]], ValueError, r"rels\[1\]\[1\] is nan"),
        ([[1, "x"]], TypeError, r"rels\[0\]\[1\] must be a number"),
        ([1, 2], TypeError, r"rels\[0\] must be a list"),
        (np.zeros(3), ValueError, "2-D"),
        ("abc", TypeError, "list of lists"),
    ],
)
def test_bad_input_names_query_and_rank(rels, error, words):
    with pytest.raises(error, match=words):
        ndcg_batch(rels, 2)


def test_bad_cutoffs_and_ideal():
    with pytest.raises(ValueError, match="at least 1"):
        dcg_batch([[1]], (5, 0))
    with pytest.raises(ValueError, match="at least one cut-off"):
        dcg_batch([[1]], ())
    with pytest.raises(ValueError, match="ideal has 1 rows but rels has 2"):
        ndcg_batch([[1], [2]], 1, ideal=[[1]])
    with pytest.raises(ValueError, match=r"ideal\[1\] must hold"):
        ndcg_batch([[1], [3]], 1, ideal=[[1], [2]])


def test_works_in_a_forked_child_after_threads_were_started(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(parallel, "_MIN_CHUNK", 1)
    monkeypatch.setattr(parallel, "_workers", lambda: 2)
    matrix = np.random.default_rng(3).integers(0, 4, size=(40, 7)).astype(float)
    expected = ndcg_batch(matrix, 3)  # starts the pool's threads in this process
    with multiprocessing.get_context("fork").Pool(1) as pool:
        values = pool.apply_async(_ndcg_in_child, (matrix,)).get(timeout=60)
    assert values.tolist() == expected.tolist()


def _ndcg_in_child(matrix):
    parallel._MIN_CHUNK = 1
    parallel._workers = lambda: 2
    return ndcg_batch(matrix, 3)
