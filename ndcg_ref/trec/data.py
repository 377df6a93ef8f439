"""Runs and qrels as parallel arrays, built from files or from dicts, and the error for bad input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from .ids import Ids

#: The value column of a run (scores) or of qrels (grades).
_Value = TypeVar("_Value", np.float64, np.int64)


class TrecFormatError(ValueError):
    """A malformed line in a run or qrels file (the message names the file and the line)."""


@dataclass(frozen=True)
class Run:
    """A TREC run as parallel arrays, one entry per line (ids ragged: :class:`Ids`)."""

    qids: Ids
    docnos: Ids
    scores: NDArray[np.float64]
    lines: NDArray[np.int64]  # 1-based line numbers, for messages
    source: str = "run"


@dataclass(frozen=True)
class Qrels:
    """TREC relevance judgements as parallel arrays, one entry per line (ids ragged: :class:`Ids`)."""

    qids: Ids
    docnos: Ids
    grades: NDArray[np.int64]
    lines: NDArray[np.int64]
    source: str = "qrels"


def _from_dict(
    table: Mapping[str, Mapping[str, float]], dtype: type[_Value]
) -> tuple[Ids, Ids, NDArray[_Value], NDArray[np.int64]]:
    rows = [(q, d, v) for q, docs in table.items() for d, v in docs.items()]
    # surrogateescape: ids decoded from non-UTF-8 bytes (as Evaluation.qids are) encode back to those bytes
    return (
        Ids.from_bytes(q.encode("utf-8", "surrogateescape") for q, _, _ in rows),
        Ids.from_bytes(d.encode("utf-8", "surrogateescape") for _, d, _ in rows),
        np.array([v for _, _, v in rows], dtype=dtype),
        np.arange(1, len(rows) + 1, dtype=np.int64),
    )


def run_from_dict(run: Mapping[str, Mapping[str, float]]) -> Run:
    """A run given as ``{qid: {docno: score}}`` (pytrec_eval's layout)."""
    return Run(*_from_dict(run, np.float64))


def qrels_from_dict(qrels: Mapping[str, Mapping[str, int]]) -> Qrels:
    """Judgements given as ``{qid: {docno: grade}}`` (pytrec_eval's layout)."""
    return Qrels(*_from_dict(qrels, np.int64))
