"""A corpus of real-looking implementations: each gets its mistakes named and loses exactly its groups.

Fast, in this process (trusted code written for the tests): the records are made as the runner
makes them, and scored and diagnosed by the real scoring and diagnosis. The slow mutation test
(test_mutation.py) grades the same corpus through the real sandbox.
"""

from __future__ import annotations

import warnings

import pytest

from autograder.exercises.ndcg.catalogue import BY_ID
from autograder.exercises.ndcg.diagnosis import diagnose

from corpus import CORPUS, Implementation
from solutions import lost_groups, probe_records


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's 0/0 warnings: the NaN is what the test looks at
        yield


@pytest.mark.parametrize("implementation", CORPUS, ids=lambda i: i.name)
def test_each_mistake_is_named(implementation: Implementation):
    found = diagnose(probe_records(implementation.dcg, implementation.ndcg))
    assert set(found.ids) == implementation.mistakes, found.unexplained
    assert set(found.unexplained) == set(implementation.unexplained)
    for function, words in implementation.unexplained.items():
        for word in words:
            assert word in found.unexplained[function]
    assert all(mistake in BY_ID for mistake in found.ids)


@pytest.mark.parametrize("implementation", CORPUS, ids=lambda i: i.name)
def test_each_loses_exactly_its_groups(implementation: Implementation):
    assert lost_groups(implementation.dcg, implementation.ndcg) == implementation.loses


def test_a_crash_names_its_exception_and_not_implemented_only_for_stubs():
    removed = next(i for i in CORPUS if "asfarray" in i.dcg)
    message = diagnose(probe_records(removed.dcg, removed.ndcg)).unexplained["dcg"]
    assert "is it implemented" not in message
    stub = "def dcg(rels, k):\n    raise NotImplementedError()"
    assert "is it implemented?" in diagnose(probe_records(stub, removed.ndcg)).unexplained["dcg"]


def test_numbers_are_shown_with_the_digits_that_tell_them_apart():
    # ndcg off by 3e-5: 4 digits would print the same number twice
    nudged = "def ndcg(rels, k):\n    ideal = dcg(sorted(rels, reverse=True), k)\n" \
             "    return dcg(rels, k) / ideal * (1 + 4e-5) if ideal else 0.0"
    from autograder.exercises.ndcg.catalogue import CORRECT_DCG

    text = diagnose(probe_records(CORRECT_DCG, nudged)).unexplained["ndcg"]
    returned = text.split("your ndcg returns ")[1].split(";")[0]
    formula = text.split("≈ ")[1].split(" ")[0]
    assert returned != formula and float(returned) != float(formula)


def test_a_crash_on_text_grades_and_an_empty_list_are_named_in_the_students_terms():
    from corpus import EMPTY_ON_NOTHING_RELEVANT, TEXT_GRADES_CRASH

    crash = diagnose(probe_records(TEXT_GRADES_CRASH.dcg, TEXT_GRADES_CRASH.ndcg)).findings[0].counterexample
    assert "raised ValueError on grade 2.5: does your code assume whole-number grades" in crash
    empty = EMPTY_ON_NOTHING_RELEVANT
    text = diagnose(probe_records(empty.dcg, empty.ndcg)).findings[0].counterexample
    assert "returned a list `[]`, not a number" in text
