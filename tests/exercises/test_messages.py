"""Sentences a student can use: what a hidden property checks, what came back, one change at a time."""

from __future__ import annotations

import contextlib
import io
import warnings

from autograder.exercises.ndcg.catalogue import BY_ID, CORRECT_DCG, CORRECT_NDCG
from autograder.exercises.ndcg.diagnosis import diagnose
from autograder.grading.scoring import returned

from corpus import EMPTY_ON_NOTHING_RELEVANT, FLOAT32_EXPONENTIAL, GAIN_TABLE, PRINTS
from solutions import functions_of, probe_records, scored


def _diagnosis(dcg: str, ndcg: str):
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return diagnose(probe_records(dcg, ndcg))


def test_a_failed_hidden_property_says_in_words_what_it_checks():
    truncated = BY_ID["grades-truncated"].mutants[0]
    results = {t.name: t for t in scored(functions_of(truncated.dcg, truncated.ndcg), b"\3" * 32)}
    message = results["test_dcg_grades"].message
    assert "broke a property" in message and "multiplying every grade by the same number" in message
    assert "[" not in message  # no hidden input


def test_what_came_back_is_said_in_the_students_terms():
    assert returned("NoneType").startswith("None (nothing: does the function print its value")
    assert returned("list") == "a list"
    assert "object" not in returned("object")
    printed = _diagnosis(PRINTS.dcg, PRINTS.ndcg)
    assert "returned None (nothing): does it print the value" in printed.findings[0].counterexample
    empty = _diagnosis(EMPTY_ON_NOTHING_RELEVANT.dcg, EMPTY_ON_NOTHING_RELEVANT.ndcg)
    assert "returned a list `[]`, not a number; it must return 0.0" in empty.findings[0].counterexample


def test_a_crash_on_grade_3_says_so_and_is_not_the_one_document_mistake():
    found = _diagnosis(GAIN_TABLE.dcg, GAIN_TABLE.ndcg)
    assert "one-document" not in found.ids
    text = next(f.counterexample for f in found.findings if f.id == "grade-range")
    assert "raised KeyError on grade 3: does your code assume grades 0–2?" in text


def test_a_float32_exponential_gain_is_named_not_unexplained():
    found = _diagnosis(FLOAT32_EXPONENTIAL.dcg, FLOAT32_EXPONENTIAL.ndcg)
    assert found.ids == ["exponential-gain"] and not found.unexplained


def test_an_example_changes_one_thing_from_the_students_own_function():
    # the case: exponential gain in dcg, an ideal from the top k in ndcg. The definition's
    # 0.6788 assumes both fixed; fixing only the ideal gives 0.6091 (exponential gain still there)
    dcg = BY_ID["exponential-gain"].mutants[0].dcg
    ndcg = BY_ID["ideal-from-top-k"].mutants[0].ndcg
    text = next(f.counterexample for f in _diagnosis(dcg, ndcg).findings if f.id == "ideal-from-top-k")
    values = functions_of(dcg, "def ndcg(rels, k):\n    return dcg(rels, k) / dcg(sorted(rels, reverse=True), k)")
    alone = values["ndcg"]([1, 3, 0, 2, 0], 2)
    assert f"fixing only this, your ndcg would return {alone:.4g}" in text
    single = next(f.counterexample for f in _diagnosis(CORRECT_DCG, ndcg).findings)
    assert "fixing only this" not in single  # one mistake: the definition's value is the one-change value


def test_a_correct_float32_dcg_keeps_every_point():
    source = ("import numpy as np\n\n\ndef dcg(rels, k):\n    r = np.asarray(rels[:k], dtype=np.float32)\n"
              "    return float(np.sum(r / np.log2(np.arange(2, r.size + 2, dtype=np.float32))))")
    for seed in (b"\1" * 32, b"\2" * 32):
        results = scored(functions_of(source, CORRECT_NDCG), seed)
        assert all(t.passed for t in results), [t.message for t in results if not t.passed]


def test_an_unnamed_function_is_shown_a_property_it_breaks_on_a_visible_input():
    # a gain of rel ** 1.5 is no known mistake: the page shows the scaling property it breaks, on its own values
    source = "import math\n\n\ndef dcg(rels, k):\n    return sum(r ** 1.5 / math.log2(i + 2) for i, r in enumerate(rels[:k]))"
    found = _diagnosis(source, CORRECT_NDCG)
    assert found.ids == []
    text = found.unexplained["dcg"]
    mine = functions_of(source, CORRECT_NDCG)["dcg"]
    assert "multiplying every grade by the same number" in text
    assert f"dcg([3, 1, 2, 0], 3) = {mine([3, 1, 2, 0], 3):.4g}" in text


def test_a_hidden_row_says_the_same_exception_only_when_a_visible_row_shows_it():
    # the visible row shows its first failure (a value); the AssertionError of its second case is on no row
    # (issue 34.3: "raised the same AssertionError as on the visible test cases above" pointed at nothing)
    dcg = (CORRECT_DCG + "\n\n\n_right = dcg\n\n\ndef dcg(rels, k):\n"
           "    assert k == 5, 'k must be 5'\n    return _right(rels, k) + 1.0")
    results = {t.name: t for t in scored(functions_of(dcg, CORRECT_NDCG), b"\4" * 32)}
    assert "returned" in results["test_dcg_lecture"].message
    hidden = [t.message for name, t in results.items() if name.startswith("test_dcg_") and "raised" in t.message]
    assert hidden and not any("the same" in m for m in hidden), hidden
    assert all("raised AssertionError" in m for m in hidden), hidden
    # where the visible row does show the exception, the hidden rows may refer to it
    everywhere = CORRECT_DCG + "\n\n\ndef dcg(rels, k):\n    raise AssertionError('no')"
    results = {t.name: t for t in scored(functions_of(everywhere, CORRECT_NDCG), b"\4" * 32)}
    assert "AssertionError" in results["test_dcg_lecture"].message
    assert any("the same AssertionError as on the visible test cases above" in t.message
               for t in results.values() if not t.visible)


def test_a_division_by_zero_inside_the_ideal_s_formula_is_not_told_to_check_the_ideal():
    # the ideal DCG divides rank 1 by log2(1) = 0 (numpy: inf, so ndcg is 0 where something is relevant, NaN
    # where nothing is): a check of the ideal DCG before dividing, which this code has, does not fix it
    ndcg = ("import numpy as np\n\n\ndef ndcg(rels, k):\n    ideal = np.sort(np.asarray(rels, dtype=float))[::-1][:k]\n"
            "    with np.errstate(all='ignore'):\n        idcg = float(np.sum(ideal / np.log2(np.arange(1, ideal.size + 1))))\n"
            "    if idcg == 0:\n        return 0.0\n    return dcg(rels, k) / idcg")
    found = _diagnosis(CORRECT_DCG, ndcg)
    assert "zero-ideal" not in found.ids
    said = found.unexplained["ndcg"]
    assert "nothing relevant" in said and "inside the formula of a DCG" in said and "log2(1) = 0" in said, said
    # the missing check itself is still named, with its advice
    assert _diagnosis(CORRECT_DCG, BY_ID["zero-ideal"].mutants[1].ndcg).ids == ["zero-ideal"]
