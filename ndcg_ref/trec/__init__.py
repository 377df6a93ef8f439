"""nDCG of a whole TREC run against TREC qrels, exactly as trec_eval computes it, vectorised.

trec_eval's rules (``ndcg`` and ``ndcg_cut.k``):

- the gain of a document is its qrels grade; unjudged documents and negative grades count 0;
- the ideal ranking holds every judged document of the query with a positive grade, retrieved or not;
- the run's documents are ordered by score, descending, ties broken by docno, descending
  (trec_eval's rule); scores are compared as doubles, as trec_eval 10.0 does, or with
  ``score_precision="float32"`` as 32-bit floats, as trec_eval 9.0.8 and pytrec_eval store them
  (scores equal to about 7 significant digits tie); the rank column is ignored;
- with ``max_docs=M`` (trec_eval's ``-M``) only the first M documents of a query in that order count;
- a query with judgements but no relevant document scores 0 and counts in the mean;
- queries of the run that are not in the qrels are ignored; with ``complete=True`` (trec_eval's
  ``-c``) queries of the qrels that are missing from the run count as 0;
- an empty run or qrels, or a run and qrels that share no query, are refused
  (:class:`NothingToEvaluateError`), as trec_eval refuses them.

Files are read as trec_eval 10.0 reads them (:mod:`.reading`): blank and ``#`` comment lines
skipped, fields after a run's tag ignored, numbers read with C's ``atof``/``atol``
(:mod:`.cnumbers`). They are parsed with numpy (no Python loop per line), in blocks, with an
error naming the file and line for anything trec_eval would refuse.

The package is split by concern: :mod:`.data` (``Run``, ``Qrels``, the format error),
:mod:`.ids` (ids in one byte buffer with offsets: one long id pads no other), :mod:`.reading`
(tokenizer and file reading), :mod:`.cnumbers` (C's number reading), :mod:`.joining` (hash join
of run and qrels, duplicate detection), :mod:`.ordering` (trec_eval's ranking rules, as ragged
rows), :mod:`.measures` (measure names), :mod:`.evaluation` (the evaluation itself) and
:mod:`.report` (trec_eval's output lines, JSON).
"""

from .data import Qrels, Run, TrecFormatError, qrels_from_dict, run_from_dict
from .evaluation import Evaluation, NothingToEvaluateError, evaluate, evaluate_files
from .measures import parse_measures
from .ordering import SCORE_PRECISIONS, ScorePrecision
from .reading import read_qrels, read_run

__all__ = [
    "SCORE_PRECISIONS", "Evaluation", "NothingToEvaluateError", "Qrels", "Run", "ScorePrecision", "TrecFormatError",
    "evaluate", "evaluate_files", "parse_measures", "qrels_from_dict", "read_qrels", "read_run", "run_from_dict",
]
