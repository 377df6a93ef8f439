"""Real-looking DCG/nDCG implementations, in the styles found in homework repositories, course
solutions, recommender projects and IR libraries, with the mistakes and lost test groups each must get.

Written for this kit (not copied from anywhere); the styles are the ones the held-out set of real
code showed: numpy with ``squeeze``, helpers that compute their own DCG, rounding to 6 places,
scikit-learn, exponential gain in a helper, functions NumPy 2 removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.exercises.ndcg.catalogue import CORRECT_DCG, CORRECT_NDCG


@dataclass(frozen=True)
class Implementation:
    """One student's dcg and ndcg, and what grading them must find."""

    name: str
    dcg: str
    ndcg: str
    #: The catalogue IDs the diagnosis names (as a set: order is the diagnosis's business).
    mistakes: frozenset[str]
    #: The test groups that lose their points.
    loses: frozenset[str]
    #: Words that must be in the unexplained message of a function, if any.
    unexplained: dict[str, tuple[str, ...]] = field(default_factory=dict)


NUMPY_SQUEEZE = Implementation(
    "numpy, exponential gain, squeeze",
    '''import numpy as np


def dcg(rels, k):
    r = np.asarray(rels, dtype=float)[:k]
    gains = 2 ** r - 1
    discounts = np.log2(np.arange(2, k + 2))
    return (gains / discounts).sum(keepdims=True).squeeze()''',
    '''def ndcg(rels, k):
    ideal = dcg(sorted(rels, reverse=True), k)
    return float(dcg(rels, k) / ideal)''',
    frozenset({"returns-non-float", "exponential-gain", "k-beyond-length", "zero-ideal"}),
    frozenset({"test_dcg_contract", "test_dcg_lecture", "test_dcg_grades", "test_dcg_cutoff", "test_ndcg_cutoff",
               "test_ndcg_zero"}),
)

OWN_DCG_HELPER = Implementation(
    "ndcg with its own DCG helper (1-based rank + 2) and an ideal from the top k",
    CORRECT_DCG,
    '''import math


def _dcg_at(xs, k):
    return sum(x / math.log2(rank + 2) for rank, x in enumerate(xs[:k], start=1))


def ndcg(rels, k):
    top = rels[:k]
    ideal = _dcg_at(sorted(top, reverse=True), k)
    return _dcg_at(rels, k) / ideal if ideal > 0 else 0.0''',
    frozenset({"discount-offset", "ideal-from-top-k"}),
    frozenset({"test_ndcg_lecture", "test_ndcg_ideal"}),
)

ROUNDED_6 = Implementation(
    "dcg rounded to 6 places",
    '''import math


def dcg(rels, k):
    score = 0.0
    for i, rel in enumerate(rels[:k]):
        score += rel / math.log2(i + 2)
    return round(score, 6)''',
    CORRECT_NDCG,
    frozenset({"rounded"}),
    frozenset({"test_dcg_lecture", "test_dcg_discount", "test_dcg_grades"}),
)

ROUNDED_6_AND_LN = Implementation(
    "natural log, rounded to 6 places",
    '''import math


def dcg(rels, k):
    return round(sum(r / math.log(i + 2) for i, r in enumerate(rels[:k])), 6)''',
    CORRECT_NDCG,
    frozenset({"rounded", "log-base"}),
    frozenset({"test_dcg_lecture", "test_dcg_discount", "test_dcg_grades"}),
)

SKLEARN = Implementation(
    "scikit-learn's ndcg_score",
    '''import numpy as np
from sklearn.metrics import dcg_score


def dcg(rels, k):
    scores = np.arange(len(rels), 0, -1)  # the ranking's order as scores
    return float(dcg_score([rels], [scores], k=k)) if len(rels) > 1 else float(rels[0]) if rels else 0.0''',
    '''import numpy as np
from sklearn.metrics import ndcg_score


def ndcg(rels, k):
    scores = np.arange(len(rels), 0, -1)
    return float(ndcg_score([rels], [scores], k=k))''',
    frozenset({"one-document"}),
    frozenset({"test_ndcg_contract"}),  # a single document is the contract's case, no cut-off's
)

