"""Query and document ids stored ragged: one byte buffer and offsets, so memory follows the input.

A fixed-width numpy bytes array pads every id to the longest one: one 3,000-character docno in a
run of a million lines made 3 GB of padding. Here id ``i`` is ``data[offsets[i]:offsets[i + 1]]``,
and hashing and comparing ids loop over byte positions, not over ids (ids sorted by length, so
that position ``p`` touches only the ids longer than ``p``): time and memory follow the bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import overload

import numpy as np
from numpy.typing import NDArray

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


@dataclass(frozen=True)
class Ids:
    """Byte-string ids: id ``i`` is ``data[offsets[i]:offsets[i + 1]]``.

    Examples
    --------
    >>> ids = Ids.from_bytes([b"d1", b"doc-22", b""])
    >>> ids[1], len(ids), ids.lengths.tolist()
    (b'doc-22', 3, [2, 6, 0])
    """

    data: NDArray[np.uint8]
    offsets: NDArray[np.int64]

    @classmethod
    def from_bytes(cls, items: Iterable[bytes]) -> Ids:
        """Ids from Python bytes objects."""
        listed = list(items)
        offsets = np.zeros(len(listed) + 1, dtype=np.int64)
        np.cumsum([len(item) for item in listed], out=offsets[1:])
        return cls(np.frombuffer(b"".join(listed), dtype=np.uint8), offsets)

    @classmethod
    def from_tokens(cls, buffer: NDArray[np.uint8], starts: NDArray[np.intp], lengths: NDArray[np.intp]) -> Ids:
        """The tokens ``buffer[starts[i]:starts[i] + lengths[i]]``, copied compactly.

        The tokens must follow each other in ``buffer`` without overlapping (as the tokens of one
        column of a file do): a byte mask of the tokens selects them in one pass over the buffer.
        """
        offsets = np.zeros(starts.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        edges = np.zeros(buffer.size + 1, dtype=np.int8)  # +1 where a token starts, -1 after it
        np.add.at(edges, starts, 1)  # (add.at: a token may end where the next one starts)
        np.add.at(edges, starts + lengths, -1)
        inside = np.cumsum(edges[:-1], dtype=np.int8).view(np.bool_)  # 0 or 1: tokens do not overlap
        return cls(buffer[inside], offsets)

    @classmethod
    def concatenate(cls, parts: Sequence[Ids]) -> Ids:
        """All ids of ``parts``, one part after the other."""
        if not parts:
            return cls.from_bytes([])
        shifts = np.cumsum([0] + [part.data.size for part in parts[:-1]])
        offsets = np.concatenate([parts[0].offsets[:1]] + [
            part.offsets[1:] + shift for part, shift in zip(parts, shifts, strict=True)
        ])
        return cls(np.concatenate([part.data for part in parts]), offsets)

    def __len__(self) -> int:
        return self.offsets.size - 1

    @property
    def size(self) -> int:
        """The number of ids (as a numpy array's ``size``)."""
        return len(self)

    @property
    def lengths(self) -> NDArray[np.int64]:
        """The length of every id in bytes."""
        return np.diff(self.offsets)

    @overload
    def __getitem__(self, index: int | np.integer) -> bytes: ...
    @overload
    def __getitem__(self, index: NDArray[np.bool_]) -> Ids: ...
    def __getitem__(self, index: int | np.integer | NDArray[np.bool_]) -> bytes | Ids:
        """One id as bytes, or the ids a boolean mask selects (in order) as new ``Ids``."""
        if isinstance(index, np.ndarray):
            if index.dtype != np.bool_ or index.shape != (len(self),):
                raise TypeError("Ids are selected by one index or by a boolean mask over all ids")
            lengths = self.lengths[index]
            offsets = np.zeros(lengths.size + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            return Ids(self.data[np.repeat(index, self.lengths)], offsets)
        position = int(index)
        return self.data[self.offsets[position] : self.offsets[position + 1]].tobytes()

    def __iter__(self) -> Iterator[bytes]:
        data = self.data.tobytes()
        bounds = self.offsets.tolist()
        return (data[start:stop] for start, stop in pairwise(bounds))

    def as_bytes(self, rows: NDArray[np.integer]) -> list[bytes]:
        """The ids ``rows`` as Python bytes objects."""
        return [self[int(row)] for row in rows]

    def hash(self) -> NDArray[np.uint64]:
        """64-bit FNV-1a of every id, vectorised over ids, one byte position at a time."""
        value = np.full(len(self), _FNV_OFFSET, dtype=np.uint64)
        order, starts, active = _by_length(self.offsets[:-1], self.lengths)
        hashed = value[order]
        prime = np.uint64(_FNV_PRIME)
        with np.errstate(over="ignore"):
            for position, count in enumerate(active):
                hashed[:count] ^= self.data[starts[:count] + position]
                hashed[:count] *= prime
        value[order] = hashed
        return value

    def equal(self, rows: NDArray[np.integer], other: Ids, other_rows: NDArray[np.integer]) -> NDArray[np.bool_]:
        """Whether id ``rows[i]`` equals ``other``'s id ``other_rows[i]``, for every ``i`` (exact)."""
        lengths = self.lengths[rows]
        same: NDArray[np.bool_] = lengths == other.lengths[other_rows]
        candidates = np.flatnonzero(same)
        order, starts, active = _by_length(self.offsets[rows[candidates]], lengths[candidates])
        other_starts = other.offsets[other_rows[candidates]][order]
        differs = np.zeros(candidates.size, dtype=bool)
        for position, count in enumerate(active):
            differs[:count] |= self.data[starts[:count] + position] != other.data[other_starts[:count] + position]
        same[candidates[order[differs]]] = False
        return same


def _by_length(
    starts: NDArray[np.int64], lengths: NDArray[np.int64]
) -> tuple[NDArray[np.intp], NDArray[np.int64], list[int]]:
    """Ids ordered by length, longest first: the order, their starts, and per byte position how many
    ids are longer than it (a prefix of the order)."""
    order = np.argsort(-lengths, kind="stable")
    longest = int(lengths[order[0]]) if order.size else 0
    # ids longer than position p: those of length > p, a prefix since lengths are descending
    counts = np.bincount(lengths, minlength=longest + 1)
    longer = (lengths.size - np.cumsum(counts))[:longest].tolist()
    return order, starts[order], longer
