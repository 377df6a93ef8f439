"""Rankings of different lengths stored ragged: one flat array of grades and row offsets.

A queries x longest-ranking matrix costs memory in proportion to the longest ranking times the
number of queries: 20,000 rankings of 10 documents and one of 50,000 need 8 GB padded, 1.6 MB
ragged. The kernels work on dense blocks, so ragged rows are cut into blocks of rows of similar
length (:func:`_blocks`), each padded only to its own longest row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, eq=False)  # arrays inside: == would compare element-wise, so identity
class Ragged:
    """Rows of different lengths: row ``i`` is ``values[offsets[i]:offsets[i + 1]]``.

    Parameters
    ----------
    values : numpy.ndarray
        All rows' grades, one row after the other (float64).
    offsets : numpy.ndarray
        ``rows + 1`` non-decreasing integers, from 0 to ``values.size``.

    Raises
    ------
    ValueError
        If ``values`` is not 1-D or the offsets do not delimit it.

    Examples
    --------
    >>> rows = Ragged.from_lists([[1, 0, 2], [3]])
    >>> rows.offsets.tolist(), rows.row(1).tolist()
    ([0, 3, 4], [3.0])
    """

    values: NDArray[np.float64]
    offsets: NDArray[np.int64]

    def __post_init__(self) -> None:
        if self.values.ndim != 1 or self.offsets.ndim != 1 or self.offsets.size == 0:
            raise ValueError("Ragged needs 1-D values and at least one offset")
        if self.offsets[0] != 0 or self.offsets[-1] != self.values.size or (np.diff(self.offsets) < 0).any():
            raise ValueError(f"offsets must rise from 0 to {self.values.size} (the number of values)")

    @classmethod
    def from_lengths(cls, values: NDArray[np.float64], lengths: NDArray[np.integer]) -> Ragged:
        """Rows of the given lengths, one after the other in ``values``."""
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cls(np.asarray(values, dtype=np.float64), offsets)

    @classmethod
    def from_matrix(cls, matrix: NDArray[np.float64]) -> Ragged:
        """Every row of a 2-D array, at its full width (a view when the array is C-contiguous)."""
        rows, width = matrix.shape
        return cls(np.ascontiguousarray(matrix, dtype=np.float64).reshape(-1),
                   np.arange(rows + 1, dtype=np.int64) * width)

    @classmethod
    def from_lists(cls, rows: Sequence[Sequence[object]], name: str = "rels") -> Ragged:
        """Lists of numbers as ragged rows (no padding).

        Raises
        ------
        TypeError
            If a row is not a sequence or holds something that is not a number (the message
            names row and position).
        """
        lengths = np.empty(len(rows), dtype=np.int64)
        for index, row in enumerate(rows):
            if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
                raise TypeError(f"{name}[{index}] must be a list of grades, got {type(row).__name__}")
            lengths[index] = len(row)
        try:
            flat = np.fromiter((value for row in rows for value in row), dtype=np.float64, count=int(lengths.sum()))
        except (TypeError, ValueError) as error:
            for index, row in enumerate(rows):
                for rank, value in enumerate(row):
                    if isinstance(value, (str, bytes)) or not isinstance(value, (int, float, np.integer, np.floating)):
                        raise TypeError(
                            f"{name}[{index}][{rank}] must be a number, got {type(value).__name__} {value!r}"
                        ) from error
            raise TypeError(f"{name} holds something that is not a number: {error}") from error
        return cls.from_lengths(flat, lengths)

    def __len__(self) -> int:
        return self.offsets.size - 1

    @property
    def lengths(self) -> NDArray[np.int64]:
        """The length of every row."""
        return np.diff(self.offsets)

    def row(self, index: int) -> NDArray[np.float64]:
        """Row ``index`` (a view)."""
        return self.values[self.offsets[index] : self.offsets[index + 1]]

    def take(self, rows: NDArray[np.integer] | NDArray[np.bool_]) -> Ragged:
        """The rows ``rows`` (indices, or a mask over the rows), in that order, as a new ``Ragged``."""
        picked = np.flatnonzero(rows) if rows.dtype == np.bool_ else np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[picked]
        return Ragged.from_lengths(self.values[_positions(self.offsets[picked], lengths)], lengths)

    def dense(self, rows: NDArray[np.int64], width: int) -> NDArray[np.float64]:
        """The rows ``rows`` as a ``(len(rows), width)`` matrix: cut at ``width``, padded with zeros.

        Rows of length ``width`` that follow each other in ``values`` come out as a view (never
        written to by the kernels).
        """
        full = self.lengths[rows]
        starts = self.offsets[rows]
        if rows.size and (full == width).all() and (np.diff(starts) == width).all():
            first = int(starts[0])
            return self.values[first : first + rows.size * width].reshape(rows.size, width)
        lengths = np.minimum(full, width)
        matrix = np.zeros((rows.size, width))
        matrix[np.arange(width) < lengths[:, None]] = self.values[_positions(starts, lengths)]
        return matrix


def _positions(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])``, without a Python loop."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    # each row continues where the previous one stopped: step from the previous row's last
    # position to this row's start, once, at each row's first position
    steps = np.ones(total, dtype=np.int64)
    first = (ends - lengths)[lengths > 0]
    previous_last = np.concatenate(([-1], (starts + lengths - 1)[lengths > 0][:-1]))
    steps[first] = starts[lengths > 0] - previous_last
    return np.cumsum(steps) - 1  # the first row's step, from -1, is one too many


#: Rows up to this long share one block width (padding them costs little).
_NARROW = 16
#: Elements (rows x width) of one block: bounds the temporary arrays of a block.
_BLOCK_ELEMENTS = 1 << 19


def _length_class(lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """0 for rows up to ``_NARROW`` long, else the power of two that bounds the length from above.

    Rows of one class differ in length by less than a factor of two, so padding a block of them
    to its longest row at most doubles its size.
    """
    return np.where(lengths <= _NARROW, 0, np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64))


def _blocks(*lengths: NDArray[np.int64]) -> list[NDArray[np.int64]]:
    """Rows grouped into blocks of similar lengths (in every one of ``lengths``), as row indices.

    Rows are grouped by length class (one per array of lengths, e.g. a ranking's and its ideal's),
    then cut into blocks of at most ``_BLOCK_ELEMENTS`` padded elements (at least one row), in
    row order within each class. Padded to their longest rows, the blocks take at most about twice
    the memory of their rows, plus ``_NARROW`` per row.
    """
    rows = lengths[0].size
    if rows == 0:
        return []
    key = np.zeros(rows, dtype=np.int64)
    for each in lengths:
        key = key * 64 + _length_class(each)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    widest = np.maximum.reduce([np.maximum(each, _NARROW) for each in lengths])[order]
    blocks = []
    for start, stop in _runs(sorted_key):
        # padded size of a block: its rows times its widest row, which is at most twice any row's
        cost = np.cumsum(widest[start:stop] * 2)
        begin = start
        while begin < stop:
            spent = cost[begin - start - 1] if begin > start else 0
            end = start + int(np.searchsorted(cost, spent + _BLOCK_ELEMENTS, side="right"))
            end = min(max(end, begin + 1), stop)
            blocks.append(order[begin:end])
            begin = end
    return blocks


def _runs(sorted_key: NDArray[np.int64]) -> list[tuple[int, int]]:
    """``(start, stop)`` of every run of equal values of a sorted array."""
    edges = np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1
    bounds = np.concatenate(([0], edges, [sorted_key.size])).tolist()
    return list(pairwise(bounds))
