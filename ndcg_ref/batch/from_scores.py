"""nDCG@k straight from grades and scores: only each row's top k is ranked, and only its top k grades sorted."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ..measures import Gain
from .grades import _check_grades, as_grade_matrix
from .kernels import _dcg_at, _negated_descending
from .measures import _cutoffs, _shape
from .parallel import _for_each_chunk
from .ranking import _score_matrix
from .topk import _check_scores, _gather, _top_columns

#: Rows up to this many times the depth are sorted whole for the ideal ranking: numpy's SIMD sort
#: of a short row beats a partition followed by a sort of the top (100 grades, depth 10: 21 ms
#: against 29 ms per 100,000 rows, measured with numpy 2.4 on AVX-512).
_SORT_WHOLE = 16


def _best_grades_negated(grades: NDArray[np.float64], depth: int) -> NDArray[np.float64]:
    """Each row's ``depth`` highest grades, negated, ascending: the first columns of
    :func:`_negated_descending`; for long rows from a partition and a sort of ``depth`` columns only."""
    if grades.shape[1] <= _SORT_WHOLE * depth:
        return _negated_descending(grades, "grades", 0)[:, :depth]  # checked by the caller
    negated = np.negative(grades)
    negated.partition(depth - 1, axis=1)
    best = negated[:, :depth]
    best.sort(axis=1)
    return best


def ndcg_from_scores(
    grades: object, scores: object, k: int | Sequence[int | None] | None = 10, *, gain: Gain = "linear"
) -> NDArray[np.float64]:
    r"""nDCG@k of every query from its documents' grades and the system's scores.

    Exactly ``ndcg_batch(rank_by_score(grades, scores), k, gain=gain)``, but with cut-offs only
    each row's top ``max(k)`` documents are ranked (a partition and exact ties, see
    :func:`rank_by_score`) and only its top ``max(k)`` grades sorted for the ideal ranking.

    Parameters
    ----------
    grades, scores : 2-D arrays of the same shape
        Per query and document, the relevance grade and the system's score. The ideal ranking
        of a query is its row of grades sorted descending.
    k : int, None or sequence of int
        Cut-off(s), as in :func:`ndcg_batch`; ``None`` ranks whole rows.
    gain : {"linear", "exponential"}, keyword-only
        As in :func:`ndcg_ref.dcg`.

    Returns
    -------
    numpy.ndarray
        Shape ``(queries,)`` for one cut-off, ``(queries, len(k))`` for several; 0.0 where the
        ideal DCG is 0.

    Raises
    ------
    ValueError
        If the shapes differ, a grade is negative or not finite, a score is not finite, or a
        cut-off is below 1 (the message names query and column).

    Examples
    --------
    >>> ndcg_from_scores([[1, 0, 2, 1, 0]], [[0.9, 0.8, 0.7, 0.6, 0.5]], k=5).round(4)
    array([0.7763])
    >>> ndcg_from_scores([[0, 3, 1]], [[0.2, 0.2, 0.9]], k=(1, 2)).round(4)  # a tie: column order
    array([[0.3333, 0.2754]])
    """
    cutoffs, single = _cutoffs(k)
    matrix = as_grade_matrix(grades, "grades", check=False)
    score_matrix = _score_matrix(scores, matrix.shape)
    width = matrix.shape[1]
    depth = width if None in cutoffs else min(max(c for c in cutoffs if c is not None), width)
    out = np.zeros((matrix.shape[0], len(cutoffs)))

    def work(start: int, stop: int) -> None:
        block = matrix[start:stop]
        _check_grades(block, "grades", start)
        _check_scores(score_matrix[start:stop], start)
        ranked = _gather(block, _top_columns(score_matrix[start:stop], depth))
        ideal = _dcg_at(_best_grades_negated(block, depth), cutoffs, gain, negated=True)
        np.divide(_dcg_at(ranked, cutoffs, gain), ideal, out=out[start:stop], where=ideal > 0)

    _for_each_chunk(matrix.shape[0], work)
    return _shape(out, single)
