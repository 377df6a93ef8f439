"""Threat: code that computes a DCG only on the witness calls earns the groups the evidence rule guards.

The evidence rule asks whether ``dcg``/``ndcg`` "behave like some DCG" on witness rankings drawn per
submission. But the witnesses are sent last, in the third (blind) process, after the cases' extra
calls, whose number is the same for every submission; the hidden process makes fewer calls than
that. So a function with one counter knows, on every call, whether it is a witness: it computes a
real DCG there and nothing anywhere else. On every test call it returns the maximum of the top k
(a scale-invariant shape), the lecture's values hard-coded: the "max(top k) plus a lookup table"
function that answers only the fixed inputs, which the rule was built to stop, earns 9 of 10 points again.

A student learns the threshold without the repository: it is the same for every submission, so a
few resubmissions with different thresholds and a look at the score find it.

Nothing hostile runs here: the submission only keeps a counter in its own process.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ndcg_ref
from autograder.exercises.ndcg import EXERCISE
from autograder.grading.definition.calls import extra_call_orders, plan_calls
from autograder.grading.definition.draws import drawn_groups

from grading_run import add_student, grade, new_course, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

CONTRACT = sum(group.points for group in EXERCISE.groups if group.contract)
LECTURE = (1, 0, 2, 1, 0)


def _threshold() -> int:
    """How many calls come before the first witness in the third process (the same for every draw)."""
    return len(extra_call_orders(plan_calls(EXERCISE, groups=drawn_groups(EXERCISE, b"\0" * 32))))


def _sources(threshold: int) -> tuple[str, str]:
    table = {("dcg", LECTURE, k): ndcg_ref.dcg(list(LECTURE), k) for k in (5, 3)}
    table |= {("ndcg", LECTURE, k): ndcg_ref.ndcg(list(LECTURE), k) for k in (5, 2)}
    dcg = "\n".join([
        "import math",
        "",
        "CALLS = [0]",
        f"TABLE = {table!r}",
        "",
        "",
        "def _witness():",
        "    CALLS[0] += 1",
        f"    return CALLS[0] > {threshold}",
        "",
        "",
        "def _real(rels, k):",
        "    return sum(r / math.log2(i + 2) for i, r in enumerate(rels[:k]))",
        "",
        "",
        "def _top(rels, k):",
        "    return max(rels[:k], default=0) * 1.0",
        "",
        "",
        "def dcg(rels, k):",
        "    if _witness():",
        "        return _real(rels, k)",
        "    return TABLE.get(('dcg', tuple(rels), k), _top(rels, k))",
    ])
    ndcg = "\n".join([
        "def ndcg(rels, k):",
        "    if _witness():",
        "        ideal = _real(sorted(rels, reverse=True), k)",
        "        return _real(rels, k) / ideal if ideal else 0.0",
        "    if ('ndcg', tuple(rels), k) in TABLE:",
        "        return TABLE[('ndcg', tuple(rels), k)]",
        "    best = _top(sorted(rels, reverse=True), k)",
        "    return _top(rels, k) / best if best else 0.0",
    ])
    return dcg, ndcg


def test_a_function_that_computes_a_dcg_only_on_witnesses_earns_only_the_contract(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    dcg, ndcg = _sources(_threshold())
    add_student(course, "witness_detector", dcg=dcg, ndcg=ndcg, by_hand=None)  # Task 1.2 left as released: only code points here
    add_student(course, "honest")
    run = grade(course, "--sandbox", "required", "--gradebook", "none", "--workers", "2", "--timeout", "5")
    assert run.returncode == 0, run.stderr[-2000:]
    students = results(course)
    assert students["honest"]["score"] == EXERCISE.max_score
    earned = {t["name"]: t["points"] for t in students["witness_detector"]["tests"] if t["points"]}
    assert sum(earned.values()) <= CONTRACT, earned