EXPONENTIAL_HELPER = Implementation(
    "exponential gain in a helper",
    '''import math


def gain(rel):
    return 2 ** rel - 1


def dcg(rels, k):
    return sum(gain(rel) / math.log2(pos + 1) for pos, rel in enumerate(rels[:k], start=1))''',
    CORRECT_NDCG,
    frozenset({"exponential-gain"}),
    frozenset({"test_dcg_lecture", "test_dcg_grades"}),
)

IDEAL_NOT_CUT_OWN = Implementation(
    "recommender style: iDCG summed over the whole sorted list",
    CORRECT_DCG,
    '''import math


def ndcg(rels, k):
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(sorted(rels, reverse=True)))
    return dcg(rels, k) / idcg if idcg else 0.0''',
    frozenset({"ideal-not-cut"}),
    frozenset({"test_ndcg_lecture", "test_ndcg_ideal"}),
)

NATURAL_LOG_IN_NDCG = Implementation(
    "ndcg's own DCG with a natural log (the base cancels in the ratio: right)",
    CORRECT_DCG,
    '''import math


def ndcg(rels, k):
    def dcg_ln(xs):
        return sum(x / math.log(i + 2) for i, x in enumerate(xs[:k]))

    ideal = dcg_ln(sorted(rels, reverse=True))
    return dcg_ln(rels) / ideal if ideal else 0.0''',
    frozenset(),
    frozenset(),
)

NUMPY_2_REMOVED = Implementation(
    "np.asfarray (removed in NumPy 2)",
    '''import numpy as np


def dcg(rels, k):
    r = np.asfarray(rels)[:k]
    return float(np.sum(r / np.log2(np.arange(2, r.size + 2))))''',
    CORRECT_NDCG,
    frozenset(),
    frozenset({"test_dcg_lecture", "test_dcg_discount", "test_dcg_cutoff", "test_dcg_grades", "test_dcg_contract",
               "test_ndcg_lecture", "test_ndcg_ideal", "test_ndcg_cutoff", "test_ndcg_zero", "test_ndcg_contract"}),
    {"dcg": ("AttributeError", "asfarray"), "ndcg": ("AttributeError", "asfarray")},
)

# ----- mistakes real code makes, beyond the textbook mutants -----------------------------------------
ALL = frozenset({"test_dcg_lecture", "test_dcg_discount", "test_dcg_cutoff", "test_dcg_grades", "test_dcg_contract",
                 "test_ndcg_lecture", "test_ndcg_ideal", "test_ndcg_cutoff", "test_ndcg_zero", "test_ndcg_contract"})

INT_GRADES = Implementation(
    "homework loop: int(rel)",
    '''import math


def dcg(rels, k):
    score = 0.0
    for i in range(min(k, len(rels))):
        rel = int(rels[i])  # relevance labels are integers
        score += rel / math.log2(i + 2)
    return score''',
    CORRECT_NDCG,
    frozenset({"grades-truncated"}),
    frozenset({"test_dcg_grades"}),
)

BELOW_ONE_DROPPED = Implementation(
    "numpy: grades below 1 are not relevant",
    '''import numpy as np


def dcg(rels, k):
    r = np.asarray(rels, dtype=float)[:k]
    r = np.where(r >= 1, r, 0.0)  # a grade below 1 is "not relevant"
    return float(np.sum(r / np.log2(np.arange(2, r.size + 2))))''',
    CORRECT_NDCG,
    frozenset({"grades-truncated"}),
    frozenset({"test_dcg_grades"}),
)

