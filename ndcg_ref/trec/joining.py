"""Joining a run with its qrels: query indices, and a hash join that finds every run line's grade.

A (query, docno) pair that occurs twice in a file is an error, reported with both lines.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import cast

import numpy as np
from numpy.typing import NDArray

from .data import Qrels, Run, TrecFormatError


def _query_index(
    qrels_qids: NDArray[np.bytes_], run_qids: NDArray[np.bytes_]
) -> tuple[NDArray[np.bytes_], NDArray[np.intp]]:
    """Unique qids and, for every qrels line then every run line, the index of its qid."""
    width = max(qrels_qids.dtype.itemsize, run_qids.dtype.itemsize, 1)
    both = np.concatenate([qrels_qids.astype(f"S{width}", copy=False), run_qids.astype(f"S{width}", copy=False)])
    if both.size == 0:
        return np.empty(0, dtype=f"S{width}"), np.empty(0, dtype=np.int64)
    # Files are grouped by query: find runs of equal qids first, then sort only their first values.
    words = _words(both, width)
    change = np.concatenate(([True], (words[1:] != words[:-1]).any(axis=1)))
    segment = np.cumsum(change) - 1
    unique, segment_id = np.unique(both[change], return_inverse=True)
    return unique, segment_id[segment]


_FNV_PRIME = 0x100000001B3
_FNV_INVERSE = pow(_FNV_PRIME, -1, 2**64)  # the prime is odd, so it has an inverse modulo 2**64


def _hash(tokens: NDArray[np.bytes_]) -> NDArray[np.uint64]:
    """64-bit FNV-1a of each bytes token (vectorised over tokens), without the array's NUL padding.

    numpy pads every token to the array's width with NUL bytes, and the run's and the qrels'
    arrays have widths of their own: hashing the padding gave the same document two keys (and
    every query nDCG 0) whenever the longest ids of the two files differed in length. A NUL byte
    only multiplies FNV-1a's state by the prime, so the hash of the full width is multiplied back
    by the prime's inverse once per padding byte (exact, in one pass).
    """
    width = tokens.dtype.itemsize
    columns = np.ascontiguousarray(tokens).view(np.uint8).reshape(-1, width)
    value = np.full(tokens.size, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(_FNV_PRIME)
    with np.errstate(over="ignore"):
        for column in range(width):
            value ^= columns[:, column]
            value *= prime
        padding = width - np.char.str_len(tokens)  # bytes after the last one that is not NUL
        undo = np.array([pow(_FNV_INVERSE, n, 2**64) for n in range(width + 1)], dtype=np.uint64)
        value *= undo[padding]
    return value


def _keys(query_index: NDArray[np.intp], docnos: NDArray[np.bytes_]) -> NDArray[np.uint64]:
    with np.errstate(over="ignore"):
        return _hash(docnos) ^ (query_index.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _words(tokens: NDArray[np.bytes_], width: int) -> NDArray[np.uint64]:
    """Fixed-width bytes tokens as rows of 64-bit words, for exact and fast comparison."""
    padded = -(-width // 8) * 8
    words = np.ascontiguousarray(tokens.astype(f"S{padded}", copy=False)).view(np.uint64)
    return words.reshape(tokens.size, padded // 8)


def _same(a: NDArray[np.bytes_], b: NDArray[np.bytes_]) -> NDArray[np.bool_]:
    """Element-wise equality of two bytes arrays (exact)."""
    width = max(a.dtype.itemsize, b.dtype.itemsize, 1)
    equal: NDArray[np.bool_] = _words(a, width) == _words(b, width)
    # rows reduced over axis 1: an array (numpy's stubs do not track ndim, so they allow a scalar too)
    return cast("NDArray[np.bool_]", equal.all(axis=1))


def _sorted_checking_duplicates(
    keys: NDArray[np.uint64],
    query_index: NDArray[np.intp],
    docnos: NDArray[np.bytes_],
    lines: NDArray[np.int64],
    source: str,
) -> NDArray[np.intp]:
    """The order that sorts ``keys``; raises if a (query, docno) pair occurs twice.

    Equal keys are either the same document twice or a hash collision: each group of equal
    keys is checked exactly (groups are rare and small, so a Python loop over them is cheap).
    """
    order = np.argsort(keys)
    sorted_keys = keys[order]
    equal_next = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if equal_next.size == 0:
        return order
    # a group of equal keys is a run of consecutive positions in equal_next, one longer than it
    breaks = np.flatnonzero(np.diff(equal_next) != 1)
    group_starts = equal_next[np.concatenate(([0], breaks + 1))]
    group_stops = equal_next[np.concatenate((breaks, [-1]))] + 2
    first_of: dict[tuple[int, bytes], int] = {}
    for start, stop in zip(group_starts, group_stops, strict=True):
        first_of.clear()
        for line in sorted(order[start:stop]):  # file order: report the earlier line first
            seen = first_of.setdefault((int(query_index[line]), bytes(docnos[line])), line)
            if seen != line:
                raise TrecFormatError(
                    f"{source}, lines {lines[seen]} and {lines[line]}: "
                    f"document {docnos[line].decode(errors='replace')!r} appears twice for the same query"
                )
    return order


def _sorted_keys(
    query_index: NDArray[np.intp], docnos: NDArray[np.bytes_], lines: NDArray[np.int64], source: str
) -> tuple[NDArray[np.uint64], NDArray[np.intp]]:
    """The join keys of the lines and the order that sorts them (duplicates raise)."""
    keys = _keys(query_index, docnos)
    return keys, _sorted_checking_duplicates(keys, query_index, docnos, lines, source)


def _grades_of_run(run: Run, run_q: NDArray[np.intp], qrels: Qrels, qrels_q: NDArray[np.intp]) -> NDArray[np.int64]:
    """The qrels grade of every run line (0 for unjudged documents).

    A hash join: both sides' keys are sorted (in parallel), the run's keys are looked up in the
    qrels' in two halves (in parallel), and every match is verified on query and docno, so a
    hash collision costs time, never a wrong grade.
    """
    grades = np.zeros(run_q.size, dtype=np.int64)
    with ThreadPoolExecutor(2) as pool:  # numpy releases the GIL in sorts, searches and gathers
        qrels_sorting = pool.submit(_sorted_keys, qrels_q, qrels.docnos, qrels.lines, qrels.source)
        try:
            run_keys, run_order = _sorted_keys(run_q, run.docnos, run.lines, run.source)
        finally:
            qrels_keys, qrels_order = qrels_sorting.result()  # a duplicate in the qrels is reported first
        if qrels_keys.size == 0 or run_keys.size == 0:
            return grades
        sorted_keys = qrels_keys[qrels_order]

        def match(start: int, stop: int) -> NDArray[np.intp]:
            """Set the grades of run lines run_order[start:stop]; return lines left to settle."""
            wanted = run_keys[run_order[start:stop]]  # sorted needles: a cache-friendly search
            position = np.minimum(np.searchsorted(sorted_keys, wanted), sorted_keys.size - 1)
            found: NDArray[np.bool_] = sorted_keys[position] == wanted
            line = run_order[start:stop][found]  # run lines whose key is in the qrels
            candidate = qrels_order[position[found]]
            same_query: NDArray[np.bool_] = qrels_q[candidate] == run_q[line]
            exact = same_query & _same(qrels.docnos[candidate], run.docnos[line])
            grades[line[exact]] = qrels.grades[candidate[exact]]
            return line[~exact]

        half = run_order.size // 2
        unsettled = np.concatenate(list(pool.map(match, (0, half), (half, run_order.size))))
    if unsettled.size:  # a hash collision: settle those lines exactly
        lookup = {(int(q), d): int(g) for q, d, g in zip(qrels_q, qrels.docnos, qrels.grades, strict=True)}
        for i in unsettled:
            grades[i] = lookup.get((int(run_q[i]), run.docnos[i]), 0)
    return grades
