"""Grade matrices: user input as a 2-D float64 array padded with zeros, and the checks on grades."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.typing import NDArray

from .ragged import Ragged


def as_grade_matrix(rels: object, name: str = "rels", *, check: bool = True) -> NDArray[np.float64]:
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
        ragged = Ragged.from_lists(rels, name)
        widest = int(ragged.lengths.max()) if len(ragged) else 0
        matrix = ragged.dense(np.arange(len(ragged)), widest)
    else:
        raise TypeError(f"{name} must be a 2-D array or a list of lists of grades, got {type(rels).__name__}")
    if check:
        _check_grades(matrix, name)
    return matrix


def as_grade_rows(rels: object, name: str = "rels") -> NDArray[np.float64] | Ragged:
    """A 2-D array as a float64 matrix (as :func:`as_grade_matrix`); lists of lists and
    :class:`Ragged` rows as :class:`Ragged` (stored flat, never padded to the longest row).

    Grades are not checked here (see :func:`_check_grades` and :func:`_check_ragged`).
    """
    if isinstance(rels, Ragged):
        return rels
    if isinstance(rels, Sequence) and not isinstance(rels, (str, bytes)):
        return Ragged.from_lists(rels, name)
    return as_grade_matrix(rels, name, check=False)


def _check_grades(matrix: NDArray[np.float64], name: str, offset: int = 0) -> None:
    """Raise for the first grade that is negative, NaN or infinite; ``offset`` is the first row's query."""
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite grades may overflow the sum
        fine = matrix.size == 0 or (matrix.min() >= 0 and np.isfinite(matrix.sum()))
    if fine:
        return  # the common case, in two reductions; find the culprit only when there is one
    bad = ~np.isfinite(matrix) | (matrix < 0)
    if bad.any():
        query, rank = (int(i) for i in np.argwhere(bad)[0])
        value = matrix[query, rank]
        query += offset
        problem = "relevance grades must be >= 0" if np.isfinite(value) else "relevance grades must be finite numbers"
        raise ValueError(f"{name}[{query}][{rank}] is {value:g}: {problem}")


def _check_ragged(rows: Ragged, name: str) -> None:
    """Raise for the first grade (in row order) that is negative, NaN or infinite."""
    values = rows.values
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite grades may overflow the sum
        fine = values.size == 0 or (values.min() >= 0 and np.isfinite(values.sum()))
    if fine:
        return
    position = int(np.flatnonzero(~np.isfinite(values) | (values < 0))[0])
    query = int(np.searchsorted(rows.offsets, position, side="right")) - 1
    value = values[position]
    problem = "relevance grades must be >= 0" if np.isfinite(value) else "relevance grades must be finite numbers"
    raise ValueError(f"{name}[{query}][{position - rows.offsets[query]}] is {value:g}: {problem}")


def _uncovered(ranked: NDArray[np.float64], ideal: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Rows whose ranking's i-th best grade exceeds its ideal's for some i (both negated, descending)."""
    width = min(ranked.shape[1], ideal.shape[1])
    # negated: a larger grade is a smaller number; past the ideal's end its grades are 0
    short = (ranked[:, :width] < ideal[:, :width]).any(axis=1)
    beyond = (ranked[:, width:] < 0).any(axis=1)
    # rows reduced over axis 1: an array (numpy's stubs do not track ndim, so they allow a scalar too)
    return cast("NDArray[np.bool_]", short | beyond)


def _coverage_error(query: int) -> ValueError:
    return ValueError(
        f"ideal[{query}] must hold the grades of all relevant documents of query {query}, "
        "but the ranking has relevant grades it does not cover"
    )


def _check_coverage(ranked: NDArray[np.float64], ideal: NDArray[np.float64], offset: int) -> None:
    """Each ranking's i-th best grade must not exceed its ideal's (both negated, descending)."""
    uncovered = _uncovered(ranked, ideal)
    if uncovered.any():
        raise _coverage_error(offset + int(np.flatnonzero(uncovered)[0]))
