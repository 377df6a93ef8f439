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

The package is split by concern: :mod:`.data` (``Run``, ``Qrels``, the format error),
:mod:`.ids` (ids in one byte buffer with offsets: one long id pads no other), :mod:`.reading`
(tokenizer and file reading), :mod:`.joining` (hash join of run and qrels, duplicate detection),
:mod:`.ordering` (trec_eval's ranking rules, as ragged rows), :mod:`.measures` (measure names)
and :mod:`.evaluation` (the evaluation itself).
"""

from .data import Qrels, Run, TrecFormatError, qrels_from_dict, run_from_dict
from .evaluation import Evaluation, evaluate, evaluate_files
from .measures import parse_measures
from .reading import read_qrels, read_run

__all__ = [
    "Evaluation", "Qrels", "Run", "TrecFormatError", "evaluate", "evaluate_files", "parse_measures",
    "qrels_from_dict", "read_qrels", "read_run", "run_from_dict",
]
