"""A hidden case may say it raised the same exception as the visible calls, and nothing more."""

from __future__ import annotations

from autograder.grading.submission import _blinded, shown_error
from autograder.sandbox import CallOutcome, CallRecord


def _raised(name: str) -> CallRecord:
    return CallRecord(CallOutcome.RAISED, error=name, message="secret 3 1 4")


def test_a_name_the_visible_calls_raised_is_kept_and_the_message_is_not():
    record = _blinded(_raised("AttributeError"), frozenset({"AttributeError"}))
    assert record.error == "AttributeError" and record.message is None


def test_other_names_read_as_before():
    assert _blinded(_raised("KeyError"), frozenset({"AttributeError"})).error == "Exception"
    assert _blinded(_raised("IndexError")).error == "IndexError"


def test_one_name_at_most_beyond_the_short_list():
    assert shown_error([_raised("AttributeError"), _raised("ZeroDivisionError")]) == {"AttributeError"}
    # code that raises many classes on the visible calls gets none of them kept (no alphabet to encode with)
    assert shown_error([_raised("AttributeError"), _raised("KeyError")]) == frozenset()
    assert shown_error([CallRecord(CallOutcome.VALUE, value=1.0)]) == frozenset()
