"""DCG and nDCG of many queries at once, vectorised over queries (no Python loop per query).

The conventions are those of the single-query functions in :mod:`ndcg_ref.measures`, and the
arithmetic is the same (gain times discount, summed in rank order), so that every value agrees
with them exactly. Rankings of different length are given as a 2-D array padded with zeros
(a zero grade adds nothing to DCG, so padding changes no value), as a list of lists or as
:class:`Ragged` rows (flat grades and offsets); lists and ``Ragged`` rows are never padded to the
longest ranking, but worked on in blocks of rows of similar length.
Queries are processed in blocks, in threads on all cores; a block's values do not depend on
which block or thread computed them.

The package is split by concern: :mod:`.parallel` (the thread pool and the blocks of queries),
:mod:`.grades` (grade matrices from user input, and their checks), :mod:`.kernels` (DCG of a
block of rows, summed exactly as the single-query functions sum), :mod:`.ragged` (``Ragged``
and its blocks of similar rows), :mod:`.measures` (``dcg_batch``, ``idcg_batch``, ``ndcg_batch``),
:mod:`.ragged_measures` (their ragged path), :mod:`.ranking` (``rank_by_score``), :mod:`.topk`
(the top k of each row by score, without sorting the row) and :mod:`.from_scores`
(``ndcg_from_scores``: nDCG@k from grades and scores, ranking only the top k).
"""

from .from_scores import ndcg_from_scores
from .grades import as_grade_matrix
from .measures import dcg_batch, idcg_batch, ndcg_batch
from .ragged import Ragged
from .ranking import rank_by_score

__all__ = ["Ragged", "as_grade_matrix", "dcg_batch", "idcg_batch", "ndcg_batch", "ndcg_from_scores", "rank_by_score"]
