"""nDCG of a whole TREC run against TREC qrels, exactly as trec_eval computes it, vectorised.

trec_eval's rules (``ndcg`` and ``ndcg_cut.k``):

- the gain of a document is its qrels grade; unjudged documents and negative grades count 0;
- the ideal ranking holds every judged document of the query with a positive grade, retrieved or not;
- the run's documents are ordered by score, descending, ties broken by docno, descending
  (trec_eval's rule); scores are compared as 32-bit floats, as trec_eval stores them (so scores
  equal to about 7 significant digits tie); the rank column is ignored;
- a query with judgements but no relevant document scores 0 and counts in the mean;
- queries of the run that are not in the qrels are ignored; with ``complete=True`` (trec_eval's
  ``-c``) queries of the qrels that are missing from the run count as 0.

Files are parsed with numpy (no Python loop per line), in blocks, with an error naming the file
and line for anything malformed; nothing is silently dropped.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .batch import ndcg_batch

__all__ = [
    "Evaluation", "Qrels", "Run", "TrecFormatError", "evaluate", "evaluate_files", "parse_measures",
    "qrels_from_dict", "read_qrels", "read_run", "run_from_dict",
]

_BLOCK = 32 * 1024 * 1024
_RUN_COLUMNS = "qid Q0 docno rank score tag"
_QRELS_COLUMNS = "qid iteration docno relevance"


class TrecFormatError(ValueError):
    """A malformed line in a run or qrels file (the message names the file and the line)."""


@dataclass(frozen=True)
class Run:
    """A TREC run as parallel arrays, one entry per line."""

    qids: np.ndarray  # bytes (S)
    docnos: np.ndarray  # bytes (S)
    scores: np.ndarray  # float64
    lines: np.ndarray  # 1-based line numbers, for messages
    source: str = "run"


@dataclass(frozen=True)
class Qrels:
    """TREC relevance judgements as parallel arrays, one entry per line."""

    qids: np.ndarray
    docnos: np.ndarray
    grades: np.ndarray  # int64
    lines: np.ndarray
    source: str = "qrels"


# ----- parsing ------------------------------------------------------------------------------

def _gather(padded: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The tokens padded[starts[i]:starts[i] + lengths[i]] as one fixed-width bytes array.

    ``padded`` must end with at least as many spare bytes as the longest token.
    """
    if starts.size == 0:
        return np.empty(0, dtype="S1")
    width = int(lengths.max())
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    raw = windows[starts]  # one contiguous copy of `width` bytes per token
    np.copyto(raw, 0, where=np.arange(width) >= lengths[:, None])  # clear what follows each token
    return raw.view(f"S{width}").ravel()


def _line_text(data: bytes, line_start: int) -> str:
    end = data.find(b"\n", line_start)
    text = data[line_start : end if end >= 0 else len(data)].decode(errors="replace").strip()
    return text if len(text) <= 120 else text[:117] + "..."


def _tokenize(data: bytes, columns: int, wanted: Sequence[int], path: str, first_line: int, layout: str):
    """Tokens of the wanted columns of every non-blank line in ``data`` (whole lines only)."""
    array = np.frombuffer(data, dtype=np.uint8)
    if array.size == 0:
        return [np.empty(0, dtype="S1") for _ in wanted], np.empty(0, dtype=np.int64)
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
    padded = np.concatenate([array, np.zeros(int(lengths.max()) if lengths.size else 0, dtype=np.uint8)])
    return [_gather(padded, starts[:, c], lengths[:, i]) for i, c in enumerate(wanted)], lines


def _blocks(path: Path):
    """``(data, first line number)`` for consecutive blocks of whole lines of the file."""
    try:
        handle = open(path, "rb")
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


def _read_columns(path: Path, columns: int, wanted: Sequence[int], layout: str, numbers: Mapping[int, tuple[type, str]]):
    """Read a whitespace-separated file; return the wanted columns and the line numbers.

    ``numbers`` maps a position in ``wanted`` to ``(dtype, what)``: that column is converted.
    Blocks are parsed in two threads while the next block is read (numpy releases the GIL for
    most of the work); at most three blocks are in memory at once. An error is raised for the
    first bad line of the file.
    """

    def parse(data: bytes, first_line: int):
        tokens, lines = _tokenize(data, columns, wanted, str(path), first_line, layout)
        for position, (dtype, what) in numbers.items():
            tokens[position] = _numbers(tokens[position], dtype, str(path), lines, what)
        return tokens, lines

    parsed: list[tuple[list[np.ndarray], np.ndarray]] = []
    with ThreadPoolExecutor(2) as pool:
        pending: deque = deque()
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
    columns_out = [np.concatenate([tokens[i] for tokens, _ in parsed]) for i in range(len(wanted))]
    return columns_out, np.concatenate([lines for _, lines in parsed])


