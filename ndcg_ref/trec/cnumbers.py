"""C's ``atof`` and ``atol`` over arrays of byte tokens: the numbers trec_eval reads, vectorised.

trec_eval reads a run's score with ``atof`` and a judgement's relevance with ``atol`` (C
library, "C" locale). Both convert the longest prefix of the token that forms a number and
ignore the rest, and give 0 where no prefix does: ``1_0`` is 1, ``1.5`` as a relevance is 1,
``0x37`` as a relevance is 0, ``high`` is 0. Python (and numpy's ``astype``) reads ``1_0`` as 10
and refuses the others, so the tokens are never handed to it whole unless C would read them whole.

The prefix is found by a small automaton run over all tokens at once, one byte column per step
(no Python loop per token). The grammar, from C's ``strtod`` and ``strtol``:

- ``atol``: ``[+-]? digits``; clamped to the int64 range (glibc's ``atol`` is ``strtol``);
- ``atof``: ``[+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?`` (an exponent
  counts only with at least one digit), or ``[+-]? 0[xX]`` and a hexadecimal mantissa with an
  optional ``[pP] [+-]? digits`` exponent, or ``[+-]? inf``/``infinity``/``nan`` in any case.

Hexadecimal scores are rare: they are converted one token at a time (``float.fromhex``).
"""

from __future__ import annotations

import re
from typing import Final, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["c_atof", "c_atol"]

_DIGITS = b"0123456789"
_N = TypeVar("_N", np.float64, np.int64)


def _automaton(edges: dict[int, dict[bytes, int]], states: int) -> NDArray[np.uint8]:
    """A (states + 1) x 256 transition table; the last state is the dead one (no number)."""
    dead = states
    table = np.full((states + 1, 256), dead, dtype=np.uint8)
    for state, moves in edges.items():
        for characters, target in moves.items():
            table[state, list(characters)] = target
    return table


# atof's decimal grammar: 0 start, 1 sign, 2 integer digits, 3 a point before any digit,
# 4 fraction digits, 5 an "e", 6 the exponent's sign, 7 exponent digits.
_DECIMAL: Final = _automaton(
    {
        0: {b"+-": 1, _DIGITS: 2, b".": 3},
        1: {_DIGITS: 2, b".": 3},
        2: {_DIGITS: 2, b".": 4, b"eE": 5},
        3: {_DIGITS: 4},
        4: {_DIGITS: 4, b"eE": 5},
        5: {b"+-": 6, _DIGITS: 7},
        6: {_DIGITS: 7},
        7: {_DIGITS: 7},
    },
    8,
)
_DECIMAL_ACCEPTS: Final = np.isin(np.arange(9), (2, 4, 7))

# atol's grammar: 0 start, 1 sign, 2 digits.
_INTEGER: Final = _automaton({0: {b"+-": 1, _DIGITS: 2}, 1: {_DIGITS: 2}, 2: {_DIGITS: 2}}, 3)
_INTEGER_ACCEPTS: Final = np.isin(np.arange(4), (2,))

_HEX: Final = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_INT64_DIGITS: Final = 18  # every integer of up to 18 digits fits in int64


def _columns(tokens: NDArray[np.bytes_]) -> NDArray[np.uint8]:
    """The tokens as a (tokens x width) byte matrix, NUL-padded."""
    width = max(tokens.dtype.itemsize, 1)
    return np.ascontiguousarray(tokens.astype(f"S{width}", copy=False)).view(np.uint8).reshape(tokens.size, width)


def _as_python_reads(tokens: NDArray[np.bytes_], columns: NDArray[np.uint8], dtype: type[_N]) -> NDArray[_N] | None:
    """The tokens as numpy reads them, where that is C's reading of every one of them; else None.

    numpy reads bytes with Python's float() and int() grammars: C's strtod and strtol taken
    whole (decimal, "inf", "infinity", "nan"; Python has no hexadecimal and no "nan(...)") plus
    blanks around the number (a field has none) and "_" between digits ("1_0" is 10 there, 1
    in C). So without a "_", a token numpy reads at all is one C reads whole, to the same number
    (both round correctly); a token C reads only a prefix of, or none of, makes numpy raise.
    """
    if (columns == ord("_")).any():
        return None
    try:
        values: NDArray[_N] = tokens.astype(dtype)
    except (ValueError, OverflowError):
        return None
    return values


