"""The runner's reports are untrusted: every field is checked, and odd values become plain data."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
