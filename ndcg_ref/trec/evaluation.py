"""Evaluating a run against qrels with trec_eval's nDCG measures (the rules: :mod:`ndcg_ref.trec`)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..batch import ndcg_batch
from .data import Qrels, Run, TrecFormatError
from .joining import _grades_of_run, _query_index
from .measures import parse_measures
from .ordering import SCORE_PRECISIONS, ScorePrecision, _ideal_rows, _ranked_rows
from .reading import read_qrels, read_run


class NothingToEvaluateError(TrecFormatError):
    """A run or qrels without a line to read, or a run and qrels that share no query.

    trec_eval refuses these too; an nDCG of 0 here would only hide the mistake (a wrong file,
    query ids spelled differently in the two files).
    """


@dataclass
class Evaluation:
    """Per-query values (rows in ``qids`` order) and their means, per measure.

    Query ids are the files' bytes decoded as UTF-8 with ``surrogateescape``: a byte that is
    not UTF-8 becomes one of U+DC80..U+DCFF, so different ids stay different and
    ``qid.encode("utf-8", "surrogateescape")`` gives the bytes back (see :meth:`qid_bytes`).
    """

    measures: list[str]
    qids: list[str]
    values: NDArray[np.float64]  # (queries, measures)

    def qid_bytes(self) -> list[bytes]:
        """The query ids as the files spell them (bytes), in ``qids`` order."""
        return [qid.encode("utf-8", "surrogateescape") for qid in self.qids]

    @property
    def means(self) -> dict[str, float]:
        """The mean of each measure over the queries (trec_eval's ``all`` line)."""
        if not self.qids:
            return {name: 0.0 for name in self.measures}
        return {name: float(v) for name, v in zip(self.measures, self.values.mean(axis=0), strict=True)}

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` (pytrec_eval's layout)."""
        return {
            q: {m: float(v) for m, v in zip(self.measures, row, strict=True)}
            for q, row in zip(self.qids, self.values, strict=True)
        }


def _check_options(max_docs: int | None, score_precision: str) -> None:
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 1):
        raise ValueError(f"max_docs (trec_eval's -M) must be a whole number of at least 1, got {max_docs!r}")
    if score_precision not in SCORE_PRECISIONS:
        raise ValueError(f"score_precision must be one of {', '.join(SCORE_PRECISIONS)}, got {score_precision!r}")


def _refuse_empty(run: Run, qrels: Qrels) -> None:
    what = "(an empty file, or only blank and comment lines): nothing to evaluate"
    if run.qids.size == 0:
        raise NothingToEvaluateError(f"{run.source}: no run lines {what}")
    if qrels.qids.size == 0:
        raise NothingToEvaluateError(f"{qrels.source}: no judgements {what}")


def _refuse_disjoint(
    run: Run, qrels: Qrels, all_qids: NDArray[np.object_], retrieved: NDArray[np.bool_], judged: NDArray[np.bool_]
) -> None:
    run_ids, qrels_ids = all_qids[retrieved], all_qids[judged]  # all_qids is sorted: the first ids
    raise NothingToEvaluateError(
        f"{run.source} and {qrels.source} share no query (run: {run_ids.size} queries, e.g. "
        f"{_label(run_ids[0])!r}; qrels: {qrels_ids.size} queries, e.g. {_label(qrels_ids[0])!r}): "
        "nothing to evaluate"
    )


def _label(qid: bytes) -> str:
    return bytes(qid).decode("utf-8", "surrogateescape")


def evaluate(
    run: Run,
    qrels: Qrels,
    measures: Sequence[str] = ("ndcg",),
    *,
    complete: bool = False,
    max_docs: int | None = None,
    score_precision: ScorePrecision = "float64",
) -> Evaluation:
    """Evaluate a run with trec_eval's nDCG measures (see :mod:`ndcg_ref.trec` for the rules).

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
    max_docs : int, optional
        trec_eval's ``-M``: only each query's first ``max_docs`` documents in trec_eval's order
        (score, then docno, descending) count.
    score_precision : {"float64", "float32"}
        How scores are compared: as doubles, as trec_eval 10.0 does (the default), or as
        32-bit floats, as trec_eval 9.0.8 and pytrec_eval do (scores equal to about 7
        significant digits tie, and the docno decides).

    Returns
    -------
    Evaluation
        Measures in trec_eval's order (``ndcg``, then the cut-offs increasing), queries in
        trec_eval's order (qid sorted as bytes, as C's strcmp).

    Raises
    ------
    NothingToEvaluateError
        If the run or the qrels has no line, or they share no query (also with ``complete``).
    ValueError
        For an unknown measure name or option value.

    Examples
    --------
    >>> from ndcg_ref.trec import qrels_from_dict, run_from_dict
    >>> run = run_from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    >>> qrels = qrels_from_dict({"q1": {"d1": 1, "d3": 2, "d9": 1}})
    >>> round(evaluate(run, qrels, ["ndcg_cut.3"]).means["ndcg_cut_3"], 4)
    0.6388
    """
    pairs = parse_measures(measures)
    _check_options(max_docs, score_precision)
    _refuse_empty(run, qrels)
    names, cutoffs = [name for name, _ in pairs], tuple(k for _, k in pairs)
    all_qids, inverse = _query_index(qrels.qids, run.qids)
    qrels_q, run_q = inverse[: qrels.qids.size], inverse[qrels.qids.size :]
    queries = len(all_qids)
    judged = np.zeros(queries, dtype=bool)
    judged[qrels_q] = True
    retrieved = np.zeros(queries, dtype=bool)
    retrieved[run_q] = True
    if not (judged & retrieved).any():
        _refuse_disjoint(run, qrels, np.asarray(all_qids), retrieved, judged)
    keep = judged & (retrieved | complete)
    in_run = keep[run_q] if run_q.size else np.zeros(0, dtype=bool)
    run_kept = Run(run.qids[in_run], run.docnos[in_run], run.scores[in_run], run.lines[in_run], run.source)
    grades = _grades_of_run(run_kept, run_q[in_run], qrels, qrels_q)
    ranked = _ranked_rows(run_kept, run_q[in_run], grades, queries, precision=score_precision, max_docs=max_docs)
    ideal = _ideal_rows(qrels, qrels_q, queries)
    if keep.all():  # the usual case: every query judged and retrieved, nothing to pick
        values = ndcg_batch(ranked, cutoffs, ideal=ideal)
    else:
        values = ndcg_batch(ranked.take(keep), cutoffs, ideal=ideal.take(keep))
    kept_qids = np.asarray(all_qids)[keep]  # bytes objects, sorted: they compare as C's strcmp does
    ordering = np.argsort(kept_qids, kind="stable")
    return Evaluation(names, [_label(q) for q in kept_qids[ordering]], np.asarray(values)[ordering])


def evaluate_files(
    run_path: str | Path,
    qrels_path: str | Path,
    measures: Sequence[str] = ("ndcg",),
    *,
    complete: bool = False,
    max_docs: int | None = None,
    score_precision: ScorePrecision = "float64",
) -> Evaluation:
    """Read a run and a qrels file and evaluate them (see :func:`evaluate` for the options).

    The qrels are read in a second thread while the run is read (numpy releases the GIL for
    most of the parsing); a problem in the run is reported before one in the qrels.
    """
    parse_measures(measures)  # a bad measure name or option fails before any file is read
    _check_options(max_docs, score_precision)
    with ThreadPoolExecutor(1) as pool:
        qrels = pool.submit(read_qrels, qrels_path)
        run = read_run(run_path)
        return evaluate(
            run, qrels.result(), measures, complete=complete, max_docs=max_docs, score_precision=score_precision
        )
