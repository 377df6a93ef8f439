"""Threat: code that computes no DCG earns points (``inf`` "passes" scaling, constants meet properties).

A sample of the generated non-DCG families (``tests/non_dcg.py``: constants and piecewise constants on
the input's features, ``inf``/``nan``, lookup tables of the visible values, scale-invariant shapes,
a correct ``ndcg`` formula over a non-DCG ``dcg``) is graded in the sandbox beside honest students:
each earns at most the contract points, and the honest students keep theirs. The in-process search
over the same families is ``tests/exercises/test_evidence.py``.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course

from grading_run import add_student, new_course
from non_dcg import generate

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

CONTRACT = sum(group.points for group in EXERCISE.groups if group.contract)
SAMPLE = 24


def test_no_generated_non_dcg_submission_earns_more_than_the_contract(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    members = {f"non_dcg_{n:02d}": generate(random.Random(f"sandbox sample {n}")) for n in range(SAMPLE)}
    for student, member in members.items():
        add_student(course, student, dcg=member.dcg, ndcg=member.ndcg, by_hand=None)  # Task 1.2 left as released: only code points here
    add_student(course, "honest")
    grade_course(GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2, timeout=5,
        sandbox="required", gradebook="none", progress=False, course_root=course,
    ))
    students = {s["student_id"]: s for s in json.loads((course / "graded" / "results.json").read_text())["students"]}
    assert students["honest"]["score"] == EXERCISE.max_score
    over = {
        members[student].label: [t["name"] for t in students[student]["tests"] if t["points"]]
        for student in members if students[student]["score"] > CONTRACT
    }
    assert over == {}