def _small_integers(tokens: np.ndarray) -> np.ndarray | None:
    """Single-digit tokens (most qrels grades) as integers without text parsing; None otherwise."""
    if tokens.dtype.itemsize != 1 or tokens.size == 0:
        return None
    digits = tokens.view(np.uint8) - np.uint8(ord("0"))
    if digits.max() > 9:  # also catches bytes below "0", which wrap around
        return None
    return digits.astype(np.int64)


def _numbers(tokens: np.ndarray, dtype, path: str, lines: np.ndarray, what: str) -> np.ndarray:
    if dtype is np.int64:
        fast = _small_integers(tokens)
        if fast is not None:
            return fast
    try:
        values = tokens.astype(dtype)
    except ValueError:
        values = None
    if values is not None and (dtype is not np.float64 or np.isfinite(values).all()):
        return values
    for token, line in zip(tokens, lines):  # the slow path, only to name the bad line
        try:
            value = dtype(token.decode(errors="replace"))
        except ValueError:
            raise TrecFormatError(f"{path}, line {line}: {what} {token.decode(errors='replace')!r} is not a number") from None
        if not np.isfinite(value):
            raise TrecFormatError(f"{path}, line {line}: {what} {token.decode(errors='replace')!r} is not a finite number")
    raise TrecFormatError(f"{path}: a {what} could not be read")


def read_run(path: str | Path) -> Run:
    """Read a TREC run file: ``qid Q0 docno rank score tag`` per line.

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line without exactly six columns, or a score that is not a
        finite number; the message names the file and line.
    """
    (qids, docnos, scores), lines = _read_columns(Path(path), 6, (0, 2, 4), _RUN_COLUMNS, {2: (np.float64, "score")})
    return Run(qids, docnos, scores, lines, str(path))


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file: ``qid iteration docno relevance`` per line (integer relevance).

    Raises
    ------
    TrecFormatError
        For an unreadable file, a line without exactly four columns, or a relevance that is not
        an integer; the message names the file and line.
    """
    (qids, docnos, grades), lines = _read_columns(Path(path), 4, (0, 2, 3), _QRELS_COLUMNS, {2: (np.int64, "relevance")})
    return Qrels(qids, docnos, grades, lines, str(path))


# ----- evaluation ---------------------------------------------------------------------------

_MEASURE = re.compile(r"^ndcg(?:_cut(?:[._](?P<cuts>\d+(?:,\d+)*))?)?$")


def parse_measures(names: Iterable[str]) -> list[tuple[str, int | None]]:
    """Turn trec_eval measure names into ``(output name, cut-off)`` pairs.

    Examples
    --------
    >>> parse_measures(["ndcg", "ndcg_cut.5,10"])
    [('ndcg', None), ('ndcg_cut_5', 5), ('ndcg_cut_10', 10)]
    """
    measures: list[tuple[str, int | None]] = []
    for name in names:
        match = _MEASURE.match(name.strip())
        if not match:
            raise ValueError(f"unknown measure {name!r}: use ndcg or ndcg_cut.K (e.g. ndcg_cut.10 or ndcg_cut.5,10,20)")
        if name.strip() == "ndcg":
            pairs = [("ndcg", None)]
        else:
            cuts = match.group("cuts")
            if cuts is None:
                cuts = "5,10,15,20,30,100,200,500,1000"  # trec_eval's default cut-offs
            pairs = [(f"ndcg_cut_{int(c)}", int(c)) for c in cuts.split(",")]
            if any(k == 0 for _, k in pairs):
                raise ValueError(f"cut-offs must be at least 1 in {name!r}")
        for pair in pairs:
            if pair not in measures:
                measures.append(pair)
    return measures


@dataclass
class Evaluation:
    """Per-query values (rows in ``qids`` order) and their means, per measure."""

    measures: list[str]
    qids: list[str]
    values: np.ndarray  # (queries, measures)

    @property
    def means(self) -> dict[str, float]:
        if not self.qids:
            return {name: 0.0 for name in self.measures}
        return {name: float(v) for name, v in zip(self.measures, self.values.mean(axis=0))}

    def per_query(self) -> dict[str, dict[str, float]]:
        return {q: {m: float(v) for m, v in zip(self.measures, row)} for q, row in zip(self.qids, self.values)}


def _hash(tokens: np.ndarray) -> np.ndarray:
    """64-bit FNV-1a of each fixed-width bytes token (vectorised over tokens)."""
    width = tokens.dtype.itemsize
    columns = np.ascontiguousarray(tokens).view(np.uint8).reshape(-1, width)
    value = np.full(tokens.size, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(0x100000001B3)
    with np.errstate(over="ignore"):
        for column in range(width):
            value ^= columns[:, column]
            value *= prime
    return value


def _keys(query_index: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _hash(docnos) ^ (query_index.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _words(tokens: np.ndarray, width: int) -> np.ndarray:
    """Fixed-width bytes tokens as rows of 64-bit words, for exact and fast comparison."""
    padded = -(-width // 8) * 8
    return np.ascontiguousarray(tokens.astype(f"S{padded}", copy=False)).view(np.uint64).reshape(tokens.size, padded // 8)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise equality of two bytes arrays (exact)."""
    width = max(a.dtype.itemsize, b.dtype.itemsize, 1)
    return (_words(a, width) == _words(b, width)).all(axis=1)


