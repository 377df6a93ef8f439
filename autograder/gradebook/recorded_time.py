"""On nbgrader's path, a submission's time reaches the gradebook last, with the late penalty it sets.

nbgrader's ``Autograde.init_assignment`` writes the submission time from ``timestamp.txt`` before
the sandbox runs, and ``SaveAutoGrades`` writes the grades seconds later, one cell per commit: on a
re-grade of a resubmission, a kill in between left the previous submission's grades under the new
time (the formgrader took it as autograded, ``nbgrader export`` wrote the old score for the new
work, and the next run skipped it). The gradebook's time is what nbgrader's formgrader compares
with ``submitted/<student>/<assignment>/timestamp.txt`` to call a submission autograded, so the
course's ``Autograde`` (:mod:`..course.autograde.sandbox_guard`) treats it as the grading's last word:

- nbgrader's ``init_assignment`` reads no time (the row keeps the previous grading's time, or a
  new submission waits for :class:`~..course.autograde.sandbox_guard.RecordSubmission`); the time waits here;
- ``SaveAutoGrades`` writes the new grades under the old time (or none, for a new submission);
- the course's late step (:class:`~.late_penalties.CourseLatePenalties`) sets the time and the penalty
  computed from it in one transaction.

Until that commit the row's time differs from ``timestamp.txt``: the formgrader shows "needs
autograde", the course's export leaves the scores blank (:mod:`..course.handback.safe_export`), and the next
``nbgrader autograde`` grades the submission again (:func:`holds_submission`), killed run or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..grading.reading.notebook import SubmissionProblem, read_side_file
from ..nbgrader_adapter import MissingEntry, parse_utc
from ..output.timestamps import TimestampProblem, parse_timestamp


@dataclass(frozen=True)
class Pending:
    """A submission time waiting for its grading, in this process (nbgrader grades one student at a time)."""

    #: The time nbgrader read from ``timestamp.txt`` (None: it had none it could read).
    timestamp: datetime | None
    #: Whether the gradebook holds the row now (a re-grade's, or the one ``RecordSubmission`` made).
    in_gradebook: bool


_PENDING: dict[tuple[str, str], Pending] = {}


def defer(assignment_id: str, student_id: str, timestamp: datetime | None, *, in_gradebook: bool) -> None:
    """Keep ``timestamp`` back until the late step records it with the student's penalty.

    ``in_gradebook``: whether the gradebook has her submission's row (a re-grade), or
    :class:`~..course.autograde.sandbox_guard.RecordSubmission` is still to make it.
    """
    _PENDING[assignment_id, student_id] = Pending(timestamp, in_gradebook)


def pending(assignment_id: str, student_id: str) -> Pending | None:
    """The student's waiting time, or None when none waits (the batch command's path, or already recorded)."""
    return _PENDING.get((assignment_id, student_id))


def row_made(assignment_id: str, student_id: str) -> None:
    """Note that the gradebook now holds the (new) submission's row, still without its time."""
    _PENDING[assignment_id, student_id] = Pending(_PENDING[assignment_id, student_id].timestamp, in_gradebook=True)


def forget(assignment_id: str, student_id: str) -> Pending | None:
    """Drop the student's waiting time (her grading failed); what waited, or None."""
    return _PENDING.pop((assignment_id, student_id), None)


def set_time(submission: Any) -> None:
    """Give the gradebook's ``submission`` its waiting time, uncommitted: the caller's commit records both.

    Called by the late step inside its transaction, before it reads ``total_seconds_late``.
    """
    waiting = _PENDING.pop((submission.assignment.name, submission.student.id), None)
    if waiting is not None and waiting.timestamp is not None:
        submission.timestamp = parse_utc(waiting.timestamp)


def submitted_time(submitted: Path, student_id: str, assignment_id: str) -> datetime | None:
    """The time in ``submitted/<student>/<assignment>/timestamp.txt`` as nbgrader stores it (UTC, naive).

    None if the folder or the file is absent or the file unreadable. Read with the kit's reader,
    no link followed below ``submitted`` (the file is the student's): a bad one is no time, as for
    nbgrader's formgrader, which then cannot tell either.
    """
    try:
        data = read_side_file(submitted, student_id, assignment_id, "timestamp.txt")
        return None if data is None else parse_timestamp(data)
    except (SubmissionProblem, TimestampProblem, OSError):  # OSError: no submitted/ folder at all
        return None


def holds_submission(gradebook: Any, assignment_id: str, student_id: str, submitted: datetime | None) -> bool:
    """Whether the gradebook's row is the grading of the submission ``timestamp.txt`` dates ``submitted``.

    False when there is no row, or its time differs (a grading that did not finish, or an earlier
    submission's); True when ``submitted`` is unknown (nothing to compare, as in the formgrader).
    """
    try:
        submission = gradebook.find_submission(assignment_id, student_id)
    except MissingEntry:
        return False
    return submitted is None or submission.timestamp == submitted
