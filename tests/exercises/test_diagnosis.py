"""The diagnosis engine on its own (in-process, fast): mutants, combinations, correct solutions."""

from __future__ import annotations

import itertools
import math

import pytest

from autograder.exercises.ndcg.cases import GROUPS
from autograder.exercises.ndcg.catalogue import BY_ID, CATALOGUE, CORRECT_DCG, CORRECT_NDCG
from autograder.exercises.ndcg.diagnosis import ALL_PROBES, diagnose, variants
from autograder.exercises.ndcg.diagnosis.matching import MAX_MISTAKES
from autograder.exercises.ndcg.diagnosis.models import (
    DcgModel,
    NdcgModel,
    dcg_models,
    ndcg_mistake_counter,
    ndcg_models,
)
from autograder.exercises.ndcg.diagnosis.probes import DCG_PROBES, NDCG_PROBES
from autograder.exercises.ndcg.documentation import catalogue_markdown

from solutions import CORRECT_SOLUTIONS, probe_records

ISSUE_IDS = {
    "log-base", "discount-offset", "no-discount", "discount-multiplied", "exponential-gain", "cutoff-ignored",
    "cutoff-off-by-one", "ideal-not-sorted", "ideal-ascending", "ideal-not-cut", "ideal-from-top-k",
    "ratio-inverted", "not-normalized", "mutates-input", "zero-ideal", "k-beyond-length", "rounded",
    "returns-non-float", "one-document",
    # mistakes real code makes, beyond the catalogue's textbook mutants
    "grades-truncated", "binary-relevance", "cutoff-at-relevant", "ideal-all-relevant", "grade-range",
    "prints-not-returns", "first-rank-skipped",
}
MUTANTS = [(item.id, mutant) for item in CATALOGUE for mutant in item.mutants]


def mistake_ids() -> set[str]:
    """Every catalogue ID a diagnosis model can report: the mistakes of every variant, and rounding."""
    tables = (variants.GAINS, variants.WEIGHTS, variants.CUTOFFS, variants.ORDERS, variants.SCOPES, variants.CUTS,
              variants.RATIOS)
    return {mistake for table in tables for v in table for mistake in v.mistakes} | {variants.ROUNDED}


def test_the_catalogue_has_every_mistake_once():
    assert [item.id for item in CATALOGUE] == list(BY_ID)
    assert set(BY_ID) == ISSUE_IDS
    for item in CATALOGUE:
        assert item.mutants and item.explanation and item.title
        for mutant in item.mutants:
            assert (mutant.dcg, mutant.ndcg) != (CORRECT_DCG, CORRECT_NDCG), item.id


@pytest.mark.parametrize("mistake, mutant", MUTANTS, ids=[f"{i}:{m.name}" for i, m in MUTANTS])
def test_each_mutant_is_diagnosed_with_its_own_id_only(mistake, mutant):
    found = diagnose(probe_records(mutant.dcg, mutant.ndcg))
    assert found.ids == [mistake]
    assert not found.unexplained
    assert all(f.counterexample for f in found.findings)


@pytest.mark.parametrize(
    "first, second",
    [("log-base", "ideal-not-cut"), ("exponential-gain", "ideal-from-top-k"), ("cutoff-ignored", "zero-ideal"),
     ("discount-offset", "ratio-inverted"), ("k-beyond-length", "mutates-input"), ("rounded", "ideal-ascending"),
     ("no-discount", "ideal-ascending"), ("cutoff-off-by-one", "not-normalized")],
)
def test_two_mistakes_at_once_are_both_reported(first, second):
    dcg_source = BY_ID[first].mutants[0].dcg
    ndcg_source = BY_ID[second].mutants[0].ndcg
    assert set(diagnose(probe_records(dcg_source, ndcg_source)).ids) == {first, second}


@pytest.mark.parametrize("name", CORRECT_SOLUTIONS)
def test_correct_solutions_get_no_diagnosis(name):
    found = diagnose(probe_records(*CORRECT_SOLUTIONS[name]))
    assert found.ids == [] and found.unexplained == {}


def test_with_no_discount_a_top_k_ideal_cannot_be_told_from_an_unsorted_one():
    # sum(rels[:k]) / sum(sorted(rels[:k])[:k]) == 1 == sum(rels[:k]) / sum(rels[:k]): one of the two, not both
    found = diagnose(probe_records(BY_ID["no-discount"].mutants[0].dcg, BY_ID["ideal-not-sorted"].mutants[0].ndcg))
    assert "no-discount" in found.ids and len(found.ids) == 2
    assert set(found.ids) - {"no-discount"} <= {"ideal-not-sorted", "ideal-from-top-k"}


