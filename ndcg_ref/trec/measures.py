"""trec_eval's measure names (``ndcg``, ``ndcg_cut.K``) as output names and cut-offs."""

from __future__ import annotations

import re
from collections.abc import Iterable

_MEASURE = re.compile(r"^ndcg(?:_cut(?:[._](?P<cuts>\d+(?:,\d+)*))?)?$")


def parse_measures(names: Iterable[str]) -> list[tuple[str, int | None]]:
    """Turn trec_eval measure names into ``(output name, cut-off)`` pairs, in trec_eval's output order.

    trec_eval prints its measures in the order of its own table (``ndcg`` before ``ndcg_cut``)
    and a measure's cut-offs in increasing order, whatever order ``-m`` named them in. Cut-offs
    named more than once, or by several ``ndcg_cut`` names, are computed once.

    Raises
    ------
    ValueError
        For a name that is not ``ndcg`` or ``ndcg_cut[.K[,K...]]``, or a cut-off of 0.

    Examples
    --------
    >>> parse_measures(["ndcg_cut.10,5", "ndcg"])
    [('ndcg', None), ('ndcg_cut_5', 5), ('ndcg_cut_10', 10)]
    """
    measures: list[tuple[str, int | None]] = []
    for name in names:
        match = _MEASURE.match(name.strip())
        if not match:
            raise ValueError(f"unknown measure {name!r}: use ndcg or ndcg_cut.K (e.g. ndcg_cut.10 or ndcg_cut.5,10,20)")
        if name.strip() == "ndcg":
            pairs: list[tuple[str, int | None]] = [("ndcg", None)]
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
    # trec_eval's order: ndcg (no cut-off) first, then the cut-offs in increasing order
    return sorted(measures, key=lambda pair: -1 if pair[1] is None else pair[1])
