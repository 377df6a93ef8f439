"""trec_eval's output for an :class:`~.evaluation.Evaluation`: its lines, byte for byte, or a JSON document."""

from __future__ import annotations

import json

from .evaluation import Evaluation


def _line(measure: str, qid: bytes, value: float) -> bytes:
    # trec_eval's printf format, "%-22s\t%s\t%6.4f\n"; the qid is written as the files spell it
    return b"%-22s\t%s\t%6.4f\n" % (measure.encode("ascii"), qid, value)


def trec_eval_lines(result: Evaluation, *, per_query: bool = False) -> bytes:
    """trec_eval's output lines: ``measure`` (padded to 22), query id (or ``all``), value to 4 decimals.

    Parameters
    ----------
    result : Evaluation
        From :func:`~.evaluation.evaluate`.
    per_query : bool
        trec_eval's ``-q``: every query's lines first, grouped by query (all its measures),
        queries in trec_eval's order, then the ``all`` lines.

    Returns
    -------
    bytes
        The lines, each ending in a newline. Query ids are the files' bytes, so ids that are
        not UTF-8 are printed as they are (and two different ones never look the same).

    Examples
    --------
    >>> import numpy as np
    >>> result = Evaluation(["ndcg", "ndcg_cut_5"], ["q1", "q2"], np.array([[1.0, 0.5], [0.0, 0.25]]))
    >>> lines = trec_eval_lines(result, per_query=True).splitlines()
    >>> lines[0]
    b'ndcg                  \\tq1\\t1.0000'
    >>> [line.split(b"\\t")[0].strip() + b" " + line.split(b"\\t")[1] for line in lines]
    [b'ndcg q1', b'ndcg_cut_5 q1', b'ndcg q2', b'ndcg_cut_5 q2', b'ndcg all', b'ndcg_cut_5 all']
    """
    lines: list[bytes] = []
    if per_query:
        for qid, row in zip(result.qid_bytes(), result.values, strict=True):
            lines += [_line(measure, qid, float(value)) for measure, value in zip(result.measures, row, strict=True)]
    lines += [_line(measure, b"all", value) for measure, value in result.means.items()]
    return b"".join(lines)


def json_document(result: Evaluation, *, per_query: bool = False) -> str:
    """The evaluation as JSON: ``{"measures", "num_q", "all"}``, and ``"queries"`` with ``per_query``.

    The text is ASCII (``json.dumps``' ``ensure_ascii``): a query id's non-ASCII characters are
    ``\\uXXXX`` escapes, and a byte that is not UTF-8 is the escape of the lone surrogate
    U+DC80..U+DCFF that ``surrogateescape`` decodes it to (``b"\\xff"`` is ``"\\udcff"``). So different
    ids stay different keys, and ``key.encode("utf-8", "surrogateescape")`` after ``json.loads``
    gives the bytes back.

    Examples
    --------
    >>> import numpy as np
    >>> result = Evaluation(["ndcg"], [b"q\\xff".decode("utf-8", "surrogateescape")], np.array([[0.5]]))
    >>> json_document(result, per_query=True).splitlines()[9]
    '    "q\\\\udcff": {'
    """
    document: dict[str, object] = {"measures": result.measures, "num_q": len(result.qids), "all": result.means}
    if per_query:
        document["queries"] = result.per_query()
    return json.dumps(document, indent=2)
