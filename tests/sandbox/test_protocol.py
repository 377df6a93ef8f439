"""The runner's reports are untrusted: every field is checked, and odd values become plain data."""

from __future__ import annotations

import json
import runpy
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.sandbox import RUNNER, CallOutcome, CellOutcome, CellRecord
from autograder.sandbox.runs.execution import MAX_LINE
from autograder.sandbox.runs.protocol import (
    MAX_COMPILED,
    MAX_COMPILED_CHARS,
    MAX_COMPILED_TOTAL,
    MAX_DROPPED,
    CompiledRoom,
    ProtocolError,
    call_record,
    cell_record,
)


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


_AFTER_ITEMS = st.one_of(
    st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.integers(min_value=10**308),
    st.booleans(), st.text(max_size=3), st.lists(st.floats(), max_size=2),
)


@settings(max_examples=300)
@given(after=st.one_of(st.lists(_AFTER_ITEMS, max_size=30), st.text(max_size=3), st.none(), st.floats()))
def test_an_after_list_is_plain_numbers_or_nothing(after):
    """``after``, checked as written here: a list of None or int/float (not bool) values, floats kept, too big an int None."""
    record = call_record({"call": 0, "status": "value", "value": 1.0, "after": after})

    def as_float(value):
        try:
            return float(value)
        except OverflowError:
            return None

    plain = isinstance(after, list) and all(v is None or type(v) in (int, float) for v in after)
    expected = tuple(None if v is None else as_float(v) for v in after) if plain else None
    assert (record.after is None) == (expected is None)
    if expected is not None:
        assert len(record.after) == len(expected)
        for got, want in zip(record.after, expected, strict=True):
            assert (got is None and want is None) or got == want or (got != got and want != want)  # NaN is NaN
            assert got is None or type(got) is float


# ----- the compiled record: the student's texts, as untrusted as any other field --------------------


@pytest.mark.parametrize("fields", [
    '"compiled": "def f(): pass"', '"compiled": [1]', '"compiled": [["x"]]', '"compiled": {}',
    '"compiled": [], "dropped": -1', '"compiled": [], "dropped": 1.5', '"compiled": [], "dropped": "3"',
])
def test_a_malformed_compiled_record_is_refused(fields):
    with pytest.raises(ProtocolError):
        cell_record(_wire('{"cell": 0, "ok": true, ' + fields + "}"))


def test_a_forged_compiled_record_is_cut_to_the_runner_s_bounds():
    texts = ["x" * (MAX_COMPILED_CHARS + 500)] + [f"text {n}" for n in range(5_000)]
    record = cell_record({"cell": 0, "ok": True, "compiled": texts, "dropped": 10**30})
    assert len(record.compiled) == MAX_COMPILED and len(record.compiled[0]) == MAX_COMPILED_CHARS
    assert record.dropped == MAX_DROPPED
    lone = cell_record(_wire('{"cell": 0, "ok": false, "error": "E", "message": "m", "compiled": ["\\ud800 def"]}'))
    assert lone.compiled == ("\\ud800 def",) and lone.outcome is CellOutcome.ERROR


def test_the_room_bounds_the_texts_of_every_report_of_a_submission_together():
    room = CompiledRoom()
    one = CellRecord(CellOutcome.OK, compiled=tuple("y" * 30_000 for _ in range(3)))
    first, second = room.take(one), room.take(one)
    assert sum(len(text) for record in (first, second) for text in record.compiled) <= MAX_COMPILED_TOTAL
    assert len(first.compiled) + len(second.compiled) == MAX_COMPILED_TOTAL // 30_000
    assert first.dropped + second.dropped == 6 - MAX_COMPILED_TOTAL // 30_000
    blind = CompiledRoom(texts=None).take(replace(one, dropped=7))
    assert blind.compiled == () and blind.dropped == 0  # a process that holds hidden inputs: nothing kept
    assert room.take(CellRecord(CellOutcome.OK)) == CellRecord(CellOutcome.OK)


def test_the_runner_records_within_the_bounds_the_grader_applies():
    runner = runpy.run_path(str(RUNNER))  # its constants: it cannot import the kit, so they are written twice
    assert (runner["MAX_COMPILED"], runner["MAX_COMPILED_CHARS"]) == (MAX_COMPILED, MAX_COMPILED_CHARS)
    assert runner["MAX_COMPILED_BYTES"] <= MAX_COMPILED_TOTAL  # a byte of JSON is at least a character
    # a cell's report line (the texts, an error's name and message of 300 characters at 12 bytes each) fits a line
    assert runner["MAX_COMPILED_BYTES"] + 8192 < MAX_LINE