def _sorted_checking_duplicates(keys, query_index, docnos, lines, source: str) -> np.ndarray:
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
    for start, stop in zip(group_starts, group_stops):
        first_of.clear()
        for line in sorted(order[start:stop]):  # file order: report the earlier line first
            seen = first_of.setdefault((int(query_index[line]), bytes(docnos[line])), line)
            if seen != line:
                raise TrecFormatError(
                    f"{source}, lines {lines[seen]} and {lines[line]}: document {docnos[line].decode(errors='replace')!r} "
                    "appears twice for the same query"
                )
    return order


def _sorted_keys(query_index, docnos, lines, source: str) -> tuple[np.ndarray, np.ndarray]:
    """The join keys of the lines and the order that sorts them (duplicates raise)."""
    keys = _keys(query_index, docnos)
    return keys, _sorted_checking_duplicates(keys, query_index, docnos, lines, source)


def _grades_of_run(run: Run, run_q: np.ndarray, qrels: Qrels, qrels_q: np.ndarray) -> np.ndarray:
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

        def match(start: int, stop: int) -> np.ndarray:
            """Set the grades of run lines run_order[start:stop]; return lines left to settle."""
            wanted = run_keys[run_order[start:stop]]  # sorted needles: a cache-friendly search
            position = np.minimum(np.searchsorted(sorted_keys, wanted), sorted_keys.size - 1)
            found = sorted_keys[position] == wanted
            line = run_order[start:stop][found]  # run lines whose key is in the qrels
            candidate = qrels_order[position[found]]
            exact = (qrels_q[candidate] == run_q[line]) & _same(qrels.docnos[candidate], run.docnos[line])
            grades[line[exact]] = qrels.grades[candidate[exact]]
            return line[~exact]

        half = run_order.size // 2
        unsettled = np.concatenate(list(pool.map(match, (0, half), (half, run_order.size))))
    if unsettled.size:  # a hash collision: settle those lines exactly
        lookup = {(int(q), d): int(g) for q, d, g in zip(qrels_q, qrels.docnos, qrels.grades)}
        for i in unsettled:
            grades[i] = lookup.get((int(run_q[i]), run.docnos[i]), 0)
    return grades


