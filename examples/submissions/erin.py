# numpy style; dcg is right, but ndcg sorts the caller's list in place.
# %% byhand_student
STUDENT_ID = "erin"

# %% byhand_answers
# Task 1.2 by hand on her own list: every step right.
IDEAL_RANKING = [3, 3, 2, 2, 2, 2, 1, 0, 0]
DCG_AT_K = 3.75
IDCG_AT_K = 7.53
NDCG_AT_K = 0.50

# %% dcg
import numpy as np


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    top = np.asarray(rels[:k], dtype=float)
    return float(np.sum(top / np.log2(np.arange(2, top.size + 2))))

# %% ndcg
def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    actual = dcg(rels, k)
    rels.sort(reverse=True)
    ideal = dcg(rels, k)
    return actual / ideal if ideal > 0 else 0.0
