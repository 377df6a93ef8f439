"""DCG and nDCG of many queries at once, vectorised over queries (no Python loop per query).

The conventions are those of the single-query functions in :mod:`ndcg_ref.measures`, and the
arithmetic is the same (gain times discount, summed in rank order), so that every value agrees
with them exactly. Rankings of different length are given as a 2-D array padded with zeros
(a zero grade adds nothing to DCG, so padding changes no value) or as a list of lists.
Queries are processed in blocks, in threads on all cores; a block's values do not depend on
which block or thread computed them.

The package is split by concern: :mod:`.parallel` (the thread pool and the blocks of queries),
:mod:`.grades` (grade matrices from user input, and their checks), :mod:`.kernels` (DCG of a
block of rows, summed exactly as the single-query functions sum), :mod:`.measures`
(``dcg_batch``, ``idcg_batch``, ``ndcg_batch``) and :mod:`.ranking` (``rank_by_score``).
"""

from .grades import as_grade_matrix
from .measures import dcg_batch, idcg_batch, ndcg_batch
from .ranking import rank_by_score

__all__ = ["as_grade_matrix", "dcg_batch", "idcg_batch", "ndcg_batch", "rank_by_score"]
