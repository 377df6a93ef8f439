"""Shared by the by-hand tests: what a student writes who works a list out by hand, and what each mistake costs."""

from __future__ import annotations

from autograder.exercises.ndcg.byhand.steps import Steps

#: The steps each mistake makes wrong, from what the mistake is (nDCG follows through from the
#: student's own DCG and iDCG, so only "ratio inverted" loses it).
LOST = {
    "natural log": {"byhand_dcg", "byhand_idcg"},
    "log10": {"byhand_dcg", "byhand_idcg"},
    "gain 2^rel - 1": {"byhand_dcg", "byhand_idcg"},
    "Järvelin–Kekäläinen discount": {"byhand_dcg", "byhand_idcg"},
    "ideal not sorted": {"byhand_ideal", "byhand_idcg"},
    "ideal from the top k only": {"byhand_ideal", "byhand_idcg"},
    "ideal not cut at k": {"byhand_idcg"},
    "ratio inverted": {"byhand_ndcg"},
}

def answer_cell(steps: Steps, decimals: int = 2) -> str:
    """What a student writes who worked ``steps`` out by hand and rounded to ``decimals``."""
    ideal = [int(g) for g in steps.ideal]
    return (f"IDEAL_RANKING = {ideal}\nDCG_AT_K = {steps.dcg:.{decimals}f}\nIDCG_AT_K = {steps.idcg:.{decimals}f}\n"
            f"NDCG_AT_K = {round(steps.dcg, decimals)} / {round(steps.idcg, decimals)}"
            if steps.ndcg == steps.dcg / steps.idcg else
            f"IDEAL_RANKING = {ideal}\nDCG_AT_K = {steps.dcg:.{decimals}f}\nIDCG_AT_K = {steps.idcg:.{decimals}f}\n"
            f"NDCG_AT_K = {steps.ndcg:.{decimals}f}")