TEXT_GRADES = Implementation(
    "grades kept as text (as read from a qrels file), converted late",
    '''import math


def dcg(rels, k):
    labels = [str(r) for r in rels]  # the qrels reader gives strings
    total = 0.0
    for rank, label in enumerate(labels[:k], start=1):
        total += int(float(label)) / math.log2(rank + 1)
    return total''',
    CORRECT_NDCG,
    frozenset({"grades-truncated"}),
    frozenset({"test_dcg_grades"}),
)

TEXT_GRADES_CRASH = Implementation(
    "grades kept as text, int() of the text (crashes on 2.5 and on 1.0)",
    '''import math


def dcg(rels, k):
    labels = [str(r) for r in rels]  # as written in the qrels file
    return sum(int(labels[i]) / math.log2(i + 2) for i in range(min(k, len(labels))))''',
    CORRECT_NDCG,
    frozenset({"grades-truncated"}),
    # int("2.5") and int("0.0") raise: the fractional grades' cases and the float zeros' case
    frozenset({"test_dcg_grades", "test_ndcg_ideal", "test_ndcg_zero"}),
)

HITS = Implementation(
    "recommender library: hits in the DCG",
    '''import numpy as np


def dcg(rels, k):
    hits = (np.asarray(rels[:k]) > 0).astype(float)
    return float(np.sum(hits / np.log2(np.arange(2, hits.size + 2))))''',
    CORRECT_NDCG,
    frozenset({"binary-relevance"}),
    frozenset({"test_dcg_lecture", "test_dcg_grades"}),
)

IDCG_FROM_COUNT = Implementation(
    "recommender library: iDCG from the number of relevant items",
    CORRECT_DCG,
    '''import math


def ndcg(rels, k):
    dcg_k = dcg(rels, k)
    n_rel = len([r for r in rels if r > 0])
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(n_rel, k)))
    return dcg_k / idcg if idcg > 0 else 0.0''',
    frozenset({"binary-relevance"}),
    frozenset({"test_ndcg_lecture", "test_ndcg_ideal"}),
)

HITS_BOTH = Implementation(
    "recommender library: hits in the DCG and in the iDCG",
    HITS.dcg,
    IDCG_FROM_COUNT.ndcg,
    frozenset({"binary-relevance"}),
    # ndcg divides dcg's own values as the definition says: only dcg's groups
    frozenset({"test_dcg_lecture", "test_dcg_grades"}),
)

CUT_AT_RELEVANT = Implementation(
    "recommender style: k = min(k, number of relevant items)",
    '''import math


def dcg(rels, k):
    k = min(k, len([r for r in rels if r]))
    return sum(r / math.log2(i + 2) for i, r in enumerate(rels[:k]))''',
    CORRECT_NDCG,
    frozenset({"cutoff-at-relevant"}),
    frozenset({"test_dcg_lecture", "test_dcg_cutoff"}),
)

IDEAL_ALL_POSITIONS = Implementation(
    "retrieval evaluator: an ideal of every retrieved position relevant",
    CORRECT_DCG,
    '''import math


def ndcg(rels, k):
    n = min(k, len(rels))
    idcg = sum(1 / math.log2(i + 2) for i in range(n))  # best case: every retrieved chunk relevant
    return dcg(rels, k) / idcg if idcg else 0.0''',
    frozenset({"ideal-all-relevant"}),
    frozenset({"test_ndcg_lecture", "test_ndcg_ideal"}),
)

LN_RANK_ONE_UNDISCOUNTED = Implementation(
    "numpy: rank 1 undiscounted, ln i after",
    '''import numpy as np


def dcg(rels, k):
    r = np.asarray(rels, dtype=float)[:k]
    if r.size == 0:
        return 0.0
    return float(r[0] + np.sum(r[1:] / np.log(np.arange(2, r.size + 1))))''',
    CORRECT_NDCG,
    frozenset({"discount-offset", "log-base"}),
    frozenset({"test_dcg_lecture", "test_dcg_discount"}),
)

