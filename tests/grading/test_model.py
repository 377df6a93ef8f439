"""The result model: what is written is what is read back, statuses and outcomes are enums."""

from __future__ import annotations

import json

from autograder.grading import CellProblem, Diagnosis, Finding, Status, StudentResult, TestResult
from autograder.sandbox import CellOutcome


def test_a_result_survives_json_unchanged():
    result = StudentResult(
        student_id="ana", status=Status.TIMEOUT, score=2.5, max_score=10.0, message="your code cell 2 ...",
        tests=[TestResult("test_dcg_lecture", "dcg reproduces the lecture example", 1.0, 1.0, True, "ok", True, 2, 2)],
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
