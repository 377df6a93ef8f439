# dcg is right; ndcg takes the ideal over the whole list (not cut at k) and divides by zero.
# %% byhand_student
STUDENT_ID = "carol"

# %% byhand_answers
# Task 1.2 by hand on her own list: every step right.
IDEAL_RANKING = [3, 3, 2, 2, 2, 1, 1, 0, 0]
DCG_AT_K = 5.55
IDCG_AT_K = 7.53
NDCG_AT_K = 0.74

# %% dcg
import math


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))

# %% ndcg
def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    return dcg(rels, k) / dcg(sorted(rels, reverse=True), len(rels))
