"""Each row's top ``k`` (or whole order) by score without ``argsort``: integer keys that carry the column.

The order is :func:`rank_by_score`'s: score descending, ties in column order (the lower column
first). Each score becomes an unsigned key that orders as the score does (its bit pattern, with
the bits of negative scores flipped), whose lowest ``b`` bits (``2**b`` >= the row length) are
replaced by the column, arranged so that among keys that agree in the other bits, the *kept*
bits, the lower column is the larger key. numpy sorts (or, for long rows, partitions) unsigned
integers with SIMD routines, several times faster than ``argsort``; the columns come back out of
the keys. Keys are 32-bit first, from the scores rounded to float32 (half the bytes to sort), and
64-bit, from the scores' own bits, for the rows those leave undecided.

Dropping bits (and rounding) is monotone: a key never outranks a higher score, it can only tie
it. So the top is exact wherever the ``k``-th and ``(k + 1)``-th keys differ in the kept bits;
inside the top, neighbours that agree there are put in exact order from the scores themselves.
Where the boundary keys agree, the row is still exact if all scores with those kept bits are
equal (true ties: the keys put them in column order); otherwise (scores closer than the kept
bits tell apart, or -0.0 tied with +0.0) the row is redone exactly: a partition of the scores,
every column above the threshold, and the first tied columns by column order.
"""

from __future__ import annotations

import functools
import math
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

#: Widest rows whose column fits in the dropped bits: beyond, the scores keep too few bits for
#: the packed keys to decide many rows, and the exact route runs alone.
_MAX_COLUMN_BITS = 24
#: Rows up to this many times the number of keys needed are sorted whole: numpy's SIMD sort of a
#: short row is as fast as its partition (100 keys: 16.7 against 17.1 ms per 100,000 rows,
#: numpy 2.4 on AVX-512), and the top then needs no sort of its own.
_SORT_WHOLE = 16

#: Widest rows (in bits of a column number) for 32-bit keys: they keep at least 15 bits of the
#: scores' float32 mantissa (a relative resolution of 3e-5); beyond, 64-bit keys only.
_MAX_SHORT_KEY_BITS = 8
_Unsigned = TypeVar("_Unsigned", bound=np.unsignedinteger[Any])


def _check_scores(scores: NDArray[np.float64], offset: int) -> None:
    """Raise for the first score (in row order) that is NaN or infinite; ``offset`` is the first row's query."""
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite scores may overflow the sum: no warning
        if scores.size == 0 or np.isfinite(scores.sum()):
            return  # one pass in the common case (if the sum overflows, look closer)
    bad = ~np.isfinite(scores)
    if bad.any():
        query, column = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"scores[{offset + query}][{column}] is {scores[query, column]}: scores must be finite")


def _gather(
    matrix: NDArray[np.float64], columns: NDArray[np.intp], rows: NDArray[np.intp] | None = None
) -> NDArray[np.float64]:
    """``matrix[i, columns[i, j]]`` for every ``i, j``, or ``matrix[rows[i], columns[i, j]]``
    (numpy's flat take() is much faster than take_along_axis(), and copies no rows)."""
    starts = np.arange(columns.shape[0]) if rows is None else rows
    flat = columns + (starts * matrix.shape[1])[:, None]
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


def _top_columns(
    scores: NDArray[np.float64], k: int, offset: int, work: NDArray[np.float64] | None = None
) -> NDArray[np.intp]:
    """The columns of each row's ``k`` highest scores, best first (ties in column order).

    Returns all columns, ranked, when ``k`` is at least the row length. Raises for a score that
    is not finite, as :func:`_check_scores` (``offset`` is the first row's query). ``work``, if
    given, is room of the scores' shape (or more rows) for the keys.
    """
    rows, width = scores.shape
    k = min(k, width)
    bits = (width - 1).bit_length() or 1
    if rows == 0 or width < 2 or bits > _MAX_COLUMN_BITS:
        _check_scores(scores, offset)
        return _exact_top_columns(scores, k)
    if bits > _MAX_SHORT_KEY_BITS:
        top, undecided = _keyed_top(scores, k, _keys(width, _negative(scores, offset), short=False), work, offset)
    else:  # 32-bit keys first (twice as fast to sort); rows they leave undecided get 64-bit ones
        rounded = _Keys.rounded(scores, work)
        keys = _keys(width, _negative(rounded, offset, scores), short=True)  # reads the scores once only
        top, undecided = _keyed_top(scores, k, keys, work, offset, rounded)
        if undecided.size:
            part = scores[undecided]
            again, still = _keyed_top(part, k, _keys(width, _negative(part, offset), short=False), None, offset)
            top[undecided] = again
            undecided = undecided[still]
    if undecided.size:
        top[undecided] = _exact_top_columns(scores[undecided], k)
    return top


def _negative(values: NDArray[Any], offset: int, scores: NDArray[np.float64] | None = None) -> bool:
    """Whether a value is below zero; raises for a NaN or -inf among the ``scores`` (``values``
    themselves, or their float32 copy: a score beyond float32's range is no error)."""
    lowest = values.min()
    if not np.isfinite(lowest):
        _check_scores(values if scores is None else scores, offset)
    return bool(lowest < 0)


