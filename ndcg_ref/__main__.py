"""trec_eval-style command line: ``python -m ndcg_ref RUN QRELS -m ndcg_cut.10 -m ndcg [-q] [-c] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys

from .trec import TrecFormatError, evaluate_files, parse_measures

_EPILOG = """examples:
  python -m ndcg_ref run.txt qrels.txt -m ndcg_cut.10 -m ndcg
  python -m ndcg_ref run.txt qrels.txt -m ndcg_cut.5,10,20 -q       # per query, then all
  python -m ndcg_ref run.txt qrels.txt -m ndcg --json -c            # JSON; missing queries count 0

Output lines are trec_eval's: measure, query (or "all"), value. Documents are ordered by score,
descending, ties by docno, descending; the rank column is ignored."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ndcg_ref",
        description="nDCG of a TREC run against TREC qrels, as trec_eval's ndcg and ndcg_cut.K.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag")
    parser.add_argument("qrels", help="qrels file: qid iteration docno relevance")
    parser.add_argument("-m", "--measure", action="append", dest="measures",
                        help="ndcg or ndcg_cut.K[,K...] (repeatable; default: ndcg_cut.10 and ndcg)")
    parser.add_argument("-q", "--per-query", action="store_true", help="also print every query's values")
    parser.add_argument("-c", "--complete", action="store_true",
                        help="queries in the qrels but missing from the run count as 0 (trec_eval -c)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of trec_eval lines")
    args = parser.parse_args(argv)
    measures = args.measures or ["ndcg_cut.10", "ndcg"]
    try:
        parse_measures(measures)
        result = evaluate_files(args.run, args.qrels, measures, complete=args.complete)
    except (TrecFormatError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    means = result.means
    if args.json:
        document = {"measures": result.measures, "num_q": len(result.qids), "all": means}
        if args.per_query:
            document["queries"] = result.per_query()
        print(json.dumps(document, indent=2))
        return 0
    lines = []
    for name in result.measures:
        if args.per_query:
            column = result.measures.index(name)
            rows = zip(result.qids, result.values, strict=True)
            lines += [f"{name:<22}\t{qid}\t{row[column]:.4f}" for qid, row in rows]
        lines.append(f"{name:<22}\tall\t{means[name]:.4f}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
