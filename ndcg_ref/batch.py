"""DCG and nDCG of many queries at once, vectorised over queries (no Python loop per query).

The conventions are those of the single-query functions in :mod:`ndcg_ref.measures`, and the
arithmetic is the same (gain times discount, summed in rank order), so that every value agrees
with them exactly. Rankings of different length are given as a 2-D array padded with zeros
(a zero grade adds nothing to DCG, so padding changes no value) or as a list of lists.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._validate import as_cutoff
from .measures import Gain, _discounts, _gains

__all__ = ["as_grade_matrix", "dcg_batch", "idcg_batch", "ndcg_batch", "rank_by_score"]

#: Queries processed at once: bounds the temporary arrays to a few times this many rows.
_CHUNK = 4096


def as_grade_matrix(rels: object, name: str = "rels") -> np.ndarray:
    """Return graded relevance of many rankings as a 2-D float64 array, padded with zeros.

    Parameters
    ----------
    rels : 2-D array or list of lists of float
        One ranking per row (or per inner list), rank 1 first. Inner lists may differ in length.
    name : str
        The argument's name, for error messages.

    Returns
    -------
    numpy.ndarray
        Shape ``(queries, longest ranking)``. A 2-D float64 input is returned as it is, not
        copied (it is never modified).

    Raises
    ------
    TypeError
        If ``rels`` is not a 2-D array or a sequence of sequences of numbers.
    ValueError
        If a grade is negative, NaN or infinite (the message names query and rank).

    Examples
    --------
    >>> as_grade_matrix([[1, 0, 2], [3]])
    array([[1., 0., 2.],
           [3., 0., 0.]])
    """
    if isinstance(rels, np.ndarray):
        if rels.ndim != 2:
            raise ValueError(f"{name} must be a 2-D array (queries x ranks), got shape {rels.shape}")
        if rels.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {rels.dtype}")
        matrix = rels if rels.dtype == np.float64 else rels.astype(np.float64)
    elif isinstance(rels, Sequence) and not isinstance(rels, (str, bytes)):
        matrix = _pad(rels, name)
    else:
        raise TypeError(f"{name} must be a 2-D array or a list of lists of grades, got {type(rels).__name__}")
    _check_grades(matrix, name)
    return matrix


def _pad(rows: Sequence, name: str) -> np.ndarray:
    lengths = np.empty(len(rows), dtype=np.int64)
    for index, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise TypeError(f"{name}[{index}] must be a list of grades, got {type(row).__name__}")
        lengths[index] = len(row)
    width = int(lengths.max()) if len(rows) else 0
    matrix = np.zeros((len(rows), width), dtype=np.float64)
    mask = np.arange(width) < lengths[:, None]
    try:
        flat = np.fromiter((value for row in rows for value in row), dtype=np.float64, count=int(lengths.sum()))
    except (TypeError, ValueError) as error:
        for index, row in enumerate(rows):
            for rank, value in enumerate(row):
                if isinstance(value, (str, bytes)) or not isinstance(value, (int, float, np.integer, np.floating)):
                    raise TypeError(f"{name}[{index}][{rank}] must be a number, got {type(value).__name__} {value!r}") from error
        raise TypeError(f"{name} holds something that is not a number: {error}") from error
    matrix[mask] = flat
    return matrix


def _check_grades(matrix: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(matrix) | (matrix < 0)
    if bad.any():
        query, rank = (int(i) for i in np.argwhere(bad)[0])
        value = matrix[query, rank]
        problem = "relevance grades must be >= 0" if np.isfinite(value) else "relevance grades must be finite numbers"
        raise ValueError(f"{name}[{query}][{rank}] is {value:g}: {problem}")


def _cutoffs(k: object) -> tuple[tuple[int | None, ...], bool]:
    """Normalise ``k`` to a tuple of cut-offs and whether a single one was given."""
    if k is None or not isinstance(k, (tuple, list)):
        return (as_cutoff(k),), True
    if not k:
        raise ValueError("k must name at least one cut-off")
    return tuple(as_cutoff(value, "k") for value in k), False


def _cumulative(grades: np.ndarray, gain: str) -> np.ndarray:
    """Running DCG along each row: column j holds DCG@(j+1)."""
    weighted = _gains(grades, gain) * _discounts(grades.shape[1])
    return np.cumsum(weighted, axis=1, out=weighted)


def _pick(cumulative: np.ndarray, cutoffs: tuple[int | None, ...]) -> np.ndarray:
    width = cumulative.shape[1]
    out = np.zeros((cumulative.shape[0], len(cutoffs)))
    if width:
        columns = [width - 1 if k is None else min(k, width) - 1 for k in cutoffs]
        out[:] = cumulative[:, columns]
    return out


def _sorted_descending(grades: np.ndarray) -> np.ndarray:
    ideal = np.sort(grades, axis=1)
    return ideal[:, ::-1]


def _shape(values: np.ndarray, single: bool) -> np.ndarray:
    return values[:, 0] if single else values


def dcg_batch(rels: object, k: int | None | Sequence[int] = None, *, gain: Gain = "linear") -> np.ndarray:
    r"""DCG@k of many rankings at once.

    Parameters
    ----------
    rels : 2-D array or list of lists of float
        One ranking of grades per query, rank 1 first (see :func:`as_grade_matrix`).
    k : int, None or sequence of int
        Cut-off as in :func:`ndcg_ref.dcg`; several cut-offs, e.g. ``(5, 10, 20)``, are
        computed in one pass.
    gain : {"linear", "exponential"}, keyword-only
        As in :func:`ndcg_ref.dcg`.

    Returns
    -------
    numpy.ndarray
        Shape ``(queries,)`` for one cut-off, ``(queries, len(k))`` for several.

    Notes
    -----
    .. math:: DCG@k_q = \sum_{i=1}^{\min(k, n_q)} \frac{rel_{q,i}}{\log_2(i + 1)}

    Examples
    --------
    >>> dcg_batch([[1, 0, 2, 1, 0], [3, 2]], k=2).round(4)
    array([1.    , 4.2619])
    >>> dcg_batch([[1, 0, 2, 1, 0]], k=(1, 5)).round(4)
    array([[1.    , 2.4307]])
    """
    cutoffs, single = _cutoffs(k)
    matrix = as_grade_matrix(rels)
    out = np.empty((matrix.shape[0], len(cutoffs)))
    for start in range(0, matrix.shape[0], _CHUNK):
        chunk = matrix[start : start + _CHUNK]
        out[start : start + len(chunk)] = _pick(_cumulative(chunk, gain), cutoffs)
    return _shape(out, single)


def idcg_batch(
    rels: object, k: int | None | Sequence[int] = None, *, ideal: object = None, gain: Gain = "linear"
) -> np.ndarray:
    """Ideal DCG@k of many queries; ``ideal`` as in :func:`ndcg_batch`.

    Examples
    --------
    >>> idcg_batch([[1, 0, 2, 1, 0]], k=5).round(4)
    array([3.1309])
    """
    return _ideal_and_actual(rels, k, ideal, gain, actual=False)[0]


def ndcg_batch(
    rels: object, k: int | None | Sequence[int] = None, *, ideal: object = None, gain: Gain = "linear"
) -> np.ndarray:
    r"""nDCG@k of many rankings at once.

    Parameters
    ----------
    rels : 2-D array or list of lists of float
        One ranking of grades per query, rank 1 first (see :func:`as_grade_matrix`).
    k : int, None or sequence of int
        Cut-off(s), as in :func:`dcg_batch`; the rankings are sorted once for all of them.
    ideal : 2-D array or list of lists of float, keyword-only, optional
        Per query, the grades of all its relevant documents (retrieved or not), as in
        :func:`ndcg_ref.ndcg`. By default each ranking sorted descending is its own ideal.
    gain : {"linear", "exponential"}, keyword-only
        As in :func:`ndcg_ref.dcg`.

    Returns
    -------
    numpy.ndarray
        Shape ``(queries,)`` for one cut-off, ``(queries, len(k))`` for several; 0.0 where the
        ideal DCG is 0.

    Raises
    ------
    TypeError, ValueError
        For malformed grades or cut-offs (naming query and rank), a number of ideal rows that
        differs from the number of rankings, or an ideal that does not cover a ranking's grades.

    Notes
    -----
    .. math:: nDCG@k_q = \frac{DCG@k_q}{iDCG@k_q}, \qquad 0 \text{ if } iDCG@k_q = 0

    Examples
    --------
    >>> ndcg_batch([[1, 0, 2, 1, 0], [0, 0, 0]], k=5).round(4)
    array([0.7763, 0.    ])
    >>> ndcg_batch([[1, 0, 2, 1, 0]], k=(2, 5), ideal=[[2, 2, 1, 1]]).round(4)
    array([[0.3066, 0.5798]])
    """
    ideal_values, actual_values = _ideal_and_actual(rels, k, ideal, gain, actual=True)
    out = np.zeros_like(ideal_values)
    np.divide(actual_values, ideal_values, out=out, where=ideal_values > 0)
    return out


def _ideal_and_actual(rels, k, ideal, gain, actual: bool):
    cutoffs, single = _cutoffs(k)
    matrix = as_grade_matrix(rels)
    best = None if ideal is None else as_grade_matrix(ideal, "ideal")
    if best is not None and best.shape[0] != matrix.shape[0]:
        raise ValueError(f"ideal has {best.shape[0]} rows but rels has {matrix.shape[0]} rankings")
    ideal_out = np.empty((matrix.shape[0], len(cutoffs)))
    actual_out = np.empty_like(ideal_out) if actual else None
    for start in range(0, matrix.shape[0], _CHUNK):
        chunk = matrix[start : start + _CHUNK]
        ranked_best = _sorted_descending(chunk)
        if best is None:
            ideal_rows = ranked_best
        else:
            ideal_rows = _sorted_descending(best[start : start + _CHUNK])
            _check_coverage(ranked_best, ideal_rows, start)
        ideal_out[start : start + len(chunk)] = _pick(_cumulative(ideal_rows, gain), cutoffs)
        if actual:
            actual_out[start : start + len(chunk)] = _pick(_cumulative(chunk, gain), cutoffs)
    return _shape(ideal_out, single), (_shape(actual_out, single) if actual else None)


def _check_coverage(ranked: np.ndarray, ideal: np.ndarray, offset: int) -> None:
    width = max(ranked.shape[1], ideal.shape[1])
    left = np.zeros((ranked.shape[0], width))
    right = np.zeros((ranked.shape[0], width))
    left[:, : ranked.shape[1]] = ranked
    right[:, : ideal.shape[1]] = ideal
    uncovered = (left > right).any(axis=1)
    if uncovered.any():
        query = offset + int(np.flatnonzero(uncovered)[0])
        raise ValueError(
            f"ideal[{query}] must hold the grades of all relevant documents of query {query}, "
            "but the ranking has relevant grades it does not cover"
        )


def rank_by_score(grades: object, scores: object) -> np.ndarray:
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
    matrix = as_grade_matrix(grades, "grades")
    score_matrix = np.asarray(scores, dtype=np.float64)
    if score_matrix.shape != matrix.shape:
        raise ValueError(f"scores has shape {score_matrix.shape} but grades has shape {matrix.shape}")
    order = np.argsort(-score_matrix, axis=1, kind="stable")
    return np.take_along_axis(matrix, order, axis=1)
