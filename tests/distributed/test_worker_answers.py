"""The coordinator's checks of a Dask worker's answer: other code, no sandbox, another sandbox, another student."""

from __future__ import annotations

import json

import pytest

from autograder.distributed.executor import DistributedError, read_answer
from autograder.grading import Job, Status, StudentResult
from autograder.grading.reading.notebook import NotebookFile

JOB = Job("ann", NotebookFile("ndcg.ipynb", b"{}", "0" * 64, (1, 2)), seed=b"s" * 32)


def _answer(**changes: object) -> str:
    result = StudentResult.without_grading("ann", Status.ERROR, "not a notebook", 10.0)
    answer = {"worker": "node7:4242", "code": "abc", "problem": None, "result": result.to_json(), "keep": True,
              "sandbox": "bubblewrap", "warning": None}
    return json.dumps({**answer, **changes})


def test_a_good_answer_becomes_the_result_and_is_kept():
    warnings: list[str] = []
    graded = read_answer(_answer(warning="no cgroups"), JOB, "abc", "bubblewrap", warnings)
    assert graded.result.student_id == "ann" and graded.result.status is Status.ERROR and graded.job is JOB
    assert warnings == ["no cgroups"]
    assert read_answer(_answer(keep=False), JOB, "abc", "bubblewrap", []).job is None  # not for the cache


@pytest.mark.parametrize(("changes", "said"), [
    ({"code": "other"}, "runs other grading code"),
    ({"problem": "no sandbox there: bwrap missing"}, "cannot grade: no sandbox there"),
    ({"sandbox": "rlimits"}, "grades in rlimits, this grader in bubblewrap"),
    ({"result": StudentResult.without_grading("bo", Status.ERROR, "x", 10.0).to_json()}, "another student"),
])
def test_a_worker_that_cannot_be_trusted_to_grade_alike_stops_the_run_in_one_line(changes, said):
    with pytest.raises(DistributedError, match=said) as raised:
        read_answer(_answer(**changes), JOB, "abc", "bubblewrap", [])
    assert "node7:4242" in str(raised.value) and "\n" not in str(raised.value)
