"""The DCG kernels: DCG of a block of rows at several cut-offs, and the ideal rows, sorted once.

The arithmetic is that of the single-query functions (gain times discount, summed in rank
order), so that every value agrees with them exactly.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..measures import _discounts, _gains
from .grades import _check_grades


def _dcg_at(
    grades: NDArray[np.float64], cutoffs: tuple[int | None, ...], gain: str, *, negated: bool = False
) -> NDArray[np.float64]:
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


def _relevant_columns(negated: NDArray[np.float64]) -> int:
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


def _negated_descending(grades: NDArray[np.float64], name: str, offset: int) -> NDArray[np.float64]:
    """Each row's grades in descending order, negated: ``-grades`` sorted in place (no extra copy).

    Checks the grades on the way (as :func:`_check_grades`), from the sorted rows' ends only:
    a negative grade or a NaN sorts last, an infinite grade first or last.
    """
    negated = np.negative(grades)
    negated.sort(axis=1)
    if negated.size and not (negated[:, -1].max() <= 0 and np.isfinite(negated[:, 0]).all()):
        _check_grades(grades, name, offset)
    return negated
