"""Pairs of catalogue mistakes that, made together, do not simply cost the union of their groups.

The all-pairs mutation check (``tests/pairs.py``, graded in-process and in the sandbox) holds
every other pair of mistakes to the union of the two mistakes' groups; these are the exceptions,
each with the reason, printed in ``docs/misconceptions.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalogue import BY_ID


@dataclass(frozen=True)
class PairCost:
    """Two mistakes that, made together, lose other groups than the union of theirs (or are named otherwise)."""

    pair: tuple[str, str]
    #: Why, in words a tutor can check.
    why: str
    #: The groups the pair loses; None: the union of the two mistakes' groups.
    lost: tuple[str, ...] | None = None
    #: The IDs the diagnosis names; None: both.
    named: tuple[str, ...] | None = None


_NDCG_CUTOFF_THROUGH_OWN_RATIO = (
    "a dcg that ignores k makes ndcg ignore it too; ndcg's cut-off properties are then credited only "
    "as the ratio of the student's own dcg values, which assumes the definition's ideal ranking and ratio"
)

#: Every pair of mistakes that does not simply lose the union of its two costs: the all-pairs
#: mutation check (tests/exercises/test_pairs.py, in the sandbox) holds every other pair to the union.
PAIR_COSTS: dict[frozenset[str], PairCost] = {
    frozenset(cost.pair): cost for cost in (
        *(
            PairCost(("cutoff-ignored", other), _NDCG_CUTOFF_THROUGH_OWN_RATIO,
                     lost=tuple(sorted({*BY_ID["cutoff-ignored"].loses, *lost, "test_ndcg_cutoff"})))
            for other, lost in (
                ("binary-relevance", ("test_ndcg_lecture", "test_ndcg_ideal")),
                ("ideal-ascending", BY_ID["ideal-ascending"].loses),
                ("ideal-from-top-k", BY_ID["ideal-from-top-k"].loses),
                ("ideal-all-relevant", BY_ID["ideal-all-relevant"].loses),
                ("ratio-inverted", BY_ID["ratio-inverted"].loses),
                ("not-normalized", BY_ID["not-normalized"].loses),
                ("rounded", ("test_ndcg_lecture", "test_ndcg_ideal")),
            )
        ),
        PairCost(("cutoff-ignored", "ideal-not-cut"),
                 "with a dcg that ignores k every DCG is the whole list's: an ideal not cut at k is the same "
                 "ideal, so that mistake cannot show (and costs nothing more)",
                 lost=BY_ID["cutoff-ignored"].loses, named=("cutoff-ignored",)),
        PairCost(("no-discount", "ideal-from-top-k"),
                 "without a discount, the sum of the top k over the sum of the same k grades sorted is 1 on "
                 "every input: ndcg computes nothing, so no ndcg group but the contract counts",
                 lost=(*BY_ID["no-discount"].loses, "test_ndcg_lecture", "test_ndcg_ideal", "test_ndcg_cutoff",
                       "test_ndcg_zero")),
        PairCost(("no-discount", "ideal-not-sorted"),
                 "without a discount an unsorted ideal and one from the top k give the same values (1 on every "
                 "input): the diagnosis names one of the two", named=("no-discount", "ideal-from-top-k")),
        *(
            PairCost(("prints-not-returns", other),
                     "a dcg that returns None leaves an ndcg that divides its values nothing to work with: every "
                     "group is lost anyway, and ndcg's own mistake cannot show", named=("prints-not-returns",))
            for other in ("binary-relevance", "grade-range", "ideal-not-sorted", "ideal-ascending", "ideal-not-cut",
                          "ideal-from-top-k", "ideal-all-relevant", "ratio-inverted", "not-normalized",
                          "zero-ideal", "one-document", "rounded")
        ),
        *(
            PairCost((other, "prints-not-returns"),
                     "a dcg that prints its value returns None whatever it computes: its other mistake shows only "
                     "in what it prints", named=("prints-not-returns",))
            for other in ("log-base", "discount-offset", "first-rank-skipped", "no-discount", "discount-multiplied",
                          "exponential-gain", "grades-truncated", "binary-relevance", "cutoff-ignored",
                          "cutoff-off-by-one", "cutoff-at-relevant", "k-beyond-length", "returns-non-float", "rounded")
        ),
        *(
            PairCost((other, "zero-ideal"),
                     "an ideal built wrongly is 0 where the definition's is not (the only relevant document below "
                     "the cut-off): without the zero check that case of the cut-off group divides by 0 too",
                     lost=tuple(sorted({*BY_ID[other].loses, "test_ndcg_zero", "test_ndcg_cutoff"})))
            for other in ("ideal-ascending", "ideal-from-top-k")
        ),
        PairCost(("ideal-all-relevant", "zero-ideal"),
                 "an ideal in which every position is relevant is never 0: the missing zero check cannot show",
                 lost=BY_ID["ideal-all-relevant"].loses, named=("ideal-all-relevant",)),
        PairCost(("cutoff-off-by-one", "zero-ideal"),
                 "a dcg that sums k - 1 documents is 0 for k = 1 and for a single document: an ndcg that does not "
                 "check for a zero ideal divides 0 by 0 on the k=1 and one-document cases too",
                 lost=(*BY_ID["cutoff-off-by-one"].loses, "test_ndcg_zero", "test_ndcg_cutoff", "test_ndcg_contract")),
        PairCost(("first-rank-skipped", "zero-ideal"),
                 "a dcg that skips rank 1 is 0 for k = 1 and for a single document: an ndcg that does not check "
                 "for a zero ideal divides 0 by 0 on the k=1 and one-document cases too",
                 lost=(*BY_ID["first-rank-skipped"].loses, "test_ndcg_zero", "test_ndcg_cutoff",
                       "test_ndcg_contract")),
        *(
            PairCost(("first-rank-skipped", other),
                     "a dcg that skips rank 1 gives the lecture example's top 2, [1, 0], a DCG of 0: at k=2 ndcg "
                     "returns 0, which is the ratio of the student's own dcg values too, and at k=5 this ideal is "
                     "the definition's, so the lecture group is credited as the student's own ratio",
                     lost=(*BY_ID["first-rank-skipped"].loses, "test_ndcg_ideal"))
            for other in ("ideal-from-top-k", "ideal-not-cut")
        ),
        PairCost(("one-document", "ideal-from-top-k"),
                 "at k = 1 an ideal built from the top k alone is a single document, which a dcg that refuses "
                 "one-document lists refuses: ndcg fails on the k=1 cases of the cut-off and zero groups too",
                 lost=("test_dcg_contract", "test_ndcg_contract", *BY_ID["ideal-from-top-k"].loses, "test_ndcg_cutoff",
                       "test_ndcg_zero")),
        PairCost(("returns-non-float", "not-normalized"),
                 "an ndcg that returns dcg's value returns dcg's numpy array too: ndcg's contract is lost as well",
                 lost=(*BY_ID["returns-non-float"].loses, *BY_ID["not-normalized"].loses, "test_ndcg_contract")),
    )
}
