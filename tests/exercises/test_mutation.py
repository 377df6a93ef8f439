"""Mutation check of the grading itself, through the real grading path (`python -m autograder grade`).

Every mutant of the misconception catalogue must lose exactly the test groups the catalogue
declares for it (the table in docs/misconceptions.md) and be diagnosed with its own ID;
differently written correct solutions must get full marks and no diagnosis. A hidden test change
that lets a mutant through, or one that costs a correct solution points, fails this test.
"""

from __future__ import annotations

import re

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.catalogue import BY_ID, CATALOGUE

from corpus import CORPUS
from grading_run import add_student, grade, new_course, results
from solutions import CORRECT_SOLUTIONS

pytestmark = pytest.mark.slow  # end to end: starts the grader, nbgrader or a kernel

MUTANTS = {
    f"mutant_{item.id}_{number}": (item.id, mutant) for item in CATALOGUE for number, mutant in enumerate(item.mutants)
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("mutation") / "course")
    for student, (_, mutant) in MUTANTS.items():
        add_student(course, student, dcg=mutant.dcg, ndcg=mutant.ndcg)
    for name, (dcg, ndcg) in CORRECT_SOLUTIONS.items():
        add_student(course, f"correct_{name}", dcg=dcg, ndcg=ndcg)
    for number, implementation in enumerate(CORPUS):
        add_student(course, f"corpus_{number}", dcg=implementation.dcg, ndcg=implementation.ndcg)
    done = grade(course, "--gradebook", "none", "--timeout", "5", "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-3000:]
    return course, results(course)


@pytest.mark.parametrize("student", sorted(MUTANTS))
def test_every_mutant_loses_exactly_the_groups_the_catalogue_declares(graded, student):
    mistake, mutant = MUTANTS[student]
    result = graded[1][student]
    lost = {test["name"] for test in result["tests"] if not test["passed"]}
    declared = set(BY_ID[mistake].groups_lost(mutant))
    assert lost == declared, (mutant.name, {t["name"]: t["message"] for t in result["tests"] if not t["passed"]})
    assert result["score"] == EXERCISE.max_score - sum(EXERCISE.group(g).points for g in declared)


def test_the_declared_groups_exist():
    for item in CATALOGUE:
        for mutant in item.mutants:
            assert item.groups_lost(mutant), f"{item.id} ({mutant.name}) declares no group it loses"
            for grade_id in item.groups_lost(mutant):
                EXERCISE.group(grade_id)  # KeyError names the known ids


@pytest.mark.parametrize("student", sorted(MUTANTS))
def test_every_mutant_loses_points_and_is_diagnosed(graded, student):
    mistake, mutant = MUTANTS[student]
    result = graded[1][student]
    assert result["status"] == "graded", result["message"]
    assert result["score"] < EXERCISE.max_score, f"{mistake} ({mutant.name}) gets full marks: a test case is missing"
    assert result["diagnoses"] == [mistake], (mutant.name, result["diagnoses"], result.get("unexplained"))


@pytest.mark.parametrize("number", range(len(CORPUS)), ids=[i.name for i in CORPUS])
def test_the_corpus_graded_in_the_sandbox_gets_its_mistakes_and_points(graded, number):
    implementation = CORPUS[number]
    result = graded[1][f"corpus_{number}"]
    assert result["status"] == "graded", result["message"]
    assert set(result["diagnoses"]) == implementation.mistakes, result.get("unexplained")
    lost = {test["name"] for test in result["tests"] if not test["passed"]}
    assert lost == implementation.loses, {t["name"]: t["message"] for t in result["tests"] if not t["passed"]}


@pytest.mark.parametrize("name", sorted(CORRECT_SOLUTIONS))
def test_correct_solutions_get_full_marks_and_no_diagnosis(graded, name):
    result = graded[1][f"correct_{name}"]
    assert result["score"] == EXERCISE.max_score, [t["message"] for t in result["tests"] if not t["passed"]]
    assert result["diagnoses"] == [] and result["unexplained"] == {}


def test_feedback_explains_each_diagnosis(graded):
    course, students = graded
    for student, (mistake, _) in MUTANTS.items():
        page = (course / "graded" / students[student]["feedback"]).read_text(encoding="utf-8")
        item = next(i for i in CATALOGUE if i.id == mistake)
        assert item.title in page, student
        assert "for rels=" in page or "after " in page, student  # the counterexample on a probe


def test_report_counts_the_mistakes(graded):
    course, students = graded
    report = (course / "graded" / "report.html").read_text(encoding="utf-8")
    assert report.count("<img") >= 3  # score distribution, pass rate per test, mistakes
    for item in CATALOGUE:
        count = sum(item.id in s["diagnoses"] for s in students.values())
        assert re.search(rf"<td><code>{re.escape(item.id)}</code></td>\s*<td[^>]*>{count}</td>", report), item.id


def test_hidden_rows_refer_to_the_exception_the_visible_rows_show(graded):
    # the visible rows must not say one thing and the hidden ones another: they said "AttributeError: ... asfarray ...", the hidden ones "raised Exception"
    number = next(n for n, i in enumerate(CORPUS) if "asfarray" in i.dcg)
    tests = {t["name"]: t for t in graded[1][f"corpus_{number}"]["tests"]}
    assert "AttributeError" in tests["test_dcg_lecture"]["message"]
    hidden = [t["message"] for t in tests.values() if not t["visible"]]
    assert hidden and all("the same AttributeError as on the visible test cases above" in m for m in hidden), hidden
    assert not any("asfarray" in m for m in hidden)  # the message itself stays out of hidden rows
