"""The runner's reports are untrusted: every field is checked, and odd values become plain data."""

from __future__ import annotations

import json

import pytest

from autograder.sandbox import CallOutcome
from autograder.sandbox.protocol import ProtocolError, call_record, cell_record


def _wire(text: str) -> dict:
    return json.loads(text)  # as the grader reads a line


def test_a_huge_integer_is_not_a_number():
    record = call_record(_wire('{"call": 0, "status": "value", "value": 1' + "0" * 400 + ', "after": [1' + "0" * 400 + "]}"))
    assert record.outcome is CallOutcome.NOT_A_NUMBER and record.value is None
    assert record.after == (None,)


def test_lone_surrogates_become_escapes_that_any_file_can_hold():
    record = call_record(_wire('{"call": 1, "status": "raised", "error": "E\\udcff", "message": "\\ud800x"}'))
    assert record.error == "E\\udcff" and record.message == "\\ud800x"
    (record.error + record.message).encode("utf-8")  # would raise on a lone surrogate


@pytest.mark.parametrize("line", [
    '{"call": 0, "status": "value", "value": "1.0"}',
    '{"call": 0, "status": "value", "value": true}',
    '{"call": 0, "status": "raised", "error": 3, "message": ""}',
    '{"call": 0, "status": "guessed"}',
])
def test_malformed_reports_are_refused(line):
    with pytest.raises(ProtocolError):
        call_record(_wire(line))


def test_texts_are_cut_to_length():
    record = cell_record({"cell": 0, "ok": False, "error": "E" * 1000, "message": "m" * 10_000})
    assert len(record.error or "") == 200 and len(record.message or "") == 400
