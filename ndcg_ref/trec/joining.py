"""Joining a run with its qrels: query indices, and a hash join that finds every run line's grade.

A (query, docno) pair that occurs twice in a file is an error, reported with both lines.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from .data import Qrels, Run, TrecFormatError
from .ids import Ids


def _query_index(qrels_qids: Ids, run_qids: Ids) -> tuple[NDArray[np.object_], NDArray[np.intp]]:
    """Unique qids (bytes, sorted) and, for every qrels line then every run line, the index of its qid."""
    both = Ids.concatenate([qrels_qids, run_qids])
    if both.size == 0:
        return np.empty(0, dtype=object), np.empty(0, dtype=np.intp)
    # Files are grouped by query: find runs of equal qids first, then index only their first ids.
    change = np.ones(both.size, dtype=bool)
    change[1:] = ~both.equal(slice(1, None), both, slice(None, -1))
    segment = np.cumsum(change) - 1
    firsts = both[change]
    _, representative, group = np.unique(firsts.hash(), return_index=True, return_inverse=True)
    if firsts.equal(np.arange(firsts.size), firsts, representative[group]).all():
        names = firsts.as_bytes(representative)
    else:  # two qids with one hash: group them exactly (never seen in practice, but possible)
        index: dict[bytes, int] = {}
        group = np.array([index.setdefault(name, len(index)) for name in firsts], dtype=np.intp)
        names = list(index)
    ranks = np.empty(len(names), dtype=np.intp)
    ordering = sorted(range(len(names)), key=names.__getitem__)  # one Python sort over the queries, not the lines
    ranks[ordering] = np.arange(len(names))
    unique = np.empty(len(names), dtype=object)
    unique[:] = [names[i] for i in ordering]
    return unique, ranks[group][segment]


def _keys(query_index: NDArray[np.intp], docnos: Ids) -> NDArray[np.uint64]:
    with np.errstate(over="ignore"):
        return docnos.hash() ^ (query_index.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _sorted_checking_duplicates(
    keys: NDArray[np.uint64],
    query_index: NDArray[np.intp],
    docnos: Ids,
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
            seen = first_of.setdefault((int(query_index[line]), docnos[line]), line)
            if seen != line:
                raise TrecFormatError(
                    f"{source}, lines {lines[seen]} and {lines[line]}: "
                    f"document {docnos[line].decode(errors='replace')!r} appears twice for the same query"
                )
    return order


def _sorted_keys(
    query_index: NDArray[np.intp], docnos: Ids, lines: NDArray[np.int64], source: str
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
            exact = same_query & qrels.docnos.equal(candidate, run.docnos, line)
            grades[line[exact]] = qrels.grades[candidate[exact]]
            return line[~exact]

        half = run_order.size // 2
        unsettled = np.concatenate(list(pool.map(match, (0, half), (half, run_order.size))))
    if unsettled.size:  # a hash collision: settle those lines exactly
        lookup = {(int(q), d): int(g) for q, d, g in zip(qrels_q, qrels.docnos, qrels.grades, strict=True)}
        for i in unsettled:
            grades[i] = lookup.get((int(run_q[i]), run.docnos[i]), 0)
    return grades
