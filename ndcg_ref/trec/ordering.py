"""trec_eval's rankings as ragged rows of gains: the run's order (score, then docno, descending) and the ideal one."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..batch import Ragged
from .data import Qrels, Run


def _ranked_rows(run: Run, run_q: NDArray[np.intp], grades: NDArray[np.int64], queries: int) -> Ragged:
    """Per query (one ragged row each, in query index order), the gains in trec_eval's order:
    score desc, docno desc.

    trec_eval keeps scores as 32-bit floats, so scores are compared (and tied) in float32.
    """
    size = run_q.size
    if size == 0:
        return Ragged(np.zeros(0), np.zeros(queries + 1, dtype=np.int64))
    scores = run.scores.astype(np.float32)
    # Runs are usually grouped by query with scores descending: then the file order is the order.
    boundary = run_q[1:] != run_q[:-1]
    grouped = int(boundary.sum()) + 1 == np.count_nonzero(np.bincount(run_q, minlength=queries))
    descending = not ((~boundary) & (scores[1:] > scores[:-1])).any()
    if grouped and descending:  # rows in query index order; a stable sort keeps each query's file order
        order = np.arange(size) if (run_q[1:] >= run_q[:-1]).all() else np.argsort(run_q, kind="stable")
    else:
        order = np.lexsort((-scores, run_q))
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
        names = np.empty(positions.size, dtype=object)  # Python bytes: tied ids are few, and of any length
        names[:] = run.docnos.as_bytes(order[positions])
        name_rank = np.unique(names, return_inverse=True)[1]
        order[positions] = order[positions[np.lexsort((-name_rank, group))]]
    return Ragged.from_lengths(np.maximum(grades[order], 0).astype(np.float64), np.bincount(run_q, minlength=queries))


def _ideal_rows(qrels: Qrels, qrels_q: NDArray[np.intp], queries: int) -> Ragged:
    """Per query (one ragged row each, in query index order), the grades of its relevant documents."""
    relevant = qrels.grades > 0
    q = qrels_q[relevant]
    order = np.argsort(q, kind="stable")
    return Ragged.from_lengths(qrels.grades[relevant][order].astype(np.float64), np.bincount(q, minlength=queries))
