"""The batch API agrees exactly with the single-query functions, over many queries and cut-offs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndcg_ref import dcg, dcg_batch, idcg, idcg_batch, ndcg, ndcg_batch, rank_by_score
from ndcg_ref import batch as batch_module

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
        expected = [ndcg(r, k, ideal=i) for r, i in zip(rows, ideal)]
        assert ndcg_batch(rows, k, ideal=ideal).tolist() == expected


def test_many_queries_across_chunks(monkeypatch):
    monkeypatch.setattr(batch_module, "_CHUNK", 7)
    rng = np.random.default_rng(5)
    matrix = rng.integers(0, 4, size=(50, 13)).astype(float)
    values = ndcg_batch(matrix, (3, 10, None))
    for q in range(50):
        assert values[q].tolist() == [ndcg(matrix[q], 3), ndcg(matrix[q], 10), ndcg(matrix[q])]


def test_input_is_not_modified():
    matrix = np.array([[0.0, 3.0, 1.0]])
    ndcg_batch(matrix, 2)
    assert matrix.tolist() == [[0.0, 3.0, 1.0]]


def test_rank_by_score_orders_each_row():
    grades = np.array([[0, 2, 1], [3, 0, 1]])
    scores = np.array([[0.1, 0.9, 0.5], [0.2, 0.3, 0.1]])
    assert rank_by_score(grades, scores).tolist() == [[2, 1, 0], [0, 3, 1]]


@given(st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30), min_size=1, max_size=8))
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


def test_rank_by_score_rejects_bad_scores():
    with pytest.raises(ValueError, match=r"scores\[0\]\[1\] is nan"):
        rank_by_score([[1, 2]], [[0.5, float("nan")]])
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
