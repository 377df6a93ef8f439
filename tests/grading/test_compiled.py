"""The compiled record as the grader keeps it: typed, bounded wherever it is read back, tied to its code."""

from __future__ import annotations

import pytest

from autograder.grading import Status, StudentResult
from autograder.grading.compiled import CompiledCode, code_digest
from autograder.sandbox import CellOutcome, CellRecord
from autograder.sandbox.runs.protocol import MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL, MAX_DROPPED

DIGEST = code_digest(["def dcg(rels, k):\n    return 0.0"])


def test_the_record_of_a_submission_is_its_cells_texts_in_cell_order_and_its_code_s_digest():
    records = {1: CellRecord(CellOutcome.OK, compiled=("second",), dropped=2),
               0: CellRecord(CellOutcome.ERROR, error="E", message="m", compiled=("first",))}
    record = CompiledCode.of(records, ["a = 1", "b = 2"])
    assert (record.texts, record.dropped, record.cells_sha256) == (("first", "second"), 2, code_digest(["a = 1", "b = 2"]))
    assert code_digest(["a = 1", "b = 2"]) != code_digest(["a = 1\n", "b = 2"])


def test_a_result_keeps_its_record_through_json():
    result = StudentResult(student_id="ada", status=Status.GRADED, score=1.0, max_score=15.0,
                           compiled=CompiledCode(("def f(x):\n    return x  # \ud800",), 3, DIGEST))
    assert StudentResult.from_json(result.to_json()) == result
    assert StudentResult.from_json(StudentResult.without_grading("bo", Status.MISSING, "none", 1.0).to_json()).compiled is None


@pytest.mark.parametrize("data", [
    None, [], "texts", {"texts": "def f(): pass", "dropped": 0, "cells_sha256": DIGEST},
    {"texts": [1], "dropped": 0, "cells_sha256": DIGEST}, {"texts": [], "dropped": -1, "cells_sha256": DIGEST},
    {"texts": [], "dropped": True, "cells_sha256": DIGEST}, {"texts": [], "dropped": 0, "cells_sha256": "x" * 64},
    {"texts": [], "dropped": 0},
])
def test_a_malformed_record_read_back_is_refused(data):
    with pytest.raises(ValueError):
        CompiledCode.from_json(data)


def test_a_record_read_back_is_bounded_again():
    """A result file is the grader's, but read as data all the same: no more than the runner could send."""
    data = {"texts": ["y" * (MAX_COMPILED_CHARS + 1)] * 3 + ["z" * 40] * 10_000, "dropped": 10**40, "cells_sha256": DIGEST}
    record = CompiledCode.from_json(data)
    assert len(record.texts) <= MAX_COMPILED and sum(map(len, record.texts)) <= MAX_COMPILED_TOTAL
    assert all(len(text) <= MAX_COMPILED_CHARS for text in record.texts)
    assert record.dropped == MAX_DROPPED
