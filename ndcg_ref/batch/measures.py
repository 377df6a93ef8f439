"""DCG, ideal DCG and nDCG of many queries at once, at one or several cut-offs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray

from .._validate import as_cutoff
from ..measures import Gain
from .grades import _check_coverage, _check_grades, as_grade_rows
from .kernels import _dcg_at, _negated_descending
from .parallel import _for_each_chunk
from .ragged import Ragged
from .ragged_measures import _as_ragged, _ragged_dcg, _ragged_ideal_and_actual


def _cutoffs(k: object) -> tuple[tuple[int | None, ...], bool]:
    """Normalise ``k`` to a tuple of cut-offs and whether a single one was given."""
    if k is None or not isinstance(k, (tuple, list)):
        return (as_cutoff(k),), True
    if not k:
        raise ValueError("k must name at least one cut-off")
    return tuple(as_cutoff(value, "k") for value in k), False


def _shape(values: NDArray[np.float64], single: bool) -> NDArray[np.float64]:
    return values[:, 0] if single else values


def dcg_batch(
    rels: object, k: int | Sequence[int | None] | None = None, *, gain: Gain = "linear"
) -> NDArray[np.float64]:
    r"""DCG@k of many rankings at once.

    Parameters
    ----------
    rels : 2-D array, list of lists of float, or Ragged
        One ranking of grades per query, rank 1 first (see :func:`as_grade_matrix`). Lists of
        lists and :class:`Ragged` rows are stored flat, never padded to the longest ranking.
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
    rows = as_grade_rows(rels)
    if isinstance(rows, Ragged):
        return _shape(_ragged_dcg(rows, cutoffs, gain), single)
    matrix = rows
    out = np.empty((matrix.shape[0], len(cutoffs)))

    def work(start: int, stop: int) -> None:
        chunk = matrix[start:stop]
        _check_grades(chunk, "rels", start)
        out[start:stop] = _dcg_at(chunk, cutoffs, gain)

    _for_each_chunk(matrix.shape[0], work)
    return _shape(out, single)


def idcg_batch(
    rels: object, k: int | Sequence[int | None] | None = None, *, ideal: object = None, gain: Gain = "linear"
) -> NDArray[np.float64]:
    """Ideal DCG@k of many queries; ``ideal`` as in :func:`ndcg_batch`.

    Examples
    --------
    >>> idcg_batch([[1, 0, 2, 1, 0]], k=5).round(4)
    array([3.1309])
    """
    return _ideal_and_actual(rels, k, ideal, gain, actual=False)[0]


def ndcg_batch(
    rels: object, k: int | Sequence[int | None] | None = None, *, ideal: object = None, gain: Gain = "linear"
) -> NDArray[np.float64]:
    r"""nDCG@k of many rankings at once.

    Parameters
    ----------
    rels : 2-D array, list of lists of float, or Ragged
        One ranking of grades per query, rank 1 first, as in :func:`dcg_batch`.
    k : int, None or sequence of int
        Cut-off(s), as in :func:`dcg_batch`; the rankings are sorted once for all of them.
    ideal : 2-D array, list of lists of float, or Ragged, keyword-only, optional
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


@overload
def _ideal_and_actual(
    rels: object, k: object, ideal: object, gain: Gain, actual: Literal[True]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
@overload
def _ideal_and_actual(
    rels: object, k: object, ideal: object, gain: Gain, actual: Literal[False]
) -> tuple[NDArray[np.float64], None]: ...
def _ideal_and_actual(
    rels: object, k: object, ideal: object, gain: Gain, actual: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Ideal DCG and, with ``actual``, DCG of every ranking at the cut-offs ``k``, block by block."""
    cutoffs, single = _cutoffs(k)
    rows = as_grade_rows(rels)
    best_rows = None if ideal is None else as_grade_rows(ideal, "ideal")
    if best_rows is not None and len(best_rows) != len(rows):
        raise ValueError(f"ideal has {len(best_rows)} rows but rels has {len(rows)} rankings")
    if isinstance(rows, Ragged) or isinstance(best_rows, Ragged):
        values = _ragged_ideal_and_actual(_as_ragged(rows), None if best_rows is None else _as_ragged(best_rows),
                                          cutoffs, gain, actual)
        return _shape(values[0], single), (None if values[1] is None else _shape(values[1], single))
    matrix, best = rows, best_rows
    ideal_out = np.empty((matrix.shape[0], len(cutoffs)))
    actual_out = np.empty_like(ideal_out) if actual else None

    def work(start: int, stop: int) -> None:
        chunk = matrix[start:stop]
        ranked_sorted = _negated_descending(chunk, "rels", start)
        if best is None:
            ideal_sorted = ranked_sorted
        else:
            ideal_sorted = _negated_descending(best[start:stop], "ideal", start)
            _check_coverage(ranked_sorted, ideal_sorted, start)
        ideal_out[start:stop] = _dcg_at(ideal_sorted, cutoffs, gain, negated=True)
        if actual_out is not None:
            actual_out[start:stop] = _dcg_at(chunk, cutoffs, gain)

    _for_each_chunk(matrix.shape[0], work)
    return _shape(ideal_out, single), (None if actual_out is None else _shape(actual_out, single))
