"""The catalogue of known DCG/nDCG mistakes: one place for IDs, explanations and mutants.

Each :class:`Misconception` has a stable ID (reported in ``results.json``), a student-facing
explanation (shown in the feedback), and *mutants*: solutions that make exactly this mistake, as
a student would, graded by the tests through the real grading path (each loses exactly its groups
and is diagnosed with its own ID). ``docs/misconceptions.md`` is generated from this table
(``python -m autograder docs``); a test checks that the diagnosis models report exactly its IDs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...grading import Mistake
from .cases import GROUPS

CORRECT_DCG = '''import math


def dcg(rels, k):
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))'''

CORRECT_NDCG = '''def ndcg(rels, k):
    ideal = dcg(sorted(rels, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg(rels, k) / ideal'''


def _dcg(body: str, imports: str = "import math") -> str:
    return f"{imports}\n\n\ndef dcg(rels, k):\n" + "\n".join("    " + line for line in body.splitlines())


def _ndcg(body: str) -> str:
    return "def ndcg(rels, k):\n" + "\n".join("    " + line for line in body.splitlines())


@dataclass(frozen=True)
class Mutant:
    """A solution with one mistake: the sources of its ``dcg`` and ``ndcg`` cells."""

    name: str
    dcg: str = CORRECT_DCG
    ndcg: str = CORRECT_NDCG
    #: The test groups (grade ids) it loses, where they differ from its misconception's.
    loses: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Misconception(Mistake):
    """A mistake of the catalogue with the solutions that make it (graded by the mutation tests)."""

    mutants: tuple[Mutant, ...] = ()
    #: The test groups (grade ids) this mistake costs, and only these (the mutation tests check it):
    #: the groups about what it gets wrong, never the contract or properties it keeps.
    loses: tuple[str, ...] = ()

    def groups_lost(self, mutant: Mutant) -> tuple[str, ...]:
        """The groups ``mutant`` (one of :attr:`mutants`) loses."""
        return mutant.loses if mutant.loses is not None else self.loses


#: A rounded dcg: the groups comparing its values, exactly or scaled (the cut-off properties hold: same terms)
DCG_VALUES = ("test_dcg_lecture", "test_dcg_discount", "test_dcg_grades")

CATALOGUE: tuple[Misconception, ...] = (
    Misconception(
        "log-base",
        "Logarithm with the wrong base",
        "The discount uses log base 2: rank i is divided by log2(i + 1). A natural log (math.log) "
        "or log10 gives other numbers for DCG. In nDCG the base cancels out when the DCG and the ideal "
        "DCG use the same one, so there only an ideal computed with another discount is wrong. "
        "Use math.log2(i + 1), or math.log(i + 1, 2).",
        (
            Mutant("natural log", dcg=_dcg("return sum(rels[i] / math.log(i + 2) for i in range(min(k, len(rels))))")),
            Mutant("log10", dcg=_dcg("return sum(rels[i] / math.log10(i + 2) for i in range(min(k, len(rels))))")),
        ),
        loses=("test_dcg_lecture", "test_dcg_discount"),
    ),
    Misconception(
        "discount-offset",
        "Rank offset in the discount",
        "With rank i counted from 1, the document at rank i is divided by log2(i + 1): rank 1 by "
        "log2(2) = 1, rank 2 by log2(3), rank 3 by log2(4) = 2. In a 0-based Python loop over "
        "index j that is log2(j + 2). Dividing by log2(i) with rank 1 left undiscounted is the "
        "original Järvelin–Kekäläinen form, not the lecture's (in ln i it is also the wrong base); "
        "log2(i + 2) for 1-based i shifts every discount by one rank, also when rank 1 is left "
        "undiscounted.",
        (
            Mutant("Järvelin–Kekäläinen log2(i)", dcg=_dcg(
                "if not rels:\n    return 0.0\n"
                "return rels[0] + sum(rels[i] / math.log2(i + 1) for i in range(1, min(k, len(rels))))")),
            Mutant("log2(i + 2) for 1-based i", dcg=_dcg(
                "return sum(rels[i - 1] / math.log2(i + 2) for i in range(1, min(k, len(rels)) + 1))")),
            Mutant("rank 1 undiscounted, log2(i + 2) after", dcg=_dcg(
                "if not rels:\n    return 0.0\n"
                "return rels[0] + sum(rels[i] / math.log2(i + 3) for i in range(1, min(k, len(rels))))")),
        ),
        loses=("test_dcg_lecture", "test_dcg_discount"),
    ),
    Misconception(
        "first-rank-skipped",
        "First document skipped",
        "DCG@k sums ranks 1 to k, and the document at rank 1 counts most (divided by log2(2) = 1). "
        "A loop over range(1, ...) with 0-based indexes starts at rank 2: the best-placed document "
        "adds nothing, a ranking whose only relevant document is at rank 1 gets DCG 0, and so does "
        "every ranking at k = 1 (its ideal too, so nDCG divides 0 by 0 there). Start at index 0 and "
        "divide rels[i] by log2(i + 2).",
        (
            Mutant("first document skipped", dcg=_dcg(
                "return sum(rels[i] / math.log2(i + 1) for i in range(1, min(k, len(rels))))")),
            Mutant("sum from rank 2, lecture discount", dcg=_dcg(
                "return sum(rels[i] / math.log2(i + 2) for i in range(1, min(k, len(rels))))")),
        ),
        loses=("test_dcg_lecture", "test_dcg_discount"),
    ),
    Misconception(
        "no-discount",
        "No discount at all",
        "Adding up the grades of the top k without dividing by log2(i + 1) is the cumulative gain "
        "CG@k, not DCG@k: it ignores the order inside the top k. Divide each grade by log2(i + 1).",
        (Mutant("plain sum", dcg=_dcg("return float(sum(rels[:k]))", imports="")),),
        loses=("test_dcg_lecture", "test_dcg_discount"),
    ),
    Misconception(
        "discount-multiplied",
        "Discount multiplied instead of divided",
        "Later ranks must count less, so the grade is divided by log2(i + 1); multiplying by it "
        "makes later ranks count more. Use rels[i] / math.log2(i + 2) in a 0-based loop.",
        (Mutant("multiplied", dcg=_dcg("return sum(rels[i] * math.log2(i + 2) for i in range(min(k, len(rels))))")),),
        loses=("test_dcg_lecture", "test_dcg_discount"),
    ),
    Misconception(
        "exponential-gain",
        "Exponential gain 2^rel - 1",
        "The course uses the grade itself as the gain (linear gain). The gain 2^rel - 1 (Burges et "
        "al.) is a different variant of DCG that some libraries use; it agrees with the lecture's "
        "only for grades 0 and 1. Use rels[i], not 2 ** rels[i] - 1.",
        (Mutant("2 ** rel - 1", dcg=_dcg(
            "return sum((2 ** rels[i] - 1) / math.log2(i + 2) for i in range(min(k, len(rels))))")),),
        loses=("test_dcg_lecture", "test_dcg_grades"),
    ),
    Misconception(
        "grades-truncated",
        "Grades truncated or thresholded",
        "The gain is the grade itself, fractional grades included: a document of grade 2.5 counts "
        "2.5 and one of grade 0.5 counts 0.5. int(rel) makes 2.5 into 2 and 0.5 into 0, and "
        "`if rel >= 1` drops the grades below 1 as if they were not relevant. Use rels[i] as it is "
        "(float(rel), never int(rel)).",
        (
            Mutant("int(rel)", dcg=_dcg(
                "return sum(int(rels[i]) / math.log2(i + 2) for i in range(min(k, len(rels))))")),
            Mutant("grades below 1 dropped", dcg=_dcg(
                "return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))) if rels[i] >= 1)")),
            # grades kept as text (as read from a qrels file) and made whole numbers in the ideal: int("0.5")
            # and int("0.0") raise ValueError, so the ideal group's fractions and the zero group's 0.0 are lost
            Mutant("int() of the grades' text in the ideal", ndcg=_ndcg(
                "grades = [str(r) for r in rels]\nideal = dcg(sorted((int(g) for g in grades), reverse=True), k)\n"
                "if ideal == 0:\n    return 0.0\nreturn dcg(rels, k) / ideal"),
                loses=("test_ndcg_ideal", "test_ndcg_zero")),
            Mutant("int() of the grades' text in dcg", dcg=_dcg(  # its ValueError on 2.5 or 0.0 is ndcg's too
                "grades = [str(r) for r in rels]\n"
                "return sum(int(grades[i]) / math.log2(i + 2) for i in range(min(k, len(rels))))"),
                loses=("test_dcg_grades", "test_ndcg_ideal", "test_ndcg_zero")),
        ),
        loses=("test_dcg_grades",),
    ),
    Misconception(
        "binary-relevance",
        "Binary relevance",
        "The grades are graded relevance: a document of grade 2 counts twice as much as one of "
        "grade 1. Counting every grade above 0 as 1 (as precision or hit-rate code does) computes "
        "another measure, whether in the DCG, in the ideal DCG (an ideal made from the number of "
        "relevant documents) or in both. Use rels[i] as the gain and sort the grades themselves "
        "for the ideal ranking.",
        (
            Mutant("hits in the DCG", dcg=_dcg(
                "return sum((1 if rels[i] > 0 else 0) / math.log2(i + 2) for i in range(min(k, len(rels))))")),
            Mutant("ideal from the number of relevant documents", ndcg="import math\n\n\n" + _ndcg(
                "relevant = sum(1 for r in rels if r > 0)\n"
                "ideal = sum(1 / math.log2(i + 2) for i in range(min(k, relevant)))\n"
                "if ideal == 0:\n    return 0.0\nreturn dcg(rels, k) / ideal"),
                loses=("test_ndcg_lecture", "test_ndcg_ideal")),
        ),
        loses=("test_dcg_lecture", "test_dcg_grades"),
    ),
    Misconception(
        "grade-range",
        "Only grades 0–2 supported",
        "A grade can be any number from 0 up: 3, 4 or 2.5 as well as 0, 1 and 2. Code that looks "
        "grades up in a table made for 0, 1 and 2 (a list counts = [0, 0, 0], a dict {0: ..., 1: ..., "
        "2: ...}) fails on grade 3, and a check that refuses grades above 2 "
        "refuses the course's own inputs. Compute with the grade itself.",
        (Mutant("grades above 2 refused", ndcg=_ndcg(
            "if max(rels, default=0) > 2:\n    raise ValueError('grades must be between 0 and 2')\n"
            "ideal = dcg(sorted(rels, reverse=True), k)\nif ideal == 0:\n    return 0.0\n"
            "return dcg(rels, k) / ideal")),),
        # the group whose cases hold grade 3 for ndcg; no contract, cut-off or zero case does
        loses=("test_ndcg_ideal",),
    ),
    Misconception(
        "cutoff-ignored",
        "Cut-off k ignored",
        "DCG@k only counts the top k documents. Summing the whole list gives DCG@n. Stop the sum "
        "after min(k, len(rels)) documents.",
        (Mutant("whole list", dcg=_dcg("return sum(rels[i] / math.log2(i + 2) for i in range(len(rels)))")),),
        loses=("test_dcg_lecture", "test_dcg_cutoff"),
    ),
    Misconception(
        "cutoff-off-by-one",
        "Off by one at the cut-off",
        "DCG@k sums exactly k documents (ranks 1 to k, which are indexes 0 to k - 1). "
        "range(min(k, len(rels))) is right; range(k - 1) or range(k + 1) sums one document too "
        "few or too many.",
        (
            Mutant("k - 1 documents", dcg=_dcg(
                "return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels)) - 1))")),
            Mutant("k + 1 documents", dcg=_dcg(
                "return sum(rels[i] / math.log2(i + 2) for i in range(min(k + 1, len(rels))))")),
        ),
        loses=("test_dcg_lecture", "test_dcg_cutoff"),
    ),
    Misconception(
        "cutoff-at-relevant",
        "Cut at the number of relevant documents",
        "DCG@k sums the top k ranks, relevant or not. Cutting at the number of relevant documents "
        "(k = min(k, number of relevant ones), as some recommender code does) drops the relevant "
        "documents ranked below that number. Cut at min(k, len(rels)) only.",
        (Mutant("k = min(k, relevant)", dcg=_dcg(
            "k = min(k, sum(1 for r in rels if r > 0))\n"
            "return sum(rels[i] / math.log2(i + 2) for i in range(k))")),),
        loses=("test_dcg_lecture", "test_dcg_cutoff"),
    ),
    Misconception(
        "ideal-not-sorted",
        "Ideal ranking not sorted",
        "The ideal ranking is the list sorted by grade, descending. sorted(rels, reverse=True) "
        "returns a new list and leaves rels as it is: its result must be used. With the ranking "
        "itself as the ideal, nDCG is always 1.",
        (Mutant("result of sorted thrown away", ndcg=_ndcg(
            "sorted(rels, reverse=True)\nideal = dcg(rels, k)\nif ideal == 0:\n    return 0.0\n"
            "return dcg(rels, k) / ideal")),),
        # an ndcg that is 1 on every input computes nothing: its k and zero cases say nothing either
        loses=("test_ndcg_lecture", "test_ndcg_ideal", "test_ndcg_cutoff", "test_ndcg_zero"),
    ),
    Misconception(
        "ideal-ascending",
        "Ideal ranking sorted ascending",
        "The ideal ranking puts the most relevant documents first: sorted(rels, reverse=True). "
        "sorted(rels) puts them last.",
        (Mutant("ascending", ndcg=_ndcg(
            "ideal = dcg(sorted(rels), k)\nif ideal == 0:\n    return 0.0\nreturn dcg(rels, k) / ideal")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "ideal-not-cut",
        "Ideal DCG not cut at k",
        "nDCG@k divides by the DCG@k of the ideal ranking: the ideal list is cut at the same k. "
        "Using the DCG of the whole ideal list (or cutting it at the number of relevant documents, "
        "which is the same) makes nDCG@k too small whenever a relevant document lies below rank k.",
        (Mutant("whole ideal list", ndcg=_ndcg(
            "ideal = dcg(sorted(rels, reverse=True), len(rels))\nif ideal == 0:\n    return 0.0\n"
            "return dcg(rels, k) / ideal")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "ideal-from-top-k",
        "Ideal built from the top k only",
        "The ideal ranking sorts the grades of all documents, including relevant ones below rank "
        "k: sorted(rels, reverse=True), then cut at k. Sorting only rels[:k] misses a highly "
        "relevant document that the system ranked too low, so nDCG comes out too high.",
        (Mutant("sorted(rels[:k])", ndcg=_ndcg(
            "ideal = dcg(sorted(rels[:k], reverse=True), k)\nif ideal == 0:\n    return 0.0\n"
            "return dcg(rels, k) / ideal")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "ideal-all-relevant",
        "Ideal made of every position marked relevant",
        "The ideal ranking is this ranking's own grades sorted best first. An ideal in which every "
        "position of the top k is relevant with grade 1 (the sum of 1/log2(i + 1) over the top k) "
        "is the DCG of another ranking, not of the best order of this one. Use "
        "dcg(sorted(rels, reverse=True), k).",
        (Mutant("every position relevant", ndcg="import math\n\n\n" + _ndcg(
            "ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(rels))))\n"
            "if ideal == 0:\n    return 0.0\nreturn dcg(rels, k) / ideal")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "ratio-inverted",
        "Ratio inverted",
        "nDCG@k = DCG@k / iDCG@k, the ranking's DCG divided by the ideal one, so it lies between "
        "0 and 1. iDCG / DCG is 1 or more.",
        (Mutant("iDCG / DCG", ndcg=_ndcg(
            "ideal = dcg(sorted(rels, reverse=True), k)\nactual = dcg(rels, k)\nif actual == 0:\n    return 0.0\n"
            "return ideal / actual")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "not-normalized",
        "nDCG not normalised",
        "ndcg must divide DCG@k by the ideal DCG@k; returning DCG@k itself is not normalised and "
        "can be larger than 1.",
        (Mutant("returns DCG", ndcg=_ndcg("return dcg(rels, k)")),),
        loses=("test_ndcg_lecture", "test_ndcg_ideal"),
    ),
    Misconception(
        "mutates-input",
        "Input list modified",
        "rels.sort() sorts the caller's list in place: after your function returns, the caller's "
        "ranking is destroyed (and the next computation on it is wrong). Use sorted(rels, "
        "reverse=True), which returns a new list.",
        (Mutant("rels.sort()", ndcg=_ndcg(
            "actual = dcg(rels, k)\nrels.sort(reverse=True)\nideal = dcg(rels, k)\nif ideal == 0:\n    return 0.0\n"
            "return actual / ideal")),),
        loses=("test_ndcg_contract",),
    ),
    Misconception(
        "zero-ideal",
        "Zero ideal DCG not handled",
        "When no document is relevant, iDCG@k = 0 and DCG@k / iDCG@k is 0 / 0. The convention is "
        "nDCG@k = 0.0: check for an ideal DCG of 0 before dividing.",
        (
            Mutant("ZeroDivisionError", ndcg=_ndcg("return dcg(rels, k) / dcg(sorted(rels, reverse=True), k)")),
            Mutant("NaN from numpy", ndcg="import numpy as np\n\n\n" + _ndcg(
                "with np.errstate(all='ignore'):\n"
                "    return float(np.float64(dcg(rels, k)) / np.float64(dcg(sorted(rels, reverse=True), k)))")),
        ),
        loses=("test_ndcg_zero",),
    ),
    Misconception(
        "k-beyond-length",
        "Fails when k is larger than the list",
        "If k is larger than the list, DCG@k sums the whole list. Looping over range(k) and "
        "indexing rels[i] reads past the end of the list; loop over range(min(k, len(rels))) or over rels[:k].",
        (Mutant("range(k)", dcg=_dcg(
            "total = 0.0\nfor i in range(k):\n    total += rels[i] / math.log2(i + 2)\nreturn total")),),
        loses=("test_dcg_cutoff", "test_ndcg_cutoff"),
    ),
    Misconception(
        "one-document",
        "Fails on a one-document list",
        "A ranking of a single document is a ranking too: DCG@k is its grade, and nDCG@k is 1.0 if "
        "it is relevant (0.0 if not). Code that refuses such lists, or builds on a library function "
        "that does, fails here: compute it as for any other list, nDCG from your own dcg.",
        (Mutant("refuses one document, as scikit-learn does", ndcg=_ndcg(
            "if len(rels) < 2:\n    raise ValueError('Computing NDCG is only meaningful when there is more than 1 "
            "document.')\nideal = dcg(sorted(rels, reverse=True), k)\nif ideal == 0:\n    return 0.0\n"
            "return dcg(rels, k) / ideal")),
         Mutant("dcg refuses one document", dcg=_dcg(  # an ndcg that calls it fails there too
             "if len(rels) < 2:\n    raise ValueError('a ranking needs at least two documents')\n"
             "return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))"),
             loses=("test_dcg_contract", "test_ndcg_contract"))),
        loses=("test_ndcg_contract",),
    ),
    Misconception(
        "prints-not-returns",
        "Value printed, not returned",
        "print(value) shows the number, but the function still returns None: the tests, and an ndcg "
        "that divides dcg's values, get nothing to work with. End the function with return value.",
        (Mutant("print instead of return", dcg=_dcg(
            "print(sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels)))))")),),
        # nothing comes back: no group of dcg, nor of an ndcg that divides dcg's values, can pass
        loses=tuple(group.grade_id for group in GROUPS),
    ),
    Misconception(
        "returns-non-float",
        "Result is not a plain number",
        "dcg and ndcg must return a number (a float). A numpy array, even one with a single value "
        "(what .squeeze() or keepdims leave), a Decimal or a string is not one: the tests compare "
        "numbers. Wrap the result in float(...), or sum with sum() or np.sum() over a 1-d array.",
        (Mutant("0-d numpy array", dcg=_dcg(
            "top = np.asarray(rels[:k], dtype=float)\n"
            "return (top / np.log2(np.arange(2, top.size + 2))).sum(keepdims=True).squeeze()",
            imports="import numpy as np")),),
        loses=("test_dcg_contract",),
    ),
    Misconception(
        "rounded",
        "Result rounded",
        "Return the exact value; do not round it. The exam's hand answers are rounded to two "
        "decimals (2.43, 0.78), but a function that rounds gives wrong values for every ranking "
        "whose DCG has more decimals.",
        (
            Mutant("dcg rounded to 2 decimals", dcg=_dcg(
                "return round(sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels)))), 2)"),
                loses=DCG_VALUES),
            Mutant("ndcg rounded to 2 decimals", ndcg=_ndcg(
                "ideal = dcg(sorted(rels, reverse=True), k)\nif ideal == 0:\n    return 0.0\n"
                "return round(dcg(rels, k) / ideal, 2)"),
                # the groups that check ndcg's exact values; its properties (k) compare like with like
                loses=("test_ndcg_lecture", "test_ndcg_ideal")),
            Mutant("dcg formatted to 6 decimals", dcg=_dcg(
                'return float(f"{sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels)))):.6f}")'),
                loses=DCG_VALUES),
        ),
    ),
)

BY_ID = {m.id: m for m in CATALOGUE}
