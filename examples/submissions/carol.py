# dcg is right; ndcg takes the ideal over the whole list (not cut at k) and divides by zero.
# %% dcg
import math


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))

# %% ndcg
def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    return dcg(rels, k) / dcg(sorted(rels, reverse=True), len(rels))
