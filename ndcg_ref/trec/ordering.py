"""trec_eval's rankings as gain matrices: the run's order (score, then docno, descending) and the ideal one."""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray

from .data import Qrels, Run

#: How scores are compared: as doubles (trec_eval 10.0) or as 32-bit floats (trec_eval 9.0.8 and
#: pytrec_eval, which store them so: scores equal to about 7 significant digits tie there).
ScorePrecision: TypeAlias = Literal["float64", "float32"]
SCORE_PRECISIONS: tuple[ScorePrecision, ...] = ("float64", "float32")


def _ranked_rows(
    run: Run,
    run_q: NDArray[np.intp],
    grades: NDArray[np.int64],
    queries: int,
    *,
    precision: ScorePrecision = "float64",
    max_docs: int | None = None,
) -> NDArray[np.float64]:
    """A (queries x longest run) matrix of gains in trec_eval's order: score desc, docno desc.

    Scores are compared (and tied) at ``precision``. With ``max_docs`` (trec_eval's ``-M``) only
    each query's first ``max_docs`` documents in that order are kept, as trec_eval cuts after sorting.
    """
    size = run_q.size
    if size == 0:
        return np.zeros((queries, 0))
    scores = run.scores.astype(np.float32) if precision == "float32" else run.scores
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
    gains = np.maximum(grades[order], 0)
    if max_docs is not None and int(rank.max()) >= max_docs:
        kept = rank < max_docs
        sorted_q, rank, gains = sorted_q[kept], rank[kept], gains[kept]
    matrix = np.zeros((queries, int(rank.max()) + 1))
    matrix[sorted_q, rank] = gains
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