SHIFTED_PAST_JK = Implementation(
    "loop: rank 1 undiscounted, then log2(rank + 2)",
    '''import math


def dcg(rels, k):
    total = 0.0
    for i, rel in enumerate(rels[:k]):
        total += rel if i == 0 else rel / math.log2(i + 3)
    return total''',
    CORRECT_NDCG,
    frozenset({"discount-offset"}),
    frozenset({"test_dcg_lecture", "test_dcg_discount"}),
)

FLOAT32 = Implementation(
    "numpy float32: the lecture's formula in single precision",
    '''import numpy as np


def dcg(rels, k):
    r = np.asarray(rels[:k], dtype=np.float32)
    return float(np.sum(r / np.log2(np.arange(2, r.size + 2, dtype=np.float32))))''',
    CORRECT_NDCG,
    frozenset(),
    frozenset(),
)

FLOAT32_EXPONENTIAL = Implementation(
    "numpy float32: exponential gain in single precision",
    '''import numpy as np


def dcg(rels, k):
    r = np.asarray(rels[:k], dtype=np.float32)
    gains = np.power(np.float32(2), r) - np.float32(1)
    return np.sum(gains / np.log2(np.arange(2, r.size + 2, dtype=np.float32)))''',
    '''import numpy as np


def ndcg(rels, k):
    ideal = dcg(np.sort(np.asarray(rels, dtype=np.float32))[::-1], k)
    return float(dcg(rels, k) / ideal) if ideal > 0 else 0.0''',
    frozenset({"exponential-gain"}),
    frozenset({"test_dcg_lecture", "test_dcg_grades"}),
)

PRINTS = Implementation(
    "notebook habit: the value printed, not returned",
    '''import math


def dcg(rels, k):
    result = 0
    for i in range(min(k, len(rels))):
        result += rels[i] / math.log2(i + 2)
    print(f"DCG@{k} = {result:.4f}")''',
    CORRECT_NDCG,
    frozenset({"prints-not-returns"}),
    ALL,
)

EMPTY_ON_NOTHING_RELEVANT = Implementation(
    "an empty list where nothing is relevant",
    CORRECT_DCG,
    '''def ndcg(rels, k):
    ideal = dcg(sorted(rels, reverse=True), k)
    if not ideal:
        return []  # no relevant documents: no score
    return dcg(rels, k) / ideal''',
    frozenset({"zero-ideal"}),
    frozenset({"test_ndcg_zero"}),
)

GAIN_TABLE = Implementation(
    "TREC-style gain table for grades 0-2 (crashes on 3)",
    '''import math

GAIN = {0: 0.0, 1: 1.0, 2: 3.0}  # 2 ** grade - 1


def dcg(rels, k):
    return sum(GAIN[r] / math.log2(i + 2) for i, r in enumerate(rels[:k]))''',
    CORRECT_NDCG,
    frozenset({"exponential-gain", "grade-range"}),
    # grade 3 (and 2.5) are in the grade group's and the ideal group's cases only
    frozenset({"test_dcg_lecture", "test_dcg_grades", "test_ndcg_ideal"}),
)

CORPUS: tuple[Implementation, ...] = (
    NUMPY_SQUEEZE, OWN_DCG_HELPER, ROUNDED_6, ROUNDED_6_AND_LN, SKLEARN, EXPONENTIAL_HELPER, IDEAL_NOT_CUT_OWN,
    NATURAL_LOG_IN_NDCG, NUMPY_2_REMOVED,
    INT_GRADES, BELOW_ONE_DROPPED, TEXT_GRADES, TEXT_GRADES_CRASH, HITS, IDCG_FROM_COUNT, HITS_BOTH, CUT_AT_RELEVANT,
    IDEAL_ALL_POSITIONS, LN_RANK_ONE_UNDISCOUNTED, SHIFTED_PAST_JK, FLOAT32, FLOAT32_EXPONENTIAL, PRINTS,
    EMPTY_ON_NOTHING_RELEVANT, GAIN_TABLE,
)
