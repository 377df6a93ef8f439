"""trec_eval's rankings as gain matrices: the run's order (score, then docno, descending) and the ideal one."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .data import Qrels, Run


def _ranked_rows(run: Run, run_q: NDArray[np.intp], grades: NDArray[np.int64], queries: int) -> NDArray[np.float64]:
    """A (queries x longest run) matrix of gains in trec_eval's order: score desc, docno desc.

    trec_eval keeps scores as 32-bit floats, so scores are compared (and tied) in float32.
    """
    size = run_q.size
    if size == 0:
        return np.zeros((queries, 0))
    scores = run.scores.astype(np.float32)
    # Runs are usually grouped by query with scores descending: then the file order is the order.
    boundary = run_q[1:] != run_q[:-1]
    grouped = int(boundary.sum()) + 1 == np.count_nonzero(np.bincount(run_q, minlength=queries))
    descending = not ((~boundary) & (scores[1:] > scores[:-1])).any()
    order = np.arange(size) if grouped and descending else np.lexsort((-scores, run_q))
    sorted_q, sorted_scores = run_q[order], scores[order]
    same = (sorted_q[1:] == sorted_q[:-1]) & (sorted_scores[1:] == sorted_scores[:-1])
    if same.any():  # break ties by docno, descending, reordering only inside each group of ties
        tied = np.zeros(size, dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        positions = np.flatnonzero(tied)
        starts_group = np.ones(positions.size, dtype=bool)
        starts_group[1:] = ~same[positions[1:] - 1]  # same[p - 1] links p - 1 and p
        group = np.cumsum(starts_group)
        name_rank = np.unique(run.docnos[order[positions]], return_inverse=True)[1]
        order[positions] = order[positions[np.lexsort((-name_rank, group))]]
    start = np.empty(size, dtype=bool)  # each query is one contiguous segment of sorted_q
    start[0] = True
    start[1:] = sorted_q[1:] != sorted_q[:-1]
    segment_starts = np.flatnonzero(start)
    rank = np.arange(size) - segment_starts[np.cumsum(start) - 1]
    matrix = np.zeros((queries, int(rank.max()) + 1))
    matrix[sorted_q, rank] = np.maximum(grades[order], 0)
    return matrix


def _ideal_rows(qrels: Qrels, qrels_q: NDArray[np.intp], queries: int) -> NDArray[np.float64]:
    relevant = qrels.grades > 0
    q = qrels_q[relevant]
    counts = np.bincount(q, minlength=queries)
    order = np.argsort(q, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(order.size) - starts[q[order]]
    matrix = np.zeros((queries, int(counts.max()) if counts.size and counts.max() > 0 else 0))
    matrix[q[order], rank] = qrels.grades[relevant][order]
    return matrix
