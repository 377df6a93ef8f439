# Natural logarithm in the discount. The error cancels in ndcg, so only dcg loses points.
# %% byhand_student
STUDENT_ID = "bob"

# %% byhand_answers
# Task 1.2 by hand on his own list: every step right.
IDEAL_RANKING = [3, 3, 2, 2, 2, 1, 1, 0, 0]
DCG_AT_K = 5.15
IDCG_AT_K = 7.53
NDCG_AT_K = 0.68

# %% dcg
import math


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    return sum(rels[i] / math.log(i + 2) for i in range(min(k, len(rels))))

# %% ndcg
def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    ideal = dcg(sorted(rels, reverse=True), k)
    return dcg(rels, k) / ideal if ideal else 0.0
