"""DCG and ideal DCG of ragged rows: blocks of rows of similar length, each through the dense kernels.

A block is padded only to its own longest row (zeros add exactly 0), so every row's values are
those of the dense kernels, and so those of the single-query functions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..measures import Gain
from .grades import _check_ragged, _coverage_error, _uncovered
from .kernels import _dcg_at, _negated_descending
from .parallel import _for_each_block
from .ragged import Ragged, _blocks


def _as_ragged(rows: NDArray[np.float64] | Ragged) -> Ragged:
    return rows if isinstance(rows, Ragged) else Ragged.from_matrix(rows)


def _needed(cutoffs: tuple[int | None, ...]) -> int | None:
    """How many leading ranks the DCG at ``cutoffs`` reads: the largest cut-off, or None (all)."""
    return None if None in cutoffs else max(k for k in cutoffs if k is not None)


def _ragged_dcg(rows: Ragged, cutoffs: tuple[int | None, ...], gain: Gain) -> NDArray[np.float64]:
    """DCG of every row at the cut-offs (rows x cut-offs); ranks beyond the largest cut-off are not read."""
    _check_ragged(rows, "rels")
    lengths = rows.lengths
    needed = _needed(cutoffs)
    if needed is not None:
        lengths = np.minimum(lengths, needed)
    out = np.empty((len(rows), len(cutoffs)))

    def work(block: NDArray[np.int64]) -> None:
        out[block] = _dcg_at(rows.dense(block, int(lengths[block].max())), cutoffs, gain)

    _for_each_block(_blocks(lengths), work)
    return out


def _ragged_ideal_and_actual(
    rows: Ragged, best: Ragged | None, cutoffs: tuple[int | None, ...], gain: Gain, actual: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Ideal DCG and, with ``actual``, DCG of every row at the cut-offs, in blocks of similar lengths.

    Blocks are grouped by the lengths of both the ranking and its ideal, so that neither is padded
    much. A ranking that its ideal does not cover raises for the first such query in row order.
    """
    _check_ragged(rows, "rels")
    if best is not None:
        _check_ragged(best, "ideal")
    lengths = rows.lengths
    ideal_lengths = None if best is None else best.lengths
    blocks = _blocks(lengths) if ideal_lengths is None else _blocks(lengths, ideal_lengths)
    ideal_out = np.empty((len(rows), len(cutoffs)))
    actual_out = np.empty_like(ideal_out) if actual else None
    uncovered = np.zeros(len(rows), dtype=bool)

    def work(block: NDArray[np.int64]) -> None:
        chunk = rows.dense(block, int(lengths[block].max()))
        ranked_sorted = _negated_descending(chunk, "rels", 0)  # checked above: nothing to report here
        if best is None or ideal_lengths is None:
            ideal_sorted = ranked_sorted
        else:
            ideal_sorted = _negated_descending(best.dense(block, int(ideal_lengths[block].max())), "ideal", 0)
            uncovered[block] = _uncovered(ranked_sorted, ideal_sorted)
        ideal_out[block] = _dcg_at(ideal_sorted, cutoffs, gain, negated=True)
        if actual_out is not None:
            actual_out[block] = _dcg_at(chunk, cutoffs, gain)

    _for_each_block(blocks, work)
    if uncovered.any():
        raise _coverage_error(int(np.flatnonzero(uncovered)[0]))
    return ideal_out, actual_out
