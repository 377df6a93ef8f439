"""Grades ordered by the system's scores, row by row: the input :func:`ndcg_batch` expects."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .grades import _check_grades, as_grade_matrix
from .parallel import _for_each_chunk


def rank_by_score(grades: object, scores: object) -> NDArray[np.float64]:
    """Order each row's grades by its scores, highest score first (ties keep their column order).

    Parameters
    ----------
    grades, scores : 2-D arrays of the same shape
        Per query and document, the relevance grade and the system's score.

    Returns
    -------
    numpy.ndarray
        The grades in ranked order, ready for :func:`ndcg_batch`.

    Examples
    --------
    >>> rank_by_score([[0, 2, 1]], [[0.1, 0.9, 0.5]])
    array([[2., 1., 0.]])
    """
    matrix = as_grade_matrix(grades, "grades", check=False)
    score_matrix = np.asarray(scores, dtype=np.float64)
    if score_matrix.shape != matrix.shape:
        raise ValueError(f"scores has shape {score_matrix.shape} but grades has shape {matrix.shape}")
    out = np.empty_like(matrix)

    def work(start: int, stop: int) -> None:
        _check_grades(matrix[start:stop], "grades", start)
        negated = np.negative(score_matrix[start:stop])
        order = np.argsort(negated, axis=1)  # fast, but not stable: rows with ties are redone below
        rows_first = (np.arange(stop - start) * negated.shape[1])[:, None]
        order += rows_first  # flat positions: take() is much faster than take_along_axis()
        ranked = negated.take(order)
        if ranked.size and not np.isfinite(ranked[:, [0, -1]]).all():  # NaN sorts last, infinities at the ends
            query, column = (int(i) for i in np.argwhere(~np.isfinite(negated))[0])
            raise ValueError(
                f"scores[{start + query}][{column}] is {score_matrix[start + query, column]}: scores must be finite"
            )
        tied = (ranked[:, 1:] == ranked[:, :-1]).any(axis=1)
        if tied.any():
            order[tied] = np.argsort(negated[tied], axis=1, kind="stable") + rows_first[tied]
        out[start:stop] = np.take(matrix[start:stop], order)

    _for_each_chunk(matrix.shape[0], work)
    return out
