"""DCG and nDCG of many queries at once, vectorised over queries (no Python loop per query).

The conventions are those of the single-query functions in :mod:`ndcg_ref.measures`, and the
arithmetic is the same (gain times discount, summed in rank order), so that every value agrees
with them exactly. Rankings of different length are given as a 2-D array padded with zeros
(a zero grade adds nothing to DCG, so padding changes no value) or as a list of lists.
Queries are processed in blocks, in threads on all cores; a block's values do not depend on
which block or thread computed them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ._validate import as_cutoff
from .measures import Gain, _discounts, _gains

__all__ = ["as_grade_matrix", "dcg_batch", "idcg_batch", "ndcg_batch", "rank_by_score"]

#: Queries processed at once: bounds the temporary arrays to a few times this many rows.
_CHUNK = 4096
#: Smallest block worth a thread of its own.
_MIN_CHUNK = 512


def _workers() -> int:
    """Threads for chunked work: the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_pool: tuple[ThreadPoolExecutor, int, int] | None = None  # (pool, workers, process id)
_pool_lock = threading.Lock()


def _threads(workers: int) -> ThreadPoolExecutor:
    """One pool for the whole process, started on first use (starting threads per call costs).

    A new one after a fork: a forked child has the pool object but not its threads.
    """
    global _pool
    with _pool_lock:
        if _pool is None or _pool[1:] != (workers, os.getpid()):
            if _pool is not None and _pool[2] == os.getpid():
                _pool[0].shutdown(wait=False)
            _pool = (ThreadPoolExecutor(workers, thread_name_prefix="ndcg_ref"), workers, os.getpid())
        return _pool[0]


