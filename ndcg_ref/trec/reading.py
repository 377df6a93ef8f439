"""Reading TREC run and qrels files: a vectorised tokenizer over blocks of whole lines.

Files are parsed with numpy (no Python loop per line), in blocks, with an error naming the file
and line for anything malformed; nothing is silently dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from .data import Qrels, Run, TrecFormatError
from .ids import Ids

_BLOCK = 32 * 1024 * 1024
_RUN_COLUMNS = "qid Q0 docno rank score tag"
_QRELS_COLUMNS = "qid iteration docno relevance"

#: The column read as numbers: a run's scores or the qrels' grades.
_Number = TypeVar("_Number", np.float64, np.int64)


def _gather(padded: NDArray[np.uint8], starts: NDArray[np.intp], lengths: NDArray[np.intp]) -> NDArray[np.bytes_]:
    """The tokens padded[starts[i]:starts[i] + lengths[i]] as one fixed-width bytes array.

    ``padded`` must end with at least as many spare bytes as the longest token.
    """
    if starts.size == 0:
        return np.empty(0, dtype="S1")
    width = int(lengths.max())
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    raw = windows[starts]  # one contiguous copy of `width` bytes per token
    np.copyto(raw, 0, where=np.arange(width) >= lengths[:, None])  # clear what follows each token
    tokens: NDArray[np.bytes_] = raw.view(f"S{width}").ravel()
    return tokens


def _line_text(data: bytes, line_start: int) -> str:
    end = data.find(b"\n", line_start)
    text = data[line_start : end if end >= 0 else len(data)].decode(errors="replace").strip()
    return text if len(text) <= 120 else text[:117] + "..."


def _tokenize(
    data: bytes, columns: int, wanted: Sequence[int], path: str, first_line: int, layout: str
) -> tuple[list[Ids], NDArray[np.bytes_], NDArray[np.int64]]:
    """Tokens of the wanted columns of every non-blank line in ``data`` (whole lines only).

    The last wanted column (the numbers) comes as a fixed-width bytes array, the others as
    :class:`Ids` (ragged: one long id must not pad every other one).
    """
    array = np.frombuffer(data, dtype=np.uint8)
    if array.size == 0:
        return [Ids.from_bytes([]) for _ in wanted[:-1]], np.empty(0, dtype="S1"), np.empty(0, dtype=np.int64)
    inside = np.zeros(array.size + 2, dtype=bool)  # a token byte; a separator before and after all
    np.greater(array, 32, out=inside[1:-1])  # separators: space, tab, CR, LF, other control bytes
    # Tokens and separators alternate, so the changes alternate too: a token's start (separator
    # to token), then its end (token to separator, exclusive).
    changes = np.flatnonzero(inside[1:] != inside[:-1])
    starts, ends = changes[0::2], changes[1::2]
    newlines = np.flatnonzero(array == 10)
    # tokens per line: how many token starts lie before each newline, differenced
    before = np.searchsorted(starts, newlines)
    per_line = np.diff(before, prepend=0, append=starts.size)
    if data.endswith(b"\n"):
        per_line = per_line[:-1]  # nothing after the last newline
    bad = (per_line != 0) & (per_line != columns)
    if bad.any():
        line = int(np.flatnonzero(bad)[0])
        line_start = 0 if line == 0 else int(newlines[line - 1]) + 1
        raise TrecFormatError(
            f"{path}, line {first_line + line}: expected {columns} columns ({layout}), found {int(per_line[line])}: "
            f"{_line_text(data, line_start)!r}"
        )
    starts = starts.reshape(-1, columns)
    lengths = (ends.reshape(-1, columns) - starts)[:, wanted]
    lines = first_line + np.flatnonzero(per_line).astype(np.int64)
    ids = [Ids.from_tokens(array, starts[:, c], lengths[:, i]) for i, c in enumerate(wanted[:-1])]
    numbers = lengths[:, -1]
    padded = np.concatenate([array, np.zeros(int(numbers.max()) if numbers.size else 0, dtype=np.uint8)])
    return ids, _gather(padded, starts[:, wanted[-1]], numbers), lines


def _blocks(path: Path) -> Iterator[tuple[bytes, int]]:
    """``(data, first line number)`` for consecutive blocks of whole lines of the file."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by the with below: only open()'s error is turned into ours)
    except OSError as error:
        raise TrecFormatError(f"cannot read {path}: {error.strerror}") from error
    with handle:
        first_line, rest = 1, b""
        while True:
            block = handle.read(_BLOCK)
            data = rest + block
            if block:
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    rest = data
                    continue
                data, rest = data[:cut], data[cut:]
            yield data, first_line
            first_line += data.count(b"\n")
            if not block:
                return


