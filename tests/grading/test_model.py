"""The result model: what is written is what is read back, statuses and outcomes are enums."""

from __future__ import annotations

import json

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.grading import CaseResult, CellProblem, Diagnosis, Finding, Status, StudentResult, TestResult
from autograder.grading.definition.calls import plan_calls
from autograder.grading.scoring import score
from autograder.sandbox import CallOutcome, CallRecord, CellOutcome


def test_a_result_survives_json_unchanged():
    result = StudentResult(
        student_id="ana", status=Status.TIMEOUT, score=2.5, max_score=10.0, message="your code cell 2 ...",
        tests=[TestResult(name="test_dcg_lecture", description="dcg reproduces the lecture example", points=1.0,
                          max_points=1.0, passed=False, message="ok", visible=True, cases_passed=1, cases=2,
                          case_results=(CaseResult("lecture", True), CaseResult("lecture, cut at k=3", False)))],
        diagnosis=Diagnosis([Finding("log-base", "dcg", "Logarithm with the wrong base", "for rels=[3, 2]")],
                            {"ndcg": "does not match"}),
        cells=[CellProblem(1, CellOutcome.TIMEOUT, detail="no answer within 2 s")],
        notebook="submitted/ana/ndcg/ndcg.ipynb", sha256="0" * 64,
    )
    data = json.loads(json.dumps(result.to_json()))
    assert data["status"] == "timeout" and data["diagnoses"] == ["log-base"]
    assert StudentResult.from_json(data) == result


def test_a_result_without_grading_has_every_field():
    result = StudentResult.without_grading("bo", Status.MISSING, "no folder ndcg/", 10.0)
    data = result.to_json()
    assert data["tests"] == [] and data["diagnoses"] == [] and data["notebook"] is None
    assert StudentResult.from_json(data) == result


def test_a_result_of_an_older_schema_is_refused_not_half_read():
    result = StudentResult.without_grading("bo", Status.GRADED, "graded", 10.0)
    result.tests = [TestResult(name="test_dcg_lecture", description="d", points=1.0, max_points=1.0, passed=True,
                               message="ok", visible=True, cases_passed=1, cases=1,
                               case_results=(CaseResult("x", True),))]
    data = json.loads(json.dumps(result.to_json()))
    del data["tests"][0]["case_results"]  # as schema version 2 wrote it
    with pytest.raises(KeyError):
        StudentResult.from_json(data)


def test_each_case_records_whether_it_passed():
    plan = plan_calls(EXERCISE)
    wrong = plan[3].call_id  # one hidden case of one group, every other call answered with the reference
    calls = {  # every call (companions and own-ratio calls too) answered with the reference value
        call_id: CallRecord(CallOutcome.VALUE, EXERCISE.reference(call) + (1.0 if call_id == wrong else 0.0),
                            after=tuple(float(v) for v in call.args[0]))
        for p in plan
        for call_id, call in zip(p.ids, (p.case.call, *p.case.extra_calls), strict=True)
    }
    tests = {test.name: test for test in score(EXERCISE, plan, calls, timeout=1.0)}
    for group in EXERCISE.groups:
        test = tests[group.grade_id]
        mine = [p for p in plan if p.group is group]
        assert [c.provenance for c in test.case_results] == [p.case.provenance for p in mine]
        assert [c.passed for c in test.case_results] == [p.call_id != wrong for p in mine]
        assert test.cases_passed == sum(c.passed for c in test.case_results)


def test_nothing_to_say_is_none_in_the_record_and_graded_in_results_json():
    result = StudentResult(student_id="ana", status=Status.GRADED, score=10.0, max_score=10.0)
    data = json.loads(json.dumps(result.to_json()))
    assert data["message"] == "graded"  # results.json's wording since schema 1, kept
    assert StudentResult.from_json(data).message is None
    said = StudentResult(student_id="bo", status=Status.TIMEOUT, score=1.0, max_score=10.0, message="cell 2 hung")
    assert StudentResult.from_json(said.to_json()).message == "cell 2 hung"


def test_records_between_layers_are_keyword_only():
    with pytest.raises(TypeError):
        StudentResult("ana", Status.GRADED, 10.0, 10.0)  # type: ignore[misc]


def test_plain_records_are_what_asdict_makes():
    from dataclasses import asdict

    from autograder.grading.model import CellMark, plain

    test = TestResult(name="t", description="d", points=1.0, max_points=2.0, passed=False, message="m", visible=True,
                      cases_passed=1, cases=2, case_results=(CaseResult("a", True), CaseResult("b", False)))
    for record in (test, Finding("id", "dcg", "title", "dcg([1], 1)"), CellMark("dcg", None, 2.0, 0.0, None),
                   CellProblem(3, CellOutcome.ERROR, "E", "m", None)):
        assert plain(record) == asdict(record)
    assert type(plain(test)["case_results"]) is tuple
