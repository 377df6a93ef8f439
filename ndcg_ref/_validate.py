"""Input checks shared by every measure: turn user input into a clean 1-D float array."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

#: What the measures accept as a ranking: a list, tuple or 1-D numpy array of grades.
Relevances: TypeAlias = Sequence[float] | NDArray[np.bool_ | np.integer[Any] | np.floating[Any]]


def as_relevances(values: object, name: str = "rels") -> NDArray[np.float64]:
    """Return ``values`` as a new 1-D float64 array of finite, non-negative grades.

    Raises ``TypeError`` for things that are not a sequence of numbers (a string, a dict, None,
    a sequence holding strings) and ``ValueError`` for nested sequences, NaN, infinities and
    negative grades. The caller's object is never modified (a copy is always returned).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a list, tuple or 1-D numpy array of numbers, got a string {values!r}")
    if not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name} must be a list, tuple or 1-D numpy array of numbers, got {type(values).__name__}"
        )
    if isinstance(values, np.ndarray):
        array = values
    else:
        for position, item in enumerate(values):
            if isinstance(item, (str, bytes)) or not isinstance(item, (numbers.Real, np.generic)):
                if isinstance(item, (Sequence, np.ndarray)) and not isinstance(item, (str, bytes)):
                    raise ValueError(
                        f"{name} must be a flat list of numbers, but {name}[{position}] is a nested sequence"
                    )
                raise TypeError(
                    f"{name}[{position}] must be a number, got {type(item).__name__} {item!r}"
                )
        array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got an array of shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got an array of dtype {array.dtype}")
    result = array.astype(np.float64, copy=True)
    if not np.all(np.isfinite(result)):
        position = int(np.flatnonzero(~np.isfinite(result))[0])
        raise ValueError(f"{name}[{position}] is {result[position]}: relevance grades must be finite numbers")
    if np.any(result < 0):
        position = int(np.flatnonzero(result < 0)[0])
        raise ValueError(
            f"{name}[{position}] is {result[position]:g}: relevance grades must be >= 0 "
            "(use 0 for a non-relevant document)"
        )
    return result


def as_cutoff(k: object, name: str = "k") -> int | None:
    """Return the cut-off ``k`` as an ``int`` (``None`` means the whole list).

    Raises ``TypeError`` for a bool or a non-integer (``5.0`` included) and ``ValueError`` for
    ``k < 1``.
    """
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be a positive integer or None, got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be at least 1 (the number of top ranks to evaluate), got {k}")
    return int(k)
