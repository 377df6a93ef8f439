"""The top ``k`` of each row by score without sorting the row: a partition, then exact ties at the boundary.

The order is :func:`rank_by_score`'s: score descending, ties in column order (the lower column
first). ``np.partition`` finds each row's k-th highest score; every column scoring above it is in
the top k, and of the columns scoring exactly that much only the first ones in column order, as
many as are still missing. Only the k chosen columns are then sorted.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def _check_scores(scores: NDArray[np.float64], offset: int) -> None:
    """Raise for the first score (in row order) that is NaN or infinite; ``offset`` is the first row's query."""
    if scores.size == 0 or np.isfinite(scores.sum()):
        return  # one pass in the common case (a sum of huge finite scores may overflow: then look closer)
    bad = ~np.isfinite(scores)
    if bad.any():
        query, column = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"scores[{offset + query}][{column}] is {scores[query, column]}: scores must be finite")


def _gather(matrix: NDArray[np.float64], columns: NDArray[np.intp]) -> NDArray[np.float64]:
    """``matrix[i, columns[i, j]]`` for every ``i, j`` (numpy's flat take() is much faster than
    take_along_axis())."""
    flat = columns + (np.arange(columns.shape[0]) * matrix.shape[1])[:, None]
    gathered: NDArray[np.float64] = np.ascontiguousarray(matrix).take(flat)
    return gathered


def _full_order(scores: NDArray[np.float64]) -> NDArray[np.intp]:
    """Every row's columns by score descending, ties in column order."""
    negated = np.negative(scores)
    order = np.argsort(negated, axis=1)  # fast, but not stable: rows with ties are redone below
    ranked = _gather(negated, order)
    tied = (ranked[:, 1:] == ranked[:, :-1]).any(axis=1)
    if tied.any():
        order[tied] = np.argsort(negated[tied], axis=1, kind="stable")
    return order


def _top_columns(scores: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """The columns of each row's ``k`` highest scores, best first (ties in column order); scores finite.

    Returns all columns, ranked, when ``k`` is at least the row length.
    """
    rows, width = scores.shape
    if k >= width or rows == 0:
        return _full_order(scores)
    partitioned = np.negative(scores)
    partitioned.partition(k - 1, axis=1)
    threshold = -partitioned[:, k - 1 : k]  # each row's k-th highest score
    chosen = scores >= threshold
    crowded = np.flatnonzero(np.count_nonzero(chosen, axis=1) > k)  # ties at the boundary
    if crowded.size:
        part, bound = scores[crowded], threshold[crowded]
        above = part > bound
        at = part == bound
        missing = k - np.count_nonzero(above, axis=1)
        chosen[crowded] = above | (at & (np.cumsum(at, axis=1) <= missing[:, None]))  # first ties by column
    # exactly k columns per row, in column order: their flat positions, row by row
    columns = (np.flatnonzero(chosen) - np.repeat(np.arange(rows) * width, k)).reshape(rows, k)
    ranked: NDArray[np.intp] = columns[np.arange(rows)[:, None], _full_order(_gather(scores, columns))]
    return ranked