def _keyed_top(
    scores: NDArray[np.float64],
    k: int,
    keys: _Keys,
    work: NDArray[np.float64] | None,
    offset: int,
    rounded: NDArray[np.float32] | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Each row's top ``k`` columns by ``keys``, exact but for the rows returned second (undecided).

    ``rounded``: for 32-bit keys, the scores' float32 copy, if made already (by :meth:`_Keys.rounded`)."""
    columns, kept = keys.top(scores, k, work, rounded)
    if (kept[:, 0] >= keys.infinity).any():  # +inf leads its row (the check passes other rows)
        _check_scores(scores, offset)
    top = columns[:, :k]
    tied = kept[:, 1:] == kept[:, :-1]  # neighbours whose scores agree in the kept bits
    # Rows are found from the few True places (any() along short rows costs more than the rest).
    close = _rows_of(tied[:, : k - 1])
    if close.size:  # such neighbours are in column order: right where their scores are equal
        exact = _gather(scores, top[close], close)
        redo = close[((exact[:, 1:] != exact[:, :-1]) & tied[close, : k - 1]).any(axis=1)]
        if redo.size:
            chosen = np.sort(top[redo], axis=1)
            top[redo] = _gather(chosen, _full_order(_gather(scores, chosen, redo)))
    undecided = _rows_of(kept == keys.negative_zero)  # -0.0 has keys of its own, not next to +0.0's
    if k == scores.shape[1]:
        return top, undecided  # the whole row: no boundary
    boundary = np.setdiff1d(np.flatnonzero(tied[:, k - 1]), undecided, assume_unique=True)
    if boundary.size:
        ties = keys.true_ties(scores, boundary, kept[boundary, k - 1], top[boundary, k - 1], work)
        undecided = np.union1d(undecided, boundary[~ties])
    return top, undecided


def _infinity(unsigned: np.dtype[Any]) -> np.unsignedinteger[Any]:
    """The bit pattern of +inf as a 32- or 64-bit unsigned integer: non-negative finite floats have
    smaller ones."""
    bits: np.unsignedinteger[Any] = unsigned.type(0x7F80_0000 if unsigned.itemsize == 4 else 0x7FF0_0000_0000_0000)
    return bits


def _rows_of(found: NDArray[np.bool_]) -> NDArray[np.intp]:
    """The rows with a True, ascending."""
    rows: NDArray[np.intp] = np.flatnonzero(found) // found.shape[1]  # ascending, as the places are
    if rows.size > 1:
        rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]  # np.unique would sort (or hash) again
    return rows


def _largest_last(keys: NDArray[_Unsigned], count: int) -> NDArray[_Unsigned]:
    """Each row's ``count`` largest keys, ascending, in the last columns: sorted in place, or for
    long rows partitioned and only those sorted. Returns those columns (a view)."""
    width = keys.shape[1]
    if width <= _SORT_WHOLE * count:
        keys.sort(axis=1)
    else:
        keys.partition(width - count, axis=1)
        keys[:, width - count :].sort(axis=1)  # in place: np.sort would copy the strided columns
    return keys[:, width - count :]


@functools.lru_cache(maxsize=64)
def _keys(width: int, negative: bool, *, short: bool) -> _Keys:
    """The keys for rows of ``width`` scores, made once (their constants are a few dozen numpy calls)."""
    return _Keys(width, negative=negative, short=short)


