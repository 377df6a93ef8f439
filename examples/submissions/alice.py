# The exam solution, written as a loop.
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
