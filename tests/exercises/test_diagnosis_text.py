"""Every diagnosis's text, rendered for each catalogue mutant and each pair of mistakes, is usable (issue 34).

A student reads the example to see the mistake: so on the input shown, the value must differ from the
definition's, and "fixing only this" must change it (an example on which the mistake changes nothing
shows nothing); no word of the grader's machinery; and no advice the student's code already follows
(a check for a zero ideal told to code that has one).
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import pytest
from pairs import ALL_PAIRS

from autograder.exercises.ndcg.catalogue import CATALOGUE
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
        if mistake == "zero-ideal" and "must return 0.0" in text:
            # named only for an ndcg without a zero check (or whose check the numbers never reach)
            assert not any(check in ndcg for check in ZERO_CHECK) or "NaN" in text or "returns" in text, text
