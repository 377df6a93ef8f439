"""trec_eval-style command line: ``python -m ndcg_ref RUN QRELS -m ndcg_cut.10 -m ndcg [-q] [-c] [-M N] [--json]``."""

from __future__ import annotations

import argparse
import sys

from .trec import SCORE_PRECISIONS, TrecFormatError, evaluate_files, parse_measures
from .trec.report import json_document, trec_eval_lines

_EPILOG = """examples:
  python -m ndcg_ref run.txt qrels.txt -m ndcg_cut.10 -m ndcg
  python -m ndcg_ref run.txt qrels.txt -m ndcg_cut.5,10,20 -q       # per query, then all
  python -m ndcg_ref run.txt qrels.txt -m ndcg --json -c            # JSON; missing queries count 0
  python -m ndcg_ref run.txt qrels.txt -m ndcg -M 100               # each query's top 100 only

Output lines are trec_eval 10.0's: measure, query (or "all"), value; measures in trec_eval's
order (ndcg, then the cut-offs increasing), with -q grouped by query. Documents are ordered by
score, descending, ties by docno, descending; the rank column is ignored. Files are read as
trec_eval reads them (comment lines, fields after the tag, C's number parsing). Errors, and a
run and qrels with nothing to evaluate, exit with status 2 and one line on stderr."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ndcg_ref",
        description="nDCG of a TREC run against TREC qrels, as trec_eval's ndcg and ndcg_cut.K.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag [ignored fields]")
    parser.add_argument("qrels", help="qrels file: qid iteration docno relevance")
    parser.add_argument("-m", "--measure", action="append", dest="measures",
                        help="ndcg or ndcg_cut.K[,K...] (repeatable; default: ndcg and ndcg_cut.10)")
    parser.add_argument("-q", "--per-query", action="store_true", help="also print every query's values")
    parser.add_argument("-c", "--complete", action="store_true",
                        help="queries in the qrels but missing from the run count as 0 (trec_eval -c)")
    parser.add_argument("-M", "--max-docs", type=int, metavar="N",
                        help="only each query's first N documents in trec_eval's order count (trec_eval -M)")
    parser.add_argument("--score-precision", choices=SCORE_PRECISIONS, default="float64",
                        help="compare scores as doubles (trec_eval 10.0, the default) or as 32-bit floats "
                             "(trec_eval 9.0.8, pytrec_eval)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of trec_eval lines")
    return parser


def _write(data: bytes) -> None:
    """Write bytes to stdout as they are (query ids need not be UTF-8)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (some embedding); ids keep their escapes
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
    else:
        buffer.write(data)
        buffer.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 for an error printed on stderr)."""
    args = _parser().parse_args(argv)
    measures = args.measures or ["ndcg", "ndcg_cut.10"]
    try:
        parse_measures(measures)
        result = evaluate_files(
            args.run, args.qrels, measures,
            complete=args.complete, max_docs=args.max_docs, score_precision=args.score_precision,
        )
    except (TrecFormatError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json_document(result, per_query=args.per_query))
    else:
        _write(trec_eval_lines(result, per_query=args.per_query))
    return 0


if __name__ == "__main__":
    sys.exit(main())