class _Keys:
    """Unsigned keys that order as the scores do, with enough low bits free for a column number
    below ``width``.

    ``short``: 32-bit keys, from the scores rounded to float32 (rounding is monotone too), else
    64-bit keys from the scores' own bits. ``negative``: some score is below zero (the bits of
    negative scores are then flipped, which costs a few passes more; without, -0.0's pattern is
    the largest key and its rows are redone).
    """

    def __init__(self, width: int, *, negative: bool, short: bool) -> None:
        bits = (width - 1).bit_length() or 1
        self.float: type[np.floating[Any]] = np.float32 if short else np.float64
        self.unsigned: type[np.unsignedinteger[Any]] = np.uint32 if short else np.uint64
        self.top_bit = self.unsigned(63 if not short else 31)
        self.sign = self.unsigned(1) << self.top_bit
        self.all_but_sign = self.sign - self.unsigned(1)
        self.mask = self.unsigned((1 << bits) - 1)
        self.negative = negative
        infinity = _infinity(np.dtype(self.unsigned))
        #: The kept bits of -0.0, and those of +inf (NaN's are larger, without negative scores).
        self.negative_zero = self.all_but_sign & ~self.mask if negative else self.sign
        self.infinity = infinity ^ self.sign if negative else infinity
        #: What each column puts in the free bits: lower columns get larger keys.
        self.carried = np.bitwise_xor(np.arange(width, dtype=self.unsigned), self.mask)
        self.carried.flags.writeable = False  # shared by threads

    @staticmethod
    def rounded(scores: NDArray[np.float64], work: NDArray[np.float64] | None) -> NDArray[np.float32]:
        """The scores rounded to float32, at the start of ``work`` (where :meth:`kept` expects them)."""
        rounded: NDArray[np.float32] = _Room(work, scores.shape).take(np.float32)
        with np.errstate(over="ignore", under="ignore"):  # beyond float32's range: +-inf or 0, ties the checks see
            np.copyto(rounded, scores, casting="same_kind")  # to nearest: never reverses an order
        return rounded

    def kept(
        self,
        scores: NDArray[np.float64],
        work: NDArray[np.float64] | None = None,
        rounded: NDArray[np.float32] | None = None,
    ) -> NDArray[Any]:
        """The keys' kept bits: monotone in the scores, ties kept; in ``work`` if given (of at
        least the scores' size), which holds both the keys and the temporary flipped bits.
        ``rounded``: for 32-bit keys, :meth:`rounded` of the scores if made already."""
        room = _Room(work, scores.shape)
        if self.float is np.float64:
            bits = scores.view(np.uint64)
            out = room.take(np.uint64)
        else:
            if rounded is None:
                rounded = self.rounded(scores, work)
            room.take(np.float32)  # where the rounded scores are
            bits = out = rounded.view(np.uint32)
        if not self.negative:  # the bit patterns of scores >= 0 order as the scores do
            np.bitwise_and(bits, ~self.mask, out=out)
            return out
        flip = out if out is not bits else room.take(self.unsigned)
        np.right_shift(bits, self.top_bit, out=flip)
        np.multiply(flip, self.all_but_sign, out=flip)  # all bits but the sign for negative scores
        np.bitwise_xor(flip, bits, out=flip)
        np.bitwise_and(flip, ~self.mask, out=flip)
        np.bitwise_xor(flip, self.sign, out=flip)  # negative scores below the others
        return flip

    def top(
        self,
        scores: NDArray[np.float64],
        k: int,
        work: NDArray[np.float64] | None,
        rounded: NDArray[np.float32] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[Any]]:
        """Each row's ``k + 1`` highest keys (all, if fewer), best first: the columns they carry, and
        their kept bits. ``rounded`` as for :meth:`kept`."""
        keys = self.kept(scores, work, rounded)
        np.bitwise_or(keys, self.carried, out=keys)
        best = _largest_last(keys, min(k + 1, scores.shape[1]))[:, ::-1]
        columns = np.bitwise_and(best, self.mask)
        np.bitwise_xor(columns, self.mask, out=columns)
        return columns.astype(np.intp), np.bitwise_and(best, ~self.mask)

    def true_ties(
        self,
        scores: NDArray[np.float64],
        rows: NDArray[np.intp],
        boundary: NDArray[Any],
        kth: NDArray[np.intp],
        work: NDArray[np.float64] | None,
    ) -> NDArray[np.bool_]:
        """Which of ``rows`` have an exact top k by key although their k-th and (k + 1)-th keys agree
        in the kept bits (``boundary``; ``kth``: the k-th column).

        That holds where the scores with the boundary's kept bits are exactly the scores equal
        to the k-th: true ties, which the keys rank in column order. The sets are compared place
        by place, not by size: -0.0 equals a +0.0 k-th score but has kept bits of its own, and a
        tiny score may share +0.0's kept bits without equalling it; the two would cancel out in a
        count. ``work``: room as for :meth:`kept`.
        """
        part = scores if rows.size == scores.shape[0] else scores[rows]  # with ties, often all rows
        same_score = part == scores[rows, kth][:, None]
        same_bits = self.kept(part, work) == boundary[:, None]
        exact: NDArray[np.bool_] = np.count_nonzero(same_bits != same_score, axis=1) == 0
        return exact


class _Room:
    """Arrays of one shape, one after another in a float64 work area (fresh ones without it).

    Reusing memory matters here: a fresh array of a few megabytes costs about a millisecond per
    megabyte in page faults, as much as the arithmetic on it.
    """

    def __init__(self, work: NDArray[np.float64] | None, shape: tuple[int, ...]) -> None:
        self._bytes = None if work is None else work.reshape(-1).view(np.uint8)
        self._shape = shape
        self._used = 0

    def take(self, dtype: type[np.generic]) -> NDArray[Any]:
        """The next array of the shape and ``dtype``."""
        size = math.prod(self._shape) * np.dtype(dtype).itemsize
        if self._bytes is None or self._used + size > self._bytes.size:
            return np.empty(self._shape, dtype)
        start, self._used = self._used, self._used + size
        return self._bytes[start : self._used].view(dtype).reshape(self._shape)


def _exact_top_columns(scores: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """:func:`_top_columns` from the scores themselves (finite): a partition finds each row's k-th
    highest score; every column scoring above it is in the top k, and of the columns scoring
    exactly that much the first ones in column order, as many as are missing. With ``k`` the
    row length, a stable sort of the whole row."""
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