def _prefix_length(
    columns: NDArray[np.uint8], table: NDArray[np.uint8], accepts: NDArray[np.bool_]
) -> NDArray[np.intp]:
    """Length of the longest prefix of each row that the automaton accepts (0: none)."""
    dead = table.shape[0] - 1
    state = np.zeros(columns.shape[0], dtype=np.uint8)
    length = np.zeros(columns.shape[0], dtype=np.intp)
    for column in range(columns.shape[1]):
        state = table[state, columns[:, column]]
        length[accepts[state]] = column + 1
        if (state == dead).all():
            break
    return length


def _cut(columns: NDArray[np.uint8], length: NDArray[np.intp]) -> NDArray[np.bytes_]:
    """Each row's first ``length`` bytes as a bytes token (``b"0"`` where ``length`` is 0)."""
    kept = np.where(np.arange(columns.shape[1]) < length[:, None], columns, np.uint8(0))
    kept[length == 0, 0] = ord("0")
    tokens: NDArray[np.bytes_] = np.ascontiguousarray(kept).view(f"S{columns.shape[1]}").ravel()
    return tokens


def c_atol(tokens: NDArray[np.bytes_]) -> NDArray[np.int64]:
    """C's ``atol`` of each bytes token (glibc: ``strtol`` base 10, clamped to int64).

    Examples
    --------
    >>> c_atol(np.array([b"2", b"-1", b"1.5", b"1_0", b"0x37", b"1e+8", b"+", b"high"])).tolist()
    [2, -1, 1, 1, 0, 1, 0, 0]
    """
    if tokens.size == 0:
        return np.zeros(0, dtype=np.int64)
    columns = _columns(tokens)
    whole = _as_python_reads(tokens, columns, np.int64)
    if whole is not None:
        return whole
    length = _prefix_length(columns, _INTEGER, _INTEGER_ACCEPTS)
    signed = (columns[:, 0] == ord("+")) | (columns[:, 0] == ord("-"))
    long = length - signed > _INT64_DIGITS
    values: NDArray[np.int64] = _cut(columns, np.where(long, 0, length)).astype(np.int64)
    for i in np.flatnonzero(long):  # may overflow: clamp as strtol does (rare, so one token at a time)
        value = int(bytes(columns[i, : length[i]]))
        values[i] = min(max(value, -(2**63)), 2**63 - 1)
    return values


def _special(columns: NDArray[np.uint8]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Tokens that C reads as infinity, as NaN and as a hexadecimal number (after the sign)."""
    sign = ((columns[:, 0] == ord("+")) | (columns[:, 0] == ord("-"))).astype(np.intp)
    padded = np.concatenate([columns, np.zeros((columns.shape[0], 4), dtype=np.uint8)], axis=1)
    rows = np.arange(columns.shape[0])
    body = [padded[rows, sign + i] | np.uint8(0x20) for i in range(3)]  # lower case of letters

    def spells(word: bytes) -> NDArray[np.bool_]:
        found: NDArray[np.bool_] = (body[0] == word[0]) & (body[1] == word[1]) & (body[2] == word[2])
        return found

    hexadecimal: NDArray[np.bool_] = (padded[rows, sign] == ord("0")) & (body[1] == ord("x"))
    return spells(b"inf"), spells(b"nan"), hexadecimal


def c_atof(tokens: NDArray[np.bytes_]) -> NDArray[np.float64]:
    """C's ``atof`` of each bytes token ("C" locale): the number its longest numeric prefix spells.

    NaN comes back as NaN, for the caller to decide about.

    Examples
    --------
    >>> c_atof(np.array([b"2.5", b"1_0", b"1e", b"1e-1x", b".5.5", b"-inf", b"0x1p4", b"0x", b"high"])).tolist()
    [2.5, 1.0, 1.0, 0.1, 0.5, -inf, 16.0, 0.0, 0.0]
    """
    if tokens.size == 0:
        return np.zeros(0, dtype=np.float64)
    columns = _columns(tokens)
    whole = _as_python_reads(tokens, columns, np.float64)
    if whole is not None:
        return whole
    values: NDArray[np.float64] = _cut(columns, _prefix_length(columns, _DECIMAL, _DECIMAL_ACCEPTS)).astype(np.float64)
    infinite, not_a_number, hexadecimal = _special(columns)
    negative = columns[:, 0] == ord("-")
    values[infinite] = np.where(negative[infinite], -np.inf, np.inf)
    values[not_a_number] = np.nan
    for i in np.flatnonzero(hexadecimal):  # rare: one token at a time
        match = _HEX.match(bytes(columns[i]).rstrip(b"\0"))
        if match:  # else "0x" has no hexadecimal digit after it: C reads the "0"
            values[i] = float.fromhex(match.group().decode("ascii"))
    return values
