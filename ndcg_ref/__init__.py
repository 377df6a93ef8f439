"""Reference implementation of (n)DCG for the "Ranking and Evaluation" exercise.

The single source of truth for every expected value in this kit. Numpy only at run time.
"""

from .batch import as_grade_matrix, dcg_batch, idcg_batch, ndcg_batch, ndcg_from_scores, rank_by_score
from .measures import cg, dcg, idcg, ndcg

__all__ = [
    "as_grade_matrix", "cg", "dcg", "dcg_batch", "idcg", "idcg_batch", "ndcg", "ndcg_batch", "ndcg_from_scores",
    "rank_by_score",
]
