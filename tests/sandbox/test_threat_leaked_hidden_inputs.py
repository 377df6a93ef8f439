"""Threat: hidden inputs leak (the page cache outlives every sandbox), and a student hard-codes the answers.

The design makes a leaked input worth nothing: every hidden group also holds instances drawn for
the graded submission, seeded by the course's secret, the student id and the code. A student who
knows every fixed hidden input and its reference value (here: the test reads them from the
exercise, as a perfect leak would give them) still earns only what a function that computes no
DCG earns, the contract. The secret stays in the course directory (0600, ignored by git) and out
of every sandbox; re-grading the same notebook draws the same instances, a changed one new ones.

Hostile code here only reads a file this test's course holds; nothing is written.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course.setup.secret import SECRET_NAME
from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course

from grading_run import add_student, new_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = sum(group.points for group in EXERCISE.groups if group.contract)


def _grade(course: Path, force: bool = False) -> dict[str, dict]:
    grade_course(GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2, timeout=5,
        sandbox="required", gradebook="none", progress=False, course_root=course, force=force,
    ))
    document = json.loads((course / "graded" / "results.json").read_text())
    return {student["student_id"]: student for student in document["students"]}


def _leaked_table() -> dict[tuple, float]:
    """Every fixed call of the exercise (cases, companions, own-ratio calls) with its reference value."""
    table = {}
    for group in EXERCISE.groups:
        for case in group.cases:
            for call in (case.call, *case.extra_calls):
                table[(call.function, tuple(call.args[0]), call.args[1])] = EXERCISE.reference(call)
    return table


def _lookup_source(table: dict[tuple, float]) -> tuple[str, str]:
    def function(name: str) -> str:
        return f"TABLE = {table!r}\n\n\ndef {name}(rels, k):\n    return TABLE.get(({name!r}, tuple(rels), k), 0.5)\n"
    return function("dcg"), function("ndcg")


def test_answers_to_every_fixed_hidden_input_earn_only_the_contract(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    dcg, ndcg = _lookup_source(_leaked_table())
    add_student(course, "leaked_table", dcg=dcg, ndcg=ndcg, by_hand=None)  # Task 1.2 left as released: only code points here
    add_student(course, "honest")
    students = _grade(course)
    assert students["honest"]["score"] == EXERCISE.max_score
    table = students["leaked_table"]
    assert table["score"] == CONTRACT, {t["name"]: t["message"] for t in table["tests"] if t["points"]}
    hidden = [t for t in table["tests"] if not t["visible"] and not EXERCISE.group(t["name"]).contract]
    # every hidden group fails on an instance drawn for this submission, which no table held
    for test in hidden:
        drawn = [c for c in test["case_results"] if c["provenance"].startswith("drawn for this submission")]
        assert (drawn and not all(c["passed"] for c in drawn)) or "proves nothing" in test["message"], test


def test_the_same_notebook_draws_the_same_instances_and_a_changed_one_new_ones(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    notebook = add_student(course, "ada")
    add_student(course, "bob")
    first = _grade(course)
    again = _grade(course, force=True)
    assert first["ada"]["instances"] == again["ada"]["instances"]
    assert first["ada"]["tests"] == again["ada"]["tests"]
    assert first["ada"]["instances"] != first["bob"]["instances"]  # same code, another student
    add_student(course, "ada", extra=("# a comment the student added",))
    assert notebook.is_file()
    changed = _grade(course)
    assert changed["ada"]["instances"] != first["ada"]["instances"]
    assert changed["ada"]["score"] == EXERCISE.max_score


def test_the_course_secret_stays_in_the_course_and_out_of_the_sandbox(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    secret = course / SECRET_NAME
    reader = (
        f"try:\n    SECRET = open({str(secret)!r}, 'rb').read()\nexcept Exception:\n    SECRET = b''"
    )
    # a correct dcg, off by the secret's length if it could read it: the visible lecture case shows it
    add_student(course, "reader", extra=(reader,), dcg=(
        "import math\n\n\ndef dcg(rels, k):\n"
        "    return len(SECRET) + sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))"
    ))
    students = _grade(course)
    assert secret.is_file() and secret.stat().st_mode & 0o777 == 0o600
    assert students["reader"]["score"] == EXERCISE.max_score, students["reader"]["message"]
    ignored = subprocess.run(["git", "check-ignore", "-q", SECRET_NAME], cwd=ROOT, check=False)
    assert ignored.returncode == 0, f"{SECRET_NAME} must be ignored by git"


def test_a_new_secret_draws_new_instances(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    add_student(course, "ada")
    first = _grade(course)["ada"]["instances"]
    (course / SECRET_NAME).unlink()
    assert _grade(course)["ada"]["instances"] != first  # the resume cache did not keep the old draw
