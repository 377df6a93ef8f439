"""Every diagnosis's text, rendered for each catalogue mutant and each pair of mistakes, is usable (issue 34).

A student reads the example to see the mistake: so on the input shown, the value must differ from the
definition's, and "fixing only this" must change it (an example on which the mistake changes nothing
shows nothing); no word of the grader's machinery; and no advice the student's code already follows
(a check for a zero ideal told to code that has one); the student's own way of making a mistake named
where the mistake has several; no bracket inside a bracket; no exception named beside the one the code
raised; scikit-learn mentioned only to code that uses it.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import pytest
from pairs import ALL_PAIRS

from autograder.exercises.ndcg.catalogue import BY_ID, CATALOGUE
from autograder.exercises.ndcg.diagnosis import diagnose

from solutions import probe_records

SOLUTIONS = [
    *((f"{item.id}: {m.name}", m.dcg, m.ndcg) for item in CATALOGUE for m in item.mutants),
    *((f"pair {p.name}", p.dcg, p.ndcg) for p in ALL_PAIRS),
]
#: Words of the grader's machinery, not of the student's code.
MACHINERY = re.compile(r"\b(found call|found name|AST|parser?|probe|model|variant|witness)\b", re.IGNORECASE)
RETURNS = re.compile(r"your (?:dcg|ndcg) returns (\S+?);.*?≈ (\S+?)(?: |;|$)")
WOULD = re.compile(r"would return (\S+) ")
ZERO_CHECK = ("ideal == 0", "if ideal", "ZeroDivisionError", "ideal > 0", "ideal != 0")
EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
RAISED = re.compile(r"raised ([A-Z]\w*)")
#: Mistakes made in more than one way: the example says which one the student's code makes.
WAYS = {"log-base": "divides", "discount-offset": "divides", "first-rank-skipped": "leaves rank 1 out",
        "binary-relevance": " 1", "grades-truncated": "drops", "cutoff-off-by-one": "sums k"}


def _nested(text: str) -> bool:
    """Whether a bracketed aside holds another (a call's brackets, log2(i + 1), are no aside)."""
    depth = 0
    for before, char in zip(" " + text, text, strict=False):
        if char == "(":
            aside = not (before.isalnum() or before == "_")
            if aside and depth > 0:
                return True
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
    return False


def _findings(dcg: str, ndcg: str):
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return diagnose(probe_records(dcg, ndcg))


@pytest.mark.parametrize(("name", "dcg", "ndcg"), SOLUTIONS, ids=[name for name, _, _ in SOLUTIONS])
def test_each_example_shows_its_mistake_in_the_students_terms(name: str, dcg: str, ndcg: str) -> None:
    found = _findings(dcg, ndcg)
    texts = [(f.id, f.counterexample) for f in found.findings] + [("unexplained", t) for t in found.unexplained.values()]
    for mistake, text in texts:
        assert not MACHINERY.search(text), (mistake, text)
        shown = RETURNS.search(text)
        if shown is not None:
            mine, right = shown.groups()
            assert mine != right, (mistake, text)  # the input shown is one on which the value is wrong
            alone = WOULD.search(text)
            assert alone is None or alone.group(1) != mine, (mistake, text)  # ... and this mistake changes it
        advice = BY_ID[mistake].explanation if mistake in BY_ID else ""
        assert not _nested(text) and not _nested(advice), (mistake, text)
        raised = set(RAISED.findall(text))
        assert set(EXCEPTION.findall(advice + " " + text)) <= raised, (mistake, text)  # no other exception named
        if "scikit-learn" in advice + text:
            assert "sklearn" in dcg + ndcg or "more than 1 document" in dcg + ndcg, (mistake, text)
        if mistake in WAYS and shown is not None:
            assert WAYS[mistake] in text.split(":")[0], (mistake, text)  # the student's own way, first
        if mistake == "zero-ideal" and "must return 0.0" in text:
            # named only for an ndcg without a zero check (or whose check the numbers never reach)
            assert not any(check in ndcg for check in ZERO_CHECK) or "NaN" in text or "returns" in text, text
