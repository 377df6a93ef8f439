"""trec_eval's rankings as ragged rows of gains: the run's order (score, then docno, descending) and the ideal one."""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray

from ..batch import Ragged
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
) -> Ragged:
    """Per query (one ragged row each, in query index order), the gains in trec_eval's order:
    score desc, docno desc.

    Scores are compared (and tied) at ``precision``. With ``max_docs`` (trec_eval's ``-M``) only
    each query's first ``max_docs`` documents in that order are kept, as trec_eval cuts after sorting.
    """
    size = run_q.size
    if size == 0:
        return Ragged(np.zeros(0), np.zeros(queries + 1, dtype=np.int64))
    scores = run.scores.astype(np.float32) if precision == "float32" else run.scores
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
    gains = np.maximum(grades[order], 0).astype(np.float64)
    lengths = np.bincount(run_q, minlength=queries)
    if max_docs is not None and int(lengths.max()) > max_docs:  # trec_eval's -M: cut after sorting
        firsts = np.zeros(queries, dtype=np.int64)
        np.cumsum(lengths[:-1], out=firsts[1:])
        gains = gains[np.arange(size) - firsts[sorted_q] < max_docs]  # rank within its query
        lengths = np.minimum(lengths, max_docs)
    return Ragged.from_lengths(gains, lengths)


def _ideal_rows(qrels: Qrels, qrels_q: NDArray[np.intp], queries: int) -> Ragged:
    """Per query (one ragged row each, in query index order), the grades of its relevant documents."""
    relevant = qrels.grades > 0
    q = qrels_q[relevant]
    order = np.argsort(q, kind="stable")
    return Ragged.from_lengths(qrels.grades[relevant][order].astype(np.float64), np.bincount(q, minlength=queries))
