"""The all-pairs mutation check, through the real grading path in the sandbox (`python -m autograder grade`).

Every pair of catalogue mistakes (tests/pairs.py) is graded as one student's notebook, with the
course's fresh instances and witnesses: each must lose exactly the union of its two mistakes'
groups, or what the catalogue declares for the pair (``PAIR_COSTS``, in docs/misconceptions.md),
and be named as test_pairs.py names it in-process.
"""

from __future__ import annotations

import pytest
from pairs import ALL_PAIRS

from grading_run import add_student, grade, new_course, results

pytestmark = pytest.mark.slow  # end to end: grades a few hundred notebooks in the sandbox


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("pairs") / "course")
    for number, pair in enumerate(ALL_PAIRS):
        add_student(course, f"pair_{number}", dcg=pair.dcg, ndcg=pair.ndcg)
    done = grade(course, "--gradebook", "none", "--timeout", "5", "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-3000:]
    return results(course)


@pytest.mark.parametrize("number", range(len(ALL_PAIRS)), ids=[p.name for p in ALL_PAIRS])
def test_every_pair_loses_exactly_its_groups_in_the_sandbox(graded, number):
    pair = ALL_PAIRS[number]
    result = graded[f"pair_{number}"]
    assert result["status"] == "graded", result["message"]
    lost = {test["name"] for test in result["tests"] if not test["passed"]}
    assert lost == pair.loses(), {t["name"]: t["message"] for t in result["tests"] if not t["passed"]}
    assert set(result["diagnoses"]) == pair.named(), result.get("unexplained")
