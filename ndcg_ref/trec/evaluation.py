"""Evaluating a run against qrels with trec_eval's nDCG measures (the rules: :mod:`ndcg_ref.trec`)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..batch import ndcg_batch
from .data import Qrels, Run
from .joining import _grades_of_run, _query_index
from .measures import parse_measures
from .ordering import _ideal_rows, _ranked_rows
from .reading import read_qrels, read_run


@dataclass
class Evaluation:
    """Per-query values (rows in ``qids`` order) and their means, per measure."""

    measures: list[str]
    qids: list[str]
    values: NDArray[np.float64]  # (queries, measures)

    @property
    def means(self) -> dict[str, float]:
        if not self.qids:
            return {name: 0.0 for name in self.measures}
        return {name: float(v) for name, v in zip(self.measures, self.values.mean(axis=0), strict=True)}

    def per_query(self) -> dict[str, dict[str, float]]:
        return {
            q: {m: float(v) for m, v in zip(self.measures, row, strict=True)}
            for q, row in zip(self.qids, self.values, strict=True)
        }


def evaluate(run: Run, qrels: Qrels, measures: Sequence[str] = ("ndcg",), *, complete: bool = False) -> Evaluation:
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

    Returns
    -------
    Evaluation
        Queries in trec_eval's order (qid sorted as text).

    Examples
    --------
    >>> from ndcg_ref.trec import qrels_from_dict, run_from_dict
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
    values = np.zeros((0, len(cutoffs)))
    if keep.all():  # the usual case: every query judged and retrieved, nothing to pick
        values = ndcg_batch(ranked, cutoffs, ideal=ideal)
    elif keep.any():
        values = ndcg_batch(ranked.take(keep), cutoffs, ideal=ideal.take(keep))
    labels = [q.decode(errors="replace") for q in np.asarray(all_qids)[keep]]
    ordering = sorted(range(len(labels)), key=lambda i: labels[i])
    return Evaluation(names, [labels[i] for i in ordering], np.asarray(values)[ordering])


def evaluate_files(
    run_path: str | Path, qrels_path: str | Path, measures: Sequence[str] = ("ndcg",), *, complete: bool = False
) -> Evaluation:
    """Read a run and a qrels file and evaluate them (see :func:`evaluate`).

    The qrels are read in a second thread while the run is read (numpy releases the GIL for
    most of the parsing); a problem in the run is reported before one in the qrels.
    """
    parse_measures(measures)  # a bad measure name fails before any file is read
    with ThreadPoolExecutor(1) as pool:
        qrels = pool.submit(read_qrels, qrels_path)
        run = read_run(run_path)
        return evaluate(run, qrels.result(), measures, complete=complete)
