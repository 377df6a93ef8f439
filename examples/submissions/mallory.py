# A hostile submission: right dcg, but ndcg hangs on k=1, and the notebook tries to cheat and
# to damage the course (fake comparisons, overwriting the gradebook and alice's notebook).
# %% byhand_student
STUDENT_ID = "mallory"

# %% byhand_answers
# Task 1.2 by hand with the natural log (ln 2 = 0.69...): DCG and iDCG are wrong; nDCG follows through.
IDEAL_RANKING = [3, 2, 2, 2, 1, 1, 1, 0, 0]
DCG_AT_K = 4.71
IDCG_AT_K = 9.39
NDCG_AT_K = 0.50

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
