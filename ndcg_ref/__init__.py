"""Reference implementation of (n)DCG for the "Ranking and Evaluation" exercise.

The single source of truth for every expected value in this kit. Numpy only at run time.
"""

from .measures import cg, dcg, idcg, ndcg

__all__ = ["cg", "dcg", "idcg", "ndcg"]
