"""``timestamp.txt`` is a student's bytes: any content is a time or that student's warning, never a crash."""

from __future__ import annotations

import os
import warnings
import zoneinfo
from datetime import UTC, datetime

import pytest
from dateutil.tz import gettz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbgrader.utils import parse_utc

from autograder.course.autograde.submission_folder import read_collected
from autograder.output.timestamps import TimestampProblem, parse_timestamp

from strategies import timestamp_bytes

#: nbgrader's own format (``Exchange.timestamp_format``), as ``nbgrader submit`` writes it.
NBGRADER_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"


@settings(max_examples=400, deadline=None)
@given(timestamp_bytes)
def test_any_content_is_a_time_or_a_problem(data):
    try:
        parsed = parse_timestamp(data)
    except TimestampProblem as problem:
        assert problem.message and "\n" not in problem.message
        return
    assert isinstance(parsed, datetime) and parsed.tzinfo is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert parsed == parse_utc(data.decode("ascii").strip())  # what the formgrader compares with


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)),
    st.sampled_from(sorted(zoneinfo.available_timezones())),
)
def test_every_timestamp_nbgrader_writes_is_read_as_nbgrader_reads_it(when, zone):
    written = when.replace(tzinfo=UTC).astimezone(gettz(zone)).strftime(NBGRADER_FORMAT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = parse_utc(written)
    assert parse_timestamp(written.encode() + b"\n") == expected


@pytest.mark.parametrize("data, words", [
    (b"2026-11-30 10:15:00.000000 " + b"A" * 300, "not one short line"),  # OSError: file name too long
    (b"2026-11-30 10:15:00.000000 :../x", "not a zone name"),  # dateutil's deprecation warning, as an error
    (b"2026-11-30 10:15:00.000000 /dev/zero", "not a zone name"),  # gettz would open the path
    (b"\xff\xfe2\x00", "not plain ASCII"),
    (b"", "empty"),
    (b"x" * 5000, "bytes long"),
])
def test_the_attacks_of_the_issue_are_problems(data, words):
    with pytest.raises(TimestampProblem, match=words):
        parse_timestamp(data)


def _assignment(tmp_path):
    folder = tmp_path / "submitted" / "student" / "ndcg"
    folder.mkdir(parents=True)
    (folder / "ndcg.ipynb").write_text("{}")
    return folder


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(timestamp_bytes)
def test_reading_a_folder_gives_a_time_or_a_warning(tmp_path, data):
    folder = tmp_path / "submitted" / "student" / "ndcg"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timestamp.txt").write_bytes(data)
    found = read_collected(tmp_path / "submitted", "student", "ndcg", frozenset({"ndcg.ipynb"}))
    unknown = [warning for warning in found.warnings if warning.startswith("timestamp unknown: ")]
    assert (found.timestamp is None) == bool(unknown)
    assert ("timestamp.txt" in found.files) == (found.timestamp is not None)


@pytest.mark.parametrize("make, words", [
    (lambda path: os.mkfifo(path), "timestamp.txt is not a regular file"),
    (lambda path: os.symlink("/dev/zero", path), "timestamp.txt is a link"),
    (lambda path: path.write_bytes(b"2026-11-30 10:15:00 UTC" + b" " * 2000), "timestamp.txt is over 1000 bytes"),
])
def test_a_fifo_a_link_or_a_huge_file_is_a_warning_and_never_read(tmp_path, make, words):
    folder = _assignment(tmp_path)
    make(folder / "timestamp.txt")
    found = read_collected(tmp_path / "submitted", "student", "ndcg", frozenset({"ndcg.ipynb"}))
    assert found.timestamp is None and "timestamp.txt" not in found.files
    assert any(warning.startswith("timestamp unknown: " + words) for warning in found.warnings), found.warnings