def test_unrecognised_behaviour_gets_a_message_but_no_id():
    found = diagnose(probe_records("def dcg(rels, k):\n    return len(rels) * 1.5 + k", CORRECT_NDCG))
    assert found.ids == []
    assert "does not match a known mistake" in found.unexplained["dcg"]
    assert "for rels=" in found.unexplained["dcg"]


def test_a_stub_is_not_diagnosed_as_a_mistake():
    stub = "def dcg(rels, k):\n    raise NotImplementedError()"
    found = diagnose(probe_records(stub, "def ndcg(rels, k):\n    raise NotImplementedError()"))
    assert found.ids == []
    assert "NotImplementedError on every input" in found.unexplained["dcg"]


def test_counterexample_shows_the_formula():
    found = diagnose(probe_records(BY_ID["log-base"].mutants[0].dcg, CORRECT_NDCG))
    text = found.findings[0].counterexample
    # the student's own way of making the mistake first, then the example
    assert text.startswith("your dcg divides the grade at rank i by ln(i + 1): for rels=[3, 2], k=2 your dcg returns")
    right = 3 / math.log2(2) + 2 / math.log2(3)
    assert f"3/log2(2) + 2/log2(3) ≈ {right:.4g}" in text


def test_probes_are_not_hidden_test_cases():
    # nor any other call a hidden case makes (a companion, the student's own dcg for an ndcg case)
    cases = {call for g in GROUPS for c in g.cases if not g.visible for call in (c.call, *c.extra_calls)}
    assert cases and not cases & set(ALL_PROBES)


def test_models_report_exactly_the_catalogue():
    # the IDs are declared once, on the variants; every one must be in the catalogue and vice versa,
    # except the contract mistakes, which are recognised from the records rather than from a model
    contract = {"mutates-input", "zero-ideal", "k-beyond-length", "returns-non-float", "one-document", "grade-range",
                "prints-not-returns"}
    assert mistake_ids() == set(BY_ID) - contract
    reported = {m for model in (*dcg_models(), *ndcg_models()) for m in model.mistakes}
    assert reported == mistake_ids()


def test_no_model_with_a_mistake_looks_correct_on_the_probes():
    correct = DcgModel()
    for model in dcg_models():
        if model.mistakes:
            assert any(
                not math.isclose(model.predict(p, {}), correct.predict(p, {}), rel_tol=1e-9, abs_tol=1e-9)
                for p in DCG_PROBES
            ), model
    linear = DcgModel()  # an ndcg computing the lecture's DCG itself
    reference = NdcgModel(source=linear)
    expected = {p: reference.predict(p, {}) for p in NDCG_PROBES}
    for model in ndcg_models():
        if model.mistakes and model.source == linear:
            predictions = [(model.predict(p, {}), expected[p]) for p in NDCG_PROBES]
            assert any(a is None or not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in predictions), model


def test_the_fast_mistake_count_is_the_number_of_each_models_mistakes():
    # the table is sorted, and the believed models chosen, by the counter instead of the property
    count = ndcg_mistake_counter()
    table = ndcg_models()
    assert [count(m) for m in table] == [len(m.mistakes) for m in table]
    assert [len(m.mistakes) for m in table] == sorted(len(m.mistakes) for m in table)  # fewest first


def test_models_that_look_alike_differ_only_in_a_rounding_that_changes_nothing():
    # among the models the diagnosis believes (more mistakes at once fit almost anything)
    believed = [m for m in dcg_models() if len(m.mistakes) <= MAX_MISTAKES]
    values = {m: [m.predict(p, {}) for p in DCG_PROBES] for m in believed}
    for a, b in itertools.combinations(believed, 2):
        if set(a.mistakes) != set(b.mistakes) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(values[a], values[b], strict=True)):
            # the same values: a rounding that changes nothing on the probes (integers, halves)
            assert set(a.mistakes) ^ set(b.mistakes) == {"rounded"}, (a, b)


def test_catalogue_documentation_is_up_to_date():
    from conftest import ROOT

    assert (ROOT / "docs" / "misconceptions.md").read_text(encoding="utf-8") == catalogue_markdown(), "run `make docs`"


