"""nDCG@k straight from grades and scores: each row's top k ranked and its best grades found by integer sorts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..measures import Gain
from .grades import _check_grades, as_grade_matrix
from .kernels import _dcg_at
from .measures import _cutoffs, _shape
from .parallel import _for_each_chunk, _Scratch
from .ranking import _score_matrix
from .topk import _gather, _infinity, _largest_last, _Room, _top_columns

#: The float64 mantissa bits that float32 lacks.
_BELOW_FLOAT32 = np.uint64((1 << 29) - 1)


def _best_grades(
    grades: NDArray[np.float64], depth: int, offset: int, room: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each row's ``depth`` highest grades, descending.

    Grades >= 0 order as their bit patterns do, read as unsigned integers, and numpy sorts those
    faster than floats; 32-bit ones twice as fast again, so grades that are all float32 numbers
    (small integers, halves, ...) are sorted as such. Checks the grades on the way (``offset``
    is the first row's query): a negative grade, a NaN or an infinity has a bit pattern above
    every finite grade's. Works in ``room`` (of the grades' size).
    """
    keys, as_float = _grade_keys(grades, room)
    best = _largest_last(keys, depth)
    if best.size and best[:, -1].max() >= _infinity(keys.dtype):
        _check_grades(grades, "grades", offset)  # raises, unless the grade is -0.0: make it +0.0
        keys, as_float = _grade_keys(grades + 0.0, room)
        best = _largest_last(keys, depth)
    return best[:, ::-1].view(as_float).astype(np.float64)


def _grade_keys(grades: NDArray[np.float64], room: NDArray[np.float64]) -> tuple[NDArray[Any], type[np.floating[Any]]]:
    """The grades' bit patterns in ``room``: as float32 where that is exact, else as float64; and which."""
    space = _Room(room, grades.shape)
    if not np.bitwise_or.reduce(grades.view(np.uint64), axis=None) & _BELOW_FLOAT32:
        rounded = space.take(np.float32)
        try:  # the mantissas fit; numpy reports an exponent out of float32's range as over- or underflow
            with np.errstate(over="raise", under="raise"):
                np.copyto(rounded, grades, casting="same_kind")
            return rounded.view(np.uint32), np.float32
        except FloatingPointError:
            pass
    keys = space.take(np.uint64)
    np.copyto(keys, grades.view(np.uint64))
    return keys, np.float64


def ndcg_from_scores(
    grades: object, scores: object, k: int | Sequence[int | None] | None = 10, *, gain: Gain = "linear"
) -> NDArray[np.float64]:
    r"""nDCG@k of every query from its documents' grades and the system's scores.

    Exactly ``ndcg_batch(rank_by_score(grades, scores), k, gain=gain)``, but with cut-offs only
    each row's top ``max(k)`` documents are put in order (see :func:`rank_by_score`) and only its
    top ``max(k)`` grades kept for the ideal ranking.

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
        cut-off is below 1 (the message names query and column). With several bad values: one
        in the first block of rows (up to 4,096) that has any, a score before a grade.

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

    scratch = _Scratch(width)

    def work(start: int, stop: int) -> None:
        block, room = matrix[start:stop], scratch.rows(stop - start)
        top = _top_columns(score_matrix[start:stop], depth, start, room)
        # The room is free again for the grades: read now, they are still cached for the gather.
        ideal = _dcg_at(_best_grades(block, depth, start, room), cutoffs, gain)
        np.divide(_dcg_at(_gather(block, top), cutoffs, gain), ideal, out=out[start:stop], where=ideal > 0)

    _for_each_chunk(matrix.shape[0], work)
    return _shape(out, single)