def _ranked_rows(run: Run, run_q: np.ndarray, grades: np.ndarray, queries: int) -> np.ndarray:
    """A (queries x longest run) matrix of gains in trec_eval's order: score desc, docno desc.

    trec_eval keeps scores as 32-bit floats, so scores are compared (and tied) in float32.
    """
    size = run_q.size
    if size == 0:
        return np.zeros((queries, 0))
    scores = run.scores.astype(np.float32)
    # Runs are usually grouped by query with scores descending: then the file order is the order.
    boundary = run_q[1:] != run_q[:-1]
    grouped = int(boundary.sum()) + 1 == np.count_nonzero(np.bincount(run_q, minlength=queries))
    descending = not ((~boundary) & (scores[1:] > scores[:-1])).any()
    order = np.arange(size) if grouped and descending else np.lexsort((-scores, run_q))
    sorted_q, sorted_scores = run_q[order], scores[order]
    same = (sorted_q[1:] == sorted_q[:-1]) & (sorted_scores[1:] == sorted_scores[:-1])
    if same.any():  # break ties by docno, descending, reordering only inside each group of ties
        tied = np.zeros(size, dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        positions = np.flatnonzero(tied)
        starts_group = np.ones(positions.size, dtype=bool)
        starts_group[1:] = ~same[positions[1:] - 1]  # same[p - 1] links p - 1 and p
        group = np.cumsum(starts_group)
        name_rank = np.unique(run.docnos[order[positions]], return_inverse=True)[1]
        order[positions] = order[positions[np.lexsort((-name_rank, group))]]
    start = np.empty(size, dtype=bool)  # each query is one contiguous segment of sorted_q
    start[0] = True
    start[1:] = sorted_q[1:] != sorted_q[:-1]
    segment_starts = np.flatnonzero(start)
    rank = np.arange(size) - segment_starts[np.cumsum(start) - 1]
    matrix = np.zeros((queries, int(rank.max()) + 1))
    matrix[sorted_q, rank] = np.maximum(grades[order], 0)
    return matrix


def _ideal_rows(qrels: Qrels, qrels_q: np.ndarray, queries: int) -> np.ndarray:
    relevant = qrels.grades > 0
    q = qrels_q[relevant]
    counts = np.bincount(q, minlength=queries)
    order = np.argsort(q, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(order.size) - starts[q[order]]
    matrix = np.zeros((queries, int(counts.max()) if counts.size and counts.max() > 0 else 0))
    matrix[q[order], rank] = qrels.grades[relevant][order]
    return matrix


def evaluate(run: Run, qrels: Qrels, measures: Sequence[str] = ("ndcg",), *, complete: bool = False) -> Evaluation:
    """Evaluate a run with trec_eval's nDCG measures (see the module's docstring for the rules).

    Parameters
    ----------
    run : Run
        From :func:`read_run` or :func:`run_from_dict`.
    qrels : Qrels
        From :func:`read_qrels` or :func:`qrels_from_dict`.
    measures : sequence of str
        trec_eval names: ``"ndcg"``, ``"ndcg_cut.10"``, ``"ndcg_cut.5,10,20"``.
    complete : bool
        trec_eval's ``-c``: queries of the qrels missing from the run count as 0.

    Returns
    -------
    Evaluation
        Queries in trec_eval's order (qid sorted as text).

    Examples
    --------
    >>> run = run_from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    >>> qrels = qrels_from_dict({"q1": {"d1": 1, "d3": 2, "d9": 1}})
    >>> round(evaluate(run, qrels, ["ndcg_cut.3"]).means["ndcg_cut_3"], 4)
    0.6388
    """
    pairs = parse_measures(measures)
    names, cutoffs = [name for name, _ in pairs], tuple(k for _, k in pairs)
    all_qids, inverse = _query_index(qrels.qids, run.qids)
    qrels_q, run_q = inverse[: qrels.qids.size], inverse[qrels.qids.size :]
    queries = len(all_qids)
    judged = np.zeros(queries, dtype=bool)
    judged[qrels_q] = True
    retrieved = np.zeros(queries, dtype=bool)
    retrieved[run_q] = True
    keep = judged & (retrieved | complete)
    in_run = keep[run_q] if run_q.size else np.zeros(0, dtype=bool)
    run_kept = Run(run.qids[in_run], run.docnos[in_run], run.scores[in_run], run.lines[in_run], run.source)
    grades = _grades_of_run(run_kept, run_q[in_run], qrels, qrels_q)
    ranked = _ranked_rows(run_kept, run_q[in_run], grades, queries)
    ideal = _ideal_rows(qrels, qrels_q, queries)
    values = ndcg_batch(ranked[keep], cutoffs, ideal=ideal[keep]) if keep.any() else np.zeros((0, len(cutoffs)))
    labels = [q.decode(errors="replace") for q in np.asarray(all_qids)[keep]]
    ordering = sorted(range(len(labels)), key=lambda i: labels[i])
    return Evaluation(names, [labels[i] for i in ordering], np.asarray(values)[ordering])


def _query_index(qrels_qids: np.ndarray, run_qids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _from_dict(table: Mapping[str, Mapping[str, float]], dtype) -> tuple[np.ndarray, ...]:
    rows = [(q, d, v) for q, docs in table.items() for d, v in docs.items()]
    if not rows:
        return np.empty(0, "S1"), np.empty(0, "S1"), np.empty(0, dtype), np.empty(0, np.int64)
    return (
        np.array([q.encode() for q, _, _ in rows], dtype="S"),
        np.array([d.encode() for _, d, _ in rows], dtype="S"),
        np.array([v for _, _, v in rows], dtype=dtype),
        np.arange(1, len(rows) + 1),
    )


def run_from_dict(run: Mapping[str, Mapping[str, float]]) -> Run:
    """A run given as ``{qid: {docno: score}}`` (pytrec_eval's layout)."""
    return Run(*_from_dict(run, np.float64))


def qrels_from_dict(qrels: Mapping[str, Mapping[str, int]]) -> Qrels:
    """Judgements given as ``{qid: {docno: grade}}`` (pytrec_eval's layout)."""
    return Qrels(*_from_dict(qrels, np.int64))


def evaluate_files(run_path: str | Path, qrels_path: str | Path, measures: Sequence[str] = ("ndcg",), *, complete: bool = False) -> Evaluation:
    """Read a run and a qrels file and evaluate them (see :func:`evaluate`).

    The qrels are read in a second thread while the run is read (numpy releases the GIL for
    most of the parsing); a problem in the run is reported before one in the qrels.
    """
    parse_measures(measures)  # a bad measure name fails before any file is read
    with ThreadPoolExecutor(1) as pool:
        qrels = pool.submit(read_qrels, qrels_path)
        run = read_run(run_path)
        return evaluate(run, qrels.result(), measures, complete=complete)
