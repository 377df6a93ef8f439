"""Threat: one student's folder bytes stop the class's gradebook update.

Every byte of a submission folder is untrusted, its name included. A ``timestamp.txt`` with a
300-character zone, a zone like ``:../x`` (dateutil's deprecation warning, raised as an error), garbage
bytes, a huge file, a FIFO or a link, and a folder whose name is not UTF-8, all beside honest
students, graded by the real command: it exits 0 (students' problems are results, docs/tutor-guide.md),
each bad timestamp is that student's "timestamp unknown" warning in the table, ``results.json`` and
the report, the folder name that is not UTF-8 is refused by the student-id rule (listed, escaped, with
the reason; never graded or recorded), and every other score is in
nbgrader's gradebook, read back with nbgrader's ``Gradebook``. The link points at a canary file
this test created.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest
from bs4 import BeautifulSoup
from graded_outputs import table_rows
from nbgrader.api import Gradebook

from autograder.exercises.ndcg import EXERCISE

from grading_run import ROOT, add_student, new_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

HONEST_TIME = b"2026-11-30 10:15:00.000000 UTC"
BAD_TIMESTAMPS = {
    "zone_300": HONEST_TIME[:-3] + b"Z" * 300,
    "zone_dotdot": HONEST_TIME[:-3] + b":../x",
    "zone_path": HONEST_TIME[:-3] + b"/dev/zero",
    "garbage": bytes(range(256)),
    "huge": HONEST_TIME + b" " * 5_000_000,
}
NON_UTF8 = os.fsdecode(b"caf\xe9")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("submission-bytes")
    course = new_course(tmp / "course")
    canary = tmp / "canary.txt"
    canary.write_text("2026-01-01 00:00:00 UTC")  # a time, so following the link would show as a success
    for student in ("alice", "bob", *BAD_TIMESTAMPS, "fifo", "link", NON_UTF8):
        add_student(course, student)
    for student in ("alice", "bob", NON_UTF8):
        (course / "submitted" / student / "ndcg" / "timestamp.txt").write_bytes(HONEST_TIME)
    for student, data in BAD_TIMESTAMPS.items():
        (course / "submitted" / student / "ndcg" / "timestamp.txt").write_bytes(data)
    os.mkfifo(course / "submitted" / "fifo" / "ndcg" / "timestamp.txt")
    os.symlink(canary, course / "submitted" / "link" / "ndcg" / "timestamp.txt")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--timeout", "5", "--workers", "2"],
        cwd=course, env=environment, capture_output=True, text=True, timeout=600,
    )
    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    return course, done, {student["student_id"]: student for student in document["students"]}


def test_the_command_ends_normally(graded):
    done = graded[1]
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "NOT updated" not in done.stdout


@pytest.mark.parametrize("student", [*BAD_TIMESTAMPS, "fifo", "link"])
def test_a_bad_timestamp_is_that_students_warning(graded, student):
    course, done, results = graded
    result = results[student]
    assert result["score"] == EXERCISE.max_score, result["message"]  # graded as everyone else
    assert any(warning.startswith("timestamp unknown: ") for warning in result["warnings"]), result["warnings"]
    row = table_rows(done.stdout)[student]  # with the notes' further lines
    assert "timestamp unknown" in row
    report = BeautifulSoup((course / "graded" / "report.html").read_text(encoding="utf-8"), "html.parser")
    rows = {row.find("a").get_text(): row.get_text() for row in report.select("#roster tr") if row.find("a")}
    assert "timestamp unknown" in rows[student]
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")
        submission = gradebook.find_submission("ndcg", student)
        assert submission.score == pytest.approx(EXERCISE.max_score) and submission.timestamp is None


def test_a_name_that_is_not_utf8_is_refused_with_its_reason(graded):
    _, done, results = graded
    result = results[ascii(NON_UTF8)]  # results.json shows the name escaped: 'caf\udce9'
    assert (result["status"], result["score"]) == ("refused", 0.0)
    assert "its name is not valid UTF-8" in result["message"] and "rename the folder" in result["message"]
    assert "NOT recorded" not in done.stdout  # refused before grading: nothing for the gradebook to refuse


def test_every_other_score_is_in_nbgraders_gradebook(graded):
    course = graded[0]
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")
        recorded = {s.student.id: s for s in gradebook.find_assignment("ndcg").submissions}
        assert set(recorded) == {"alice", "bob", *BAD_TIMESTAMPS, "fifo", "link"}
        for student in ("alice", "bob"):
            assert recorded[student].score == pytest.approx(EXERCISE.max_score)
            assert recorded[student].timestamp.isoformat().startswith("2026-11-30T10:15:00")
