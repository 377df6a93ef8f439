"""The all-pairs mutation check, through the real grading path in the sandbox (`python -m autograder grade`).

Pairs of catalogue mistakes (tests/pairs.py) are graded as one student's notebook each, with the
course's fresh instances and witnesses: each must lose exactly the union of its two mistakes'
groups, or what the catalogue declares for the pair (``PAIR_COSTS``, in docs/misconceptions.md),
and be named as test_pairs.py names it in-process.

test_pairs.py checks every pair in-process with the real scoring; what this file adds is that the
sandbox path agrees. For that a fixed sample serves as well as all of them, at a fifth of the
cost: every pair the catalogue declares a cost of its own for, and for every mistake two pairs
that hold it (:data:`SAMPLE`).
"""

from __future__ import annotations

from collections import Counter

import pytest
from pairs import ALL_PAIRS

from autograder.exercises.ndcg.pairs import PAIR_COSTS

from grading_run import add_student, grade, new_course, results

pytestmark = pytest.mark.slow  # end to end: grades a few dozen notebooks in the sandbox

#: Pairs held by each mistake in the sample (beside the declared ones).
PER_MISTAKE = 2


def _sample() -> list[int]:
    """Indices into ALL_PAIRS: the declared pairs, then the first pairs of each mistake seen fewer than PER_MISTAKE times."""
    chosen = [n for n, pair in enumerate(ALL_PAIRS) if pair.ids in PAIR_COSTS]
    seen = Counter(mistake for n in chosen for mistake in ALL_PAIRS[n].ids)
    for number, pair in enumerate(ALL_PAIRS):
        if number not in chosen and any(seen[mistake] < PER_MISTAKE for mistake in pair.ids):
            chosen.append(number)
            seen.update(pair.ids)
    return sorted(chosen)


SAMPLE = _sample()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("pairs") / "course")
    for number in SAMPLE:
        add_student(course, f"pair_{number}", dcg=ALL_PAIRS[number].dcg, ndcg=ALL_PAIRS[number].ndcg)
    done = grade(course, "--gradebook", "none", "--timeout", "5", "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-3000:]
    return results(course)


def test_the_sample_holds_every_mistake_and_every_declared_pair():
    mistakes = {mistake for pair in ALL_PAIRS for mistake in pair.ids}
    assert {mistake for n in SAMPLE for mistake in ALL_PAIRS[n].ids} == mistakes
    assert {ALL_PAIRS[n].ids for n in SAMPLE} >= {pair.ids for pair in ALL_PAIRS if pair.ids in PAIR_COSTS}
    assert len(SAMPLE) < len(ALL_PAIRS) / 2


@pytest.mark.parametrize("number", SAMPLE, ids=[ALL_PAIRS[n].name for n in SAMPLE])
def test_every_pair_loses_exactly_its_groups_in_the_sandbox(graded, number):
    pair = ALL_PAIRS[number]
    result = graded[f"pair_{number}"]
    assert result["status"] == "graded", result["message"]
    lost = {test["name"] for test in result["tests"] if not test["passed"]}
    assert lost == pair.loses(), {t["name"]: t["message"] for t in result["tests"] if not t["passed"]}
    assert set(result["diagnoses"]) == pair.named(), result.get("unexplained")