def _read_columns(
    path: Path, columns: int, wanted: Sequence[int], layout: str, number: tuple[type[_Number], str]
) -> tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]:
    """Read a whitespace-separated file; return the wanted columns and the line numbers.

    The last wanted column is returned as numbers (``number`` is ``(dtype, what)``; ``what``
    names the column in messages), the others as :class:`Ids`.
    Blocks are parsed in two threads while the next block is read (numpy releases the GIL for
    most of the work); at most three blocks are in memory at once. An error is raised for the
    first bad line of the file.
    """

    dtype, what = number

    def parse(data: bytes, first_line: int) -> tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]:
        ids, tokens, lines = _tokenize(data, columns, wanted, str(path), first_line, layout)
        values = _numbers(tokens, dtype, str(path), lines, what)
        return ids, values, lines

    parsed: list[tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]] = []
    with ThreadPoolExecutor(2) as pool:
        pending: deque[Future[tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]]] = deque()
        try:
            for data, first_line in _blocks(path):
                pending.append(pool.submit(parse, data, first_line))
                while len(pending) > 2:
                    parsed.append(pending.popleft().result())
            while pending:
                parsed.append(pending.popleft().result())
        finally:
            for future in pending:
                future.cancel()
    texts = [Ids.concatenate([ids[i] for ids, _, _ in parsed]) for i in range(len(wanted) - 1)]
    return texts, np.concatenate([values for _, values, _ in parsed]), np.concatenate([lines for _, _, lines in parsed])


def _small_integers(tokens: NDArray[np.bytes_]) -> NDArray[np.int64] | None:
    """Single-digit tokens (most qrels grades) as integers without text parsing; None otherwise."""
    if tokens.dtype.itemsize != 1 or tokens.size == 0:
        return None
    digits = tokens.view(np.uint8) - np.uint8(ord("0"))
    if digits.max() > 9:  # also catches bytes below "0", which wrap around
        return None
    return digits.astype(np.int64)


def _numbers(
    tokens: NDArray[np.bytes_], dtype: type[_Number], path: str, lines: NDArray[np.int64], what: str
) -> NDArray[_Number]:
    if issubclass(dtype, np.int64):  # (not `dtype is np.int64`: mypy narrows dtype by issubclass only)
        fast = _small_integers(tokens)
        if fast is not None:
            return fast
    try:
        values = tokens.astype(dtype)
    except ValueError:
        values = None
    if values is not None and (dtype is not np.float64 or np.isfinite(values).all()):
        return values
    for token, line in zip(tokens, lines, strict=True):  # the slow path, only to name the bad line
        try:
            value = dtype(token.decode(errors="replace"))
        except ValueError:
            raise TrecFormatError(
                f"{path}, line {line}: {what} {token.decode(errors='replace')!r} is not a number"
            ) from None
        if not np.isfinite(value):
            raise TrecFormatError(
                f"{path}, line {line}: {what} {token.decode(errors='replace')!r} is not a finite number"
            )
    raise TrecFormatError(f"{path}: a {what} could not be read")


def read_run(path: str | Path) -> Run:
    """Read a TREC run file: ``qid Q0 docno rank score tag`` per line.

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line without exactly six columns, or a score that is not a
        finite number; the message names the file and line.
    """
    (qids, docnos), scores, lines = _read_columns(Path(path), 6, (0, 2, 4), _RUN_COLUMNS, (np.float64, "score"))
    return Run(qids, docnos, scores, lines, str(path))


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file: ``qid iteration docno relevance`` per line (integer relevance).

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line without exactly four columns, or a relevance that is not
        an integer; the message names the file and line.
    """
    (qids, docnos), grades, lines = _read_columns(Path(path), 4, (0, 2, 3), _QRELS_COLUMNS, (np.int64, "relevance"))
    return Qrels(qids, docnos, grades, lines, str(path))