def _for_each_chunk(rows: int, work: Callable[[int, int], None]) -> None:
    """Call ``work(start, stop)`` for consecutive blocks of at most ``_CHUNK`` rows, on all cores.

    numpy releases the GIL inside sorts and ufunc loops, so blocks run in parallel threads
    (two blocks or more per thread, so that they finish at about the same time). Each block
    writes only its own rows of the outputs, and every row's arithmetic is the same whichever
    block and thread runs it, so the values depend on neither. ``work`` must not itself wait
    for pool work. After an error no new block starts, and the error of the first failing
    block in row order is raised.
    """
    workers = _workers()
    size = min(_CHUNK, max(_MIN_CHUNK, -(-rows // (2 * workers))))
    blocks = [(start, min(start + size, rows)) for start in range(0, rows, size)]
    if workers <= 1 or len(blocks) <= 1:
        for start, stop in blocks:
            work(start, stop)
        return
    # The calling thread works too, beside workers - 1 helpers: each takes the next block until
    # none is left, so no thread waits idle for another to hand it work.
    taken = iter(range(len(blocks)))
    lock = threading.Lock()
    errors: dict[int, BaseException] = {}

    def drain() -> None:
        while not errors:
            with lock:
                index = next(taken, None)
            if index is None:
                return
            try:
                work(*blocks[index])
            except BaseException as error:  # re-raised in the caller below
                errors[index] = error

    pool = _threads(workers - 1)
    helpers = [pool.submit(drain) for _ in range(min(workers, len(blocks)) - 1)]
    try:
        drain()
    finally:
        wait(helpers)  # no block still runs when the caller returns or sees the error
    if errors:
        raise errors[min(errors)]  # blocks are taken in order: every earlier block has run


def as_grade_matrix(rels: object, name: str = "rels", *, check: bool = True) -> np.ndarray:
    """Return graded relevance of many rankings as a 2-D float64 array, padded with zeros.

    Parameters
    ----------
    rels : 2-D array or list of lists of float
        One ranking per row (or per inner list), rank 1 first. Inner lists may differ in length.
    name : str
        The argument's name, for error messages.
    check : bool, keyword-only
        Check that every grade is a finite number >= 0 (the batch functions pass False and
        check block by block, in parallel).

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
    if check:
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


def _check_grades(matrix: np.ndarray, name: str, offset: int = 0) -> None:
    """Raise for the first grade that is negative, NaN or infinite; ``offset`` is the first row's query."""
    if matrix.size == 0 or (matrix.min() >= 0 and np.isfinite(matrix.sum())):
        return  # the common case, in two reductions; find the culprit only when there is one
    bad = ~np.isfinite(matrix) | (matrix < 0)
    if bad.any():
        query, rank = (int(i) for i in np.argwhere(bad)[0])
        value = matrix[query, rank]
        query += offset
        problem = "relevance grades must be >= 0" if np.isfinite(value) else "relevance grades must be finite numbers"
        raise ValueError(f"{name}[{query}][{rank}] is {value:g}: {problem}")


def _cutoffs(k: object) -> tuple[tuple[int | None, ...], bool]:
    """Normalise ``k`` to a tuple of cut-offs and whether a single one was given."""
    if k is None or not isinstance(k, (tuple, list)):
        return (as_cutoff(k),), True
    if not k:
        raise ValueError("k must name at least one cut-off")
    return tuple(as_cutoff(value, "k") for value in k), False


def _dcg_at(grades: np.ndarray, cutoffs: tuple[int | None, ...], gain: str, *, negated: bool = False) -> np.ndarray:
    """DCG at each cut-off for every row of ``grades`` (rows x cut-offs).

    The terms ``gain * discount`` are laid out ranks x rows and summed over the ranks with
    ``np.add.reduce(..., axis=0)``: along an axis that is not the fastest in memory numpy adds
    rank after rank (no pairwise summation; see ``numpy.sum``), vectorised across rows. That
    is the same sequence of float operations as the single-query functions, so the values
    agree exactly; padding zeros add exactly 0. Several cut-offs continue one running sum.
    With ``negated=True`` the rows hold ``-grade`` sorted (as :func:`_negated_descending`
    returns them); ``(-g) * (-d)`` is exactly ``g * d``, so the values are the same, and the
    ranks after the last relevant grade of the block are skipped (they would add +0).
    """
    rows, width = grades.shape
    out = np.zeros((rows, len(cutoffs)))
    if negated:  # sorted rows: past the last column holding a relevant grade every term is +0
        width = _relevant_columns(grades)
    stops = [width if k is None else min(k, width) for k in cutoffs]
    needed = max(stops, default=0)
    if needed == 0 or rows == 0:
        return out
    part = grades[:, :needed]
    discounts = _discounts(needed)
    if not negated:
        gains = _gains(part, gain)
    elif gain == "linear":
        gains, discounts = part, -discounts
    else:
        gains = _gains(np.negative(part), gain)
    # At least two columns: with one, the rank axis would be the fast one and numpy would sum
    # it pairwise.
    terms = np.empty((needed, max(rows, 2)))
    terms[:, rows:] = 0
    np.copyto(terms[:, :rows], gains.T)  # numpy's transposing copy beats a multiply across layouts
    np.multiply(terms, discounts[:, None], out=terms)
    total = np.zeros(terms.shape[1])
    done = 0
    for stop in sorted(set(stops)):
        if stop > done:
            segment = terms[done:stop]
            segment[0] += total  # carry the running sum on: total + term, as rank by rank
            total = np.add.reduce(segment, axis=0)
            done = stop
        out[:, [position for position, value in enumerate(stops) if value == stop]] = total[:rows, None]
    return out


def _relevant_columns(negated: np.ndarray) -> int:
    """How many leading columns of rows sorted as by :func:`_negated_descending` hold a relevant grade.

    Every row's nonzero grades come first, so those columns are a prefix: a binary search over
    columns finds its end in a few column reads.
    """
    low, high = 0, negated.shape[1]  # columns before `low` hold a nonzero; from `high` on, zeros only
    while low < high:
        middle = (low + high) // 2
        if negated[:, middle].any():
            low = middle + 1
        else:
            high = middle
    return low


def _negated_descending(grades: np.ndarray, name: str, offset: int) -> np.ndarray:
    """Each row's grades in descending order, negated: ``-grades`` sorted in place (no extra copy).

    Checks the grades on the way (as :func:`_check_grades`), from the sorted rows' ends only:
    a negative grade or a NaN sorts last, an infinite grade first or last.
    """
    negated = np.negative(grades)
    negated.sort(axis=1)
    if negated.size and not (negated[:, -1].max() <= 0 and np.isfinite(negated[:, 0]).all()):
        _check_grades(grades, name, offset)
    return negated


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
    matrix = as_grade_matrix(rels, check=False)
    out = np.empty((matrix.shape[0], len(cutoffs)))

    def work(start: int, stop: int) -> None:
        chunk = matrix[start:stop]
        _check_grades(chunk, "rels", start)
        out[start:stop] = _dcg_at(chunk, cutoffs, gain)

    _for_each_chunk(matrix.shape[0], work)
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
    matrix = as_grade_matrix(rels, check=False)
    best = None if ideal is None else as_grade_matrix(ideal, "ideal", check=False)
    if best is not None and best.shape[0] != matrix.shape[0]:
        raise ValueError(f"ideal has {best.shape[0]} rows but rels has {matrix.shape[0]} rankings")
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
        if actual:
            actual_out[start:stop] = _dcg_at(chunk, cutoffs, gain)

    _for_each_chunk(matrix.shape[0], work)
    return _shape(ideal_out, single), (_shape(actual_out, single) if actual else None)


def _check_coverage(ranked: np.ndarray, ideal: np.ndarray, offset: int) -> None:
    """Each ranking's i-th best grade must not exceed its ideal's (both negated, descending)."""
    width = max(ranked.shape[1], ideal.shape[1])
    left = np.zeros((ranked.shape[0], width))
    right = np.zeros((ranked.shape[0], width))
    left[:, : ranked.shape[1]] = ranked
    right[:, : ideal.shape[1]] = ideal
    uncovered = (left < right).any(axis=1)  # negated: a larger grade is a smaller number
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
