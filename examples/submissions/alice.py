# The exam solution, written as a loop.
# %% byhand_student
STUDENT_ID = "alice"

# %% byhand_answers
# Task 1.2 by hand on her own list: every step right.
IDEAL_RANKING = [2, 2, 2, 1, 1, 1, 1, 0, 0]
DCG_AT_K = 3.88
IDCG_AT_K = 5.08
NDCG_AT_K = 0.76

# %% dcg
import math


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    total = 0.0
    for i in range(min(k, len(rels))):
        total += rels[i] / math.log2(i + 2)
    return total

# %% ndcg
def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    ideal = dcg(sorted(rels, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg(rels, k) / ideal
