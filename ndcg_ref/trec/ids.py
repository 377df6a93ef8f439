"""Query and document ids stored ragged: one byte buffer and offsets, so memory follows the input.

A fixed-width numpy bytes array pads every id to the longest one: one 3,000-character docno in a
run of a million lines made 3 GB of padding. Here id ``i`` is ``data[offsets[i]:offsets[i + 1]]``,
and hashing and comparing ids loop over 8-byte words, not over ids (word ``k`` touches only the
ids longer than ``8 k``): time and memory follow the bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import overload

import numpy as np
from numpy.typing import NDArray

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = 0x100000001B3


@dataclass(frozen=True, eq=False)  # arrays inside: == would compare element-wise, so identity
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

        Gathered through one index per byte of the tokens (not per byte of the buffer: the ids
        are a small part of a file's bytes).
        """
        offsets = np.zeros(starts.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # byte j of token i sits at starts[i] + j, and lands at offsets[i] + j
        index = np.repeat(starts - offsets[:-1], lengths)
        index += np.arange(index.size)
        return cls(buffer[index], offsets)

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

    @cached_property
    def lengths(self) -> NDArray[np.int64]:
        """The length of every id in bytes (computed once: the join reads it several times)."""
        return np.diff(self.offsets)

    @cached_property
    def _words(self) -> NDArray[np.uint64]:
        """Word ``k`` is bytes ``k`` to ``k + 7`` as a little-endian integer (an unaligned view; past
        the end, zeros): ids are hashed and compared eight bytes at a time."""
        padded = np.zeros(self.data.size + 8, dtype=np.uint8)
        padded[: self.data.size] = self.data
        return np.ndarray((self.data.size + 1,), dtype="<u8", buffer=padded, strides=(1,))

    @cached_property
    def _head(self) -> NDArray[np.uint64]:
        """Every id's first eight bytes (fewer for short ids, the rest zero): all of most ids, in
        one aligned array, so that the join's comparisons gather one word per id."""
        head: NDArray[np.uint64] = self._words[self.offsets[:-1]] & _low_bytes(self.lengths)
        return head

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

    def tolist(self) -> list[bytes]:
        """Every id as a Python bytes object (as a numpy bytes array's ``tolist``)."""
        return list(self)

    def as_bytes(self, rows: NDArray[np.integer]) -> list[bytes]:
        """The ids ``rows`` as Python bytes objects."""
        return [self[int(row)] for row in rows]

    def hash(self) -> NDArray[np.uint64]:
        """A 64-bit hash of every id, vectorised over ids, eight bytes at a time.

        Each 8-byte word is mixed in as in FNV-1a (xor, multiply by the FNV prime), with a
        shift that carries high bits down, and the length last, so that ids that differ only in
        trailing NUL bytes differ too. Word ``k`` is read only for the ids longer than ``8 k``.
        """
        lengths, starts, words = self.lengths, self.offsets[:-1], self._words
        hashed = np.full(len(self), _FNV_OFFSET, dtype=np.uint64)
        prime, shift = np.uint64(_FNV_PRIME), np.uint64(29)

        def mix(values: NDArray[np.uint64], word: NDArray[np.uint64]) -> NDArray[np.uint64]:
            values ^= word
            values *= prime
            values ^= values >> shift
            return values

        with np.errstate(over="ignore"):
            mix(hashed, self._head)  # every id has a first word
            active, chunk = np.flatnonzero(lengths > 8), 1
            while active.size:
                word = words[starts[active] + 8 * chunk] & _low_bytes(lengths[active] - 8 * chunk)
                hashed[active] = mix(hashed[active], word)
                chunk += 1
                active = active[lengths[active] > 8 * chunk]
            return mix(hashed, lengths.astype(np.uint64))

    def equal(
        self, rows: NDArray[np.integer] | slice, other: Ids, other_rows: NDArray[np.integer] | slice
    ) -> NDArray[np.bool_]:
        """Whether id ``rows[i]`` equals ``other``'s id ``other_rows[i]``, for every ``i`` (exact).

        ``rows`` and ``other_rows`` are index arrays or slices (a slice takes no copy). Word ``k``
        is compared only for the pairs still equal and longer than ``8 k``.
        """
        lengths = self.lengths[rows]
        same: NDArray[np.bool_] = lengths == other.lengths[other_rows]
        same &= self._head[rows] == other._head[other_rows]
        active, chunk = np.flatnonzero(same & (lengths > 8)), 1
        if active.size:  # ids longer than eight bytes: the rest, word by word
            starts, other_starts = self.offsets[:-1][rows], other.offsets[:-1][other_rows]
            words, other_words = self._words, other._words
        while active.size:
            mask = _low_bytes(lengths[active] - 8 * chunk)
            equal = (words[starts[active] + 8 * chunk] & mask) == (other_words[other_starts[active] + 8 * chunk] & mask)
            same[active[~equal]] = False
            chunk += 1
            active = active[equal & (lengths[active] > 8 * chunk)]
        return same


#: ``_LOW_BYTES[n]`` keeps the first ``n`` bytes of a little-endian 64-bit word.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [2**64 - 1], dtype=np.uint64)


def _low_bytes(lengths: NDArray[np.int64]) -> NDArray[np.uint64]:
    """The mask that keeps the first ``min(length, 8)`` bytes of a word, for every length (>= 0).

    (``take`` with ``mode="clip"`` maps every length from 8 up to the full mask, and skips the
    bounds checks and the temporary of ``_LOW_BYTES[np.minimum(lengths, 8)]``: half the time.)
    """
    return np.take(_LOW_BYTES, lengths, mode="clip")
