"""Reading TREC run and qrels files as trec_eval 10.0 does: a vectorised tokenizer over blocks of whole lines.

Files are parsed with numpy (no Python loop per line), in blocks, with an error naming the file
and line for anything trec_eval would refuse (and for a NUL byte or a NaN score, where its
answer is undefined). trec_eval's rules: fields are separated by C's whitespace; blank lines and
comment lines are skipped; a run line may have fields after the tag (ignored); numbers are read
with C's atof (scores) and atol (relevance), see :mod:`.cnumbers`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from .cnumbers import c_atof, c_atol
from .data import Qrels, Run, TrecFormatError
from .ids import Ids

_BLOCK = 32 * 1024 * 1024


@dataclass(frozen=True)
class _Layout:
    """How trec_eval reads one kind of file."""

    columns: int  # columns of a line
    wanted: tuple[int, ...]  # the columns kept; the last one is read as a number
    names: str  # the columns, for messages
    extra_ignored: bool  # fields after the last column: ignored (a run's) or an error (qrels)
    comment_after_blanks: bool  # a "#" after leading blanks still makes a comment line (a run's)


_RUN = _Layout(6, (0, 2, 4), "qid Q0 docno rank score tag", extra_ignored=True, comment_after_blanks=True)
_QRELS = _Layout(4, (0, 2, 3), "qid iteration docno relevance", extra_ignored=False, comment_after_blanks=False)

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


def _without_comments(
    array: NDArray[np.uint8], starts: NDArray[np.intp], ends: NDArray[np.intp], per_line: NDArray[np.intp],
    line_starts: NDArray[np.intp], after_blanks: bool,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """Drop the tokens of comment lines (trec_eval 10.0 skips them); they then count as blank lines.

    A comment line begins with "#": its first byte (qrels), or its first byte after leading
    blanks (a run). A "#" anywhere else is part of a field (MS MARCO ids such as ``doc#3``).
    """
    if starts.size == 0:
        return starts, ends, per_line
    # (a line without a token may point one past the last token or byte: it is no comment anyway)
    if after_blanks:
        first_token = np.cumsum(per_line) - per_line
        first_byte = array[starts[np.minimum(first_token, starts.size - 1)]]
    else:
        first_byte = array[np.minimum(line_starts, array.size - 1)]
    comment = (per_line > 0) & (first_byte == ord("#"))
    if not comment.any():
        return starts, ends, per_line
    keep = np.repeat(~comment, per_line)
    return starts[keep], ends[keep], np.where(comment, 0, per_line)


def _tokenize(
    data: bytes, layout: _Layout, path: str, first_line: int
) -> tuple[list[Ids], NDArray[np.bytes_], NDArray[np.int64]]:
    """Tokens of the wanted columns of every line in ``data`` (whole lines only) but blank and comment lines.

    The last wanted column (the numbers) comes as a fixed-width bytes array, the others as
    :class:`Ids` (ragged: one long id must not pad every other one).
    """
    array = np.frombuffer(data, dtype=np.uint8)
    if array.size == 0:
        return [Ids.from_bytes([]) for _ in layout.wanted[:-1]], np.empty(0, dtype="S1"), np.empty(0, dtype=np.int64)
    if not array.all():  # trec_eval's fields are C strings: a NUL byte would end one unseen
        line = first_line + data.count(b"\n", 0, int(np.argmin(array)))
        raise TrecFormatError(f"{path}, line {line}: a NUL byte (trec_eval would read no further than it)")
    inside = np.zeros(array.size + 2, dtype=bool)  # a field byte; a separator before and after all
    # Fields are separated by C's isspace() bytes ("C" locale): space and \t \n \v \f \r (9 to 13);
    # any other byte, control bytes too, is part of a field. (9 to 13 in one unsigned comparison.)
    np.greater(np.subtract(array, np.uint8(9)), np.uint8(4), out=inside[1:-1])
    inside[1:-1] &= array != 32
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
    line_starts = np.concatenate(([0], newlines + 1))[: per_line.size]
    if b"#" in data:
        starts, ends, per_line = _without_comments(
            array, starts, ends, per_line, line_starts, layout.comment_after_blanks
        )
    columns = layout.columns
    short = per_line < columns if layout.extra_ignored else per_line != columns
    bad = (per_line != 0) & short
    if bad.any():
        line = int(np.flatnonzero(bad)[0])
        expected = f"at least {columns} columns ({layout.names}; more are ignored)" if layout.extra_ignored else (
            f"{columns} columns ({layout.names})"
        )
        raise TrecFormatError(
            f"{path}, line {first_line + line}: expected {expected}, found {int(per_line[line])}: "
            f"{_line_text(data, int(line_starts[line]))!r}"
        )
    data_lines = np.flatnonzero(per_line)
    if (per_line[data_lines] == columns).all():
        starts, ends = starts.reshape(-1, columns), ends.reshape(-1, columns)
    else:  # fields after a run's tag: keep the first columns of each line
        first_token = (np.cumsum(per_line) - per_line)[data_lines]
        index = first_token[:, None] + np.arange(columns)
        starts, ends = starts[index], ends[index]
    wanted = list(layout.wanted)
    lengths = (ends - starts)[:, wanted]
    lines = first_line + data_lines.astype(np.int64)
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
    path: Path, layout: _Layout, convert: Callable[[NDArray[np.bytes_]], NDArray[_Number]],
    check: Callable[[NDArray[np.bytes_], NDArray[_Number], str, NDArray[np.int64]], None] | None = None,
) -> tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]:
    """Read a whitespace-separated file; return the wanted columns and the line numbers.

    The last wanted column is returned as numbers (``convert(tokens)``, then
    ``check(tokens, numbers, path, lines)`` if given, which raises for a bad one), the
    others as :class:`Ids`. Blocks are parsed in two threads while the next block is read
    (numpy releases the GIL for most of the work); at most three blocks are in memory at once.
    An error is raised for the first bad line of the file.
    """

    def parse(data: bytes, first_line: int) -> tuple[list[Ids], NDArray[_Number], NDArray[np.int64]]:
        ids, tokens, lines = _tokenize(data, layout, str(path), first_line)
        values = convert(tokens)
        if check is not None:
            check(tokens, values, str(path), lines)
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
    texts = [Ids.concatenate([ids[i] for ids, _, _ in parsed]) for i in range(len(layout.wanted) - 1)]
    return texts, np.concatenate([values for _, values, _ in parsed]), np.concatenate([lines for _, _, lines in parsed])


def _small_integers(tokens: NDArray[np.bytes_]) -> NDArray[np.int64] | None:
    """Single-digit tokens (most qrels grades) as integers without text parsing; None otherwise."""
    if tokens.dtype.itemsize != 1 or tokens.size == 0:
        return None
    digits = tokens.view(np.uint8) - np.uint8(ord("0"))
    if digits.max() > 9:  # also catches bytes below "0", which wrap around
        return None
    return digits.astype(np.int64)


def _grades(tokens: NDArray[np.bytes_]) -> NDArray[np.int64]:
    """Relevance as trec_eval reads it: C's atol (``1.5`` is 1, ``1_0`` is 1, ``x`` is 0)."""
    fast = _small_integers(tokens)
    return fast if fast is not None else c_atol(tokens)


def _no_nan(tokens: NDArray[np.bytes_], scores: NDArray[np.float64], path: str, lines: NDArray[np.int64]) -> None:
    """Refuse a score that C's atof reads as NaN, naming its line.

    trec_eval sorts with a comparison that NaN breaks (NaN is neither above nor below any
    score), so its ranking of a query with a NaN score is undefined: there is no answer to agree with.
    """
    nan = np.isnan(scores)
    if nan.any():
        first = int(np.flatnonzero(nan)[0])
        raise TrecFormatError(
            f"{path}, line {lines[first]}: score {tokens[first].decode(errors='replace')!r} reads as NaN "
            "(C's atof), which has no place in trec_eval's ranking"
        )


def read_run(path: str | Path) -> Run:
    """Read a TREC run file: ``qid Q0 docno rank score tag`` per line, as trec_eval 10.0 reads it.

    Fields after the tag are ignored; blank lines and comment lines (first byte after leading
    blanks ``#``) are skipped; fields are separated by C's whitespace (space, tab, CR, LF, VT,
    FF); the score is read with C's ``atof`` (its longest numeric prefix, 0 if none).

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line with fewer than six columns, a NUL byte, or a score that
        reads as NaN; the message names the file and line.
    """
    (qids, docnos), scores, lines = _read_columns(Path(path), _RUN, c_atof, _no_nan)
    return Run(qids, docnos, scores, lines, str(path))


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file: ``qid iteration docno relevance`` per line, as trec_eval 10.0 reads it.

    Blank lines and comment lines (first byte ``#``) are skipped; the relevance is read with C's
    ``atol`` (its longest integer prefix, 0 if none).

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line without exactly four columns, or a NUL byte; the message
        names the file and line.
    """
    (qids, docnos), grades, lines = _read_columns(Path(path), _QRELS, _grades)
    return Qrels(qids, docnos, grades, lines, str(path))