@pytest.mark.parametrize("wrap, kind", [
    ("np.asarray({}).squeeze()", "ndarray"), ("np.array([{}])[0]", None), ("decimal.Decimal({})", "Decimal"),
])
def test_a_non_float_result_names_its_type_and_the_mistakes_its_value_shows(wrap, kind):
    # a 0-d array (or a Decimal) with exponential gain inside must be named, not only "not a number"
    body = "sum((2 ** rels[i] - 1) / math.log2(i + 2) for i in range(min(k, len(rels))))"
    dcg_source = f"import math, decimal\nimport numpy as np\n\n\ndef dcg(rels, k):\n    return {wrap.format(body)}"
    found = diagnose(probe_records(dcg_source, CORRECT_NDCG))
    if kind is None:  # a numpy float64 is a number: only the gain is wrong
        assert found.ids == ["exponential-gain"]
        return
    assert set(found.ids) == {"exponential-gain", "returns-non-float"}
    assert any(kind in f.counterexample for f in found.findings if f.id == "returns-non-float")


@pytest.mark.parametrize("decimals", [5, 6, 8])
def test_rounding_to_any_number_of_decimals_is_named_also_beside_another_mistake(decimals):
    # round(x, 6) on top of another mistake must still name that mistake
    dcg_source = BY_ID["log-base"].mutants[0].dcg.replace("return sum(", "return round(sum(").rstrip() + f", {decimals})"
    assert set(diagnose(probe_records(dcg_source, CORRECT_NDCG)).ids) == {"log-base", "rounded"}


def test_a_constant_is_not_explained_by_a_pile_of_mistakes():
    # with six parts wrong at once some model fits a function that returns 0; it is named as it is
    found = diagnose(probe_records(CORRECT_DCG, "def ndcg(rels, k):\n    return 0.0"))
    assert found.ids == []
    assert "returned 0.0 on every input we tried" in found.unexplained["ndcg"]


def test_nan_from_a_zero_ideal_inside_a_0d_array_names_the_zero_ideal():
    # numpy divides 0 by 0 to NaN, and a 0-d array holds it: both the type and the zero ideal are named
    ndcg_source = (
        "import numpy as np\n\n\ndef ndcg(rels, k):\n    with np.errstate(all='ignore'):\n"
        "        return (np.asarray([dcg(rels, k)]) / np.asarray([dcg(sorted(rels, reverse=True), k)])).squeeze()"
    )
    found = diagnose(probe_records(CORRECT_DCG, ndcg_source))
    assert set(found.ids) == {"returns-non-float", "zero-ideal"}
    assert "NaN" in next(f.counterexample for f in found.findings if f.id == "zero-ideal")


def test_a_grade_handled_as_text_in_ndcg_is_named_from_ndcg_s_own_probes():
    # int() of a grade's text raises ValueError on "0.5": the dcg is right, only ndcg shows it
    ndcg_source = next(m.ndcg for m in BY_ID["grades-truncated"].mutants if m.ndcg != CORRECT_NDCG)
    found = diagnose(probe_records(CORRECT_DCG, ndcg_source))
    assert found.ids == ["grades-truncated"]
    assert "ValueError" in found.findings[0].counterexample and found.findings[0].function == "ndcg"


@pytest.mark.parametrize(("discount", "mistake"), [
    ("math.log2(i + 2)", None), ("math.log(i + 2)", "log-base"), ("math.log10(i + 2)", "log-base"),
    ("(1 if i == 0 else math.log2(i + 1))", "discount-offset"), ("math.log2(i + 3)", "discount-offset"),
])
@pytest.mark.parametrize("counted", ["rels", "rels[:k]"])
def test_an_ideal_of_min_relevant_k_gains_of_1_is_named_whatever_its_discount(discount, mistake, counted):
    # recommender code: the ranking through dcg, the ideal DCG summed in ndcg from a count of relevant
    # documents, with a discount of its own (issue 34.2: it was named nothing)
    ndcg = ("import math\n\n\ndef ndcg(rels, k):\n"
            f"    n = min(sum(1 for r in {counted} if r > 0), k)\n"
            f"    ideal = sum(1 / {discount} for i in range(n))\n"
            "    return dcg(rels, k) / ideal if ideal else 0.0")
    found = diagnose(probe_records(CORRECT_DCG, ndcg))
    expected = {"binary-relevance"} | ({mistake} if mistake else set()) | ({"ideal-from-top-k"} if "[:k]" in counted else set())
    assert set(found.ids) == expected, (found.ids, found.unexplained)
