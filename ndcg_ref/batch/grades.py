"""Grade matrices: user input as a 2-D float64 array padded with zeros, and the checks on grades."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


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
        matrix = _pad(rels, name)
    else:
        raise TypeError(f"{name} must be a 2-D array or a list of lists of grades, got {type(rels).__name__}")
    if check:
        _check_grades(matrix, name)
    return matrix


def _pad(rows: Sequence[Sequence[object]], name: str) -> NDArray[np.float64]:
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
                    raise TypeError(
                        f"{name}[{index}][{rank}] must be a number, got {type(value).__name__} {value!r}"
                    ) from error
        raise TypeError(f"{name} holds something that is not a number: {error}") from error
    matrix[mask] = flat
    return matrix


def _check_grades(matrix: NDArray[np.float64], name: str, offset: int = 0) -> None:
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


def _check_coverage(ranked: NDArray[np.float64], ideal: NDArray[np.float64], offset: int) -> None:
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
