"""Grades ordered by the system's scores, row by row: the input :func:`ndcg_batch` expects."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._validate import as_cutoff
from .grades import _check_grades, as_grade_matrix
from .parallel import _for_each_chunk, _Scratch
from .topk import _gather, _top_columns


def _score_matrix(scores: object, shape: tuple[int, ...]) -> NDArray[np.float64]:
    score_matrix = np.asarray(scores, dtype=np.float64)
    if score_matrix.shape != shape:
        raise ValueError(f"scores has shape {score_matrix.shape} but grades has shape {shape}")
    return score_matrix


def rank_by_score(grades: object, scores: object, k: int | None = None) -> NDArray[np.float64]:
    """Order each row's grades by its scores, highest score first (ties keep their column order).

    Parameters
    ----------
    grades, scores : 2-D arrays of the same shape
        Per query and document, the relevance grade and the system's score.
    k : int or None, optional
        Rank only each row's top ``k`` documents (ties at the k-th place go to the lower
        columns, as in the full ranking). ``None``: all of them. Rows are ranked by sorting
        integer keys that carry the column, not by ``argsort`` (see ``docs/reference.md``).

    Returns
    -------
    numpy.ndarray
        The grades in ranked order, ready for :func:`ndcg_batch`: ``(queries, documents)``, or
        ``(queries, min(k, documents))`` with ``k``, the first columns of the full ranking.

    Raises
    ------
    ValueError
        If the shapes differ, a grade is negative or not finite, a score is not finite, or
        ``k < 1`` (the message names query and column). With several bad values: one in the
        first block of rows (up to 4,096) that has any, a score before a grade.

    Examples
    --------
    >>> rank_by_score([[0, 2, 1]], [[0.1, 0.9, 0.5]])
    array([[2., 1., 0.]])
    >>> rank_by_score([[0, 2, 1, 3]], [[0.5, 0.9, 0.5, 0.1]], k=2)  # a tie at place 2: column order
    array([[2., 0.]])
    """
    matrix = as_grade_matrix(grades, "grades", check=False)
    score_matrix = _score_matrix(scores, matrix.shape)
    depth = matrix.shape[1] if k is None else min(as_cutoff(k), matrix.shape[1])
    out = np.empty((matrix.shape[0], depth))
    scratch = _Scratch(matrix.shape[1])

    def work(start: int, stop: int) -> None:
        top = _top_columns(score_matrix[start:stop], depth, start, scratch.rows(stop - start))
        _check_grades(matrix[start:stop], "grades", start)  # after the scores, as ndcg_from_scores
        out[start:stop] = _gather(matrix[start:stop], top)

    _for_each_chunk(matrix.shape[0], work)
    return out
