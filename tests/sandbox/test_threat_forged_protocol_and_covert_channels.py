"""Hostile submissions: forged protocol lines, and covert channels that carry hidden inputs out of
the blind process (the user keyring, exit codes), and two students shown under one name.

Each test FAILS while the attack works and passes once it is closed. Hostile code only ever
targets things this test created (a key in the sandbox user's own kernel keyring, removed again).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from byhand_answers import BY_HAND_POINTS

from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course
from autograder.sandbox.resources.limits import FIRST_SANDBOX_UID

from grading_run import add_raw, add_student, generated_course, new_course
from leaks import leaked, without_by_hand

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]


def _outputs(folder: Path, by_hand: bool = True) -> list[str]:
    """The texts of the files the grader left in ``folder`` (``by_hand=False``: Task 1.2's public list left out)."""
    files = [p for p in folder.rglob("*") if p.suffix in (".json", ".html", ".ipynb", ".csv")]
    texts = [(p, p.read_text(encoding="utf-8", errors="replace")) for p in files]
    return [text if by_hand else without_by_hand(p, text) for p, text in texts]


def _grade(course: Path, workers: int = 2):
    return grade_course(GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=workers, timeout=5,
        sandbox="required", gradebook="none", progress=False, course_root=course,
    ))


# ----- 1. the blind process writes a line of its own choosing to the grader's channel --------------
# The grader quotes the offending line (or a field of it) in "the submission interfered with the
# grader's channel (...)", which becomes the student's message in results.json and on the page.
SPY = r'''import os, sys
SEEN = []
HIDDEN = []


def _spy(name, rels, k):
    if not SEEN:  # the visible process starts with the lecture example, the blind one with a hidden case
        HIDDEN.append(list(rels) != [1, 0, 2, 1, 0])
    SEEN.append([list(rels), k])
    if HIDDEN[0] and len(SEEN) == 6:
        secret = repr([s[0] for s in SEEN]).replace(" ", "")
        runner = sys._getframe(2).f_locals  # the runner's main(): the pending call and the cells
        fields = {"secret": secret, "id": runner["call"]["id"], "cells": len(runner["cells"])}
        os.write(4, (FORGE % fields).encode() + b"\n")  # fd 4: the runner's copy of the grader's channel
    return 0.0


def dcg(rels, k):
    return _spy("dcg", rels, k)
'''
SPY_NDCG = "def ndcg(rels, k):\n    return _spy('ndcg', rels, k)"
FORGED_LINES = {
    "unknown_report": '{"x": "%(secret)s"}',  # "unknown report b'...'" (200 bytes of the line)
    "malformed_cell": '{"cell": %(cells)d, "ok": "%(secret)s"}',  # "malformed cell report {...}"
    "value_not_number": '{"call": %(id)d, "status": "value", "value": "%(secret)s"}',  # "call value is not a number: ..."
    "order_label": '{"call": "%(secret)s", "status": "value", "value": 1}',  # "call report ... out of order" (50 chars)
}


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("hostile3-forge") / "course")
    add_student(course, "alice")
    for name, line in FORGED_LINES.items():
        add_student(course, name, dcg=f"FORGE = {line!r}\n" + SPY, ndcg=SPY_NDCG)
    run = _grade(course)
    return course, {s.student_id: s for s in run.batch.students}


@pytest.mark.parametrize("student", sorted(FORGED_LINES))
def test_forged_channel_lines_from_the_blind_process_do_not_leak_hidden_inputs(forged, student):
    course, students = forged
    result = students[student]
    assert result.score == BY_HAND_POINTS  # the code earns nothing; Task 1.2 (answered right) is read, never run
    # Task 1.2's own list (public: id and salt) left out: a list of grades 0-3 may hold a hidden list's
    page_path, results_path = course / "graded" / "feedback" / student / "ndcg.html", course / "graded" / "results.json"
    page = without_by_hand(page_path, page_path.read_text(encoding="utf-8"))
    results_json = without_by_hand(results_path, results_path.read_text(encoding="utf-8"))
    assert leaked([result.message, page, results_json]) == [], result.message


# ----- 2. the kernel keyring of the sandbox's user id outlives the sandbox ---------------------------
# As root every sandbox of worker slot N runs as uid 61000+N, without a user namespace: the user
# keyring (@u) of that uid is shared by all of them and persists after the run (and across batches).
# The blind process stores the hidden inputs there; a later *visible* process on the same slot (an
# accomplice in the same batch, or the same student re-graded) reads them into its exception message.
KEY_WRITER = r'''import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SEEN = []


def dcg(rels, k):
    SEEN.append(list(rels))
    data = repr(SEEN).encode()
    _libc.syscall(248, b"user", KEY, data, len(data), ctypes.c_int(-4))  # add_key(..., KEY_SPEC_USER_KEYRING)
    return 0.0
'''
KEY_READER = r'''import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def dcg(rels, k):
    key = _libc.syscall(250, 10, ctypes.c_long(-4), b"user", KEY, 0)  # keyctl(KEYCTL_SEARCH, @u, ...)
    if key < 0:
        return 0.0
    buffer = ctypes.create_string_buffer(8192)
    size = _libc.syscall(250, 11, ctypes.c_long(key), buffer, 8192)  # KEYCTL_READ
    _libc.syscall(250, 21, ctypes.c_long(key))  # KEYCTL_INVALIDATE: leave nothing behind
    raise ValueError(buffer.raw[:max(size, 0)].decode(errors="replace"))
'''


def _clear_keyring(uid: int) -> None:
    """Remove what the test stored in ``uid``'s user keyring (as that uid, in a child process)."""
    if os.geteuid() != 0:
        return
    code = (f"import ctypes, os; os.setgid({uid}); os.setuid({uid}); libc = ctypes.CDLL(None); "
            "libc.syscall.restype = ctypes.c_long; libc.syscall(250, 7, ctypes.c_long(-4))")  # KEYCTL_CLEAR @u
    subprocess.run([sys.executable, "-I", "-c", code], check=False, timeout=30)


def test_the_user_keyring_carries_no_hidden_input_to_a_later_sandbox(tmp_path):
    key = f"attack-{secrets.token_hex(4)}".encode()
    course = new_course(tmp_path / "course")
    add_student(course, "a_writer", dcg=f"KEY = {key!r}\n" + KEY_WRITER)
    add_student(course, "b_reader", dcg=f"KEY = {key!r}\n" + KEY_READER)
    try:
        run = _grade(course, workers=1)  # one slot: both run as the same user id, one after the other
    finally:
        _clear_keyring(FIRST_SANDBOX_UID)
    reader = next(s for s in run.batch.students if s.student_id == "b_reader")
    shown = " ".join(t.message for t in reader.tests if t.visible)
    assert leaked([shown, *_outputs(course / "graded")]) == [], shown


# ----- 3. a report line the JSON parser cannot nest that deep ---------------------------------------
DEEP = 'import os\n\n\ndef dcg(rels, k):\n    os.write(4, b"[" * 5000 + b"\\n")\n    return 0.0'


def test_a_deeply_nested_report_is_a_protocol_error_not_a_grader_error(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    add_student(course, "deep", dcg=DEEP)
    run = _grade(course)
    students = {s.student_id: s for s in run.batch.students}
    assert students["alice"].score == EXERCISE.max_score
    assert students["deep"].status.value == "error"
    assert "internal grader error" not in students["deep"].message, students["deep"].message
    assert "the grader's channel" in students["deep"].message


def test_a_deeply_nested_notebook_is_refused_not_a_grader_error(tmp_path):
    course = new_course(tmp_path / "course")
    add_raw(course, "deep_json", b'{"cells": ' + b"[" * 100000 + b"]" * 100000 + b"}")
    student = _grade(course).batch.students[0]
    assert student.status.value == "error"
    assert "internal grader error" not in student.message, student.message


# ----- 4. the same through nbgrader autograde (the course config) -----------------------------------
@pytest.fixture(scope="module")
def nbgrader_run(tmp_path_factory):
    from autograder.course.materials.nbgrader_commands import run_nbgrader

    course = generated_course(tmp_path_factory.mktemp("hostile3-nbgrader") / "course")
    add_student(course, "alice")
    add_student(course, "spy", dcg=f"FORGE = {FORGED_LINES['unknown_report']!r}\n" + SPY, ndcg=SPY_NDCG)
    add_student(course, "deep", dcg=DEEP)
    try:
        log, failed = run_nbgrader(course, "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=3"), None
    except Exception as error:  # run_nbgrader raises when nbgrader exits non-zero
        log, failed = "", str(error)
    try:
        run_nbgrader(course, "generate_feedback", "ndcg", "--force")
    except Exception:
        pass
    return course, log, failed


def test_nbgrader_autograde_survives_a_deeply_nested_report(nbgrader_run):
    course, _, failed = nbgrader_run
    assert failed is None, failed[-1500:]
    assert (course / "autograded" / "deep" / "ndcg" / "ndcg.ipynb").exists()


def test_nbgrader_autograded_and_feedback_show_no_hidden_input(nbgrader_run):
    course = nbgrader_run[0]
    # Task 1.2 shows each student's own list (public: id and salt), which may hold a hidden list's grades
    texts = _outputs(course / "autograded", by_hand=False) + _outputs(course / "feedback", by_hand=False)
    assert texts
    assert leaked(texts) == []


# ----- 5. output that lies: two different folders, one name ----------------------------------------
def test_two_students_are_never_shown_under_the_same_name(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, os.fsdecode(b"caf\xe9"))  # a Latin-1 name from an old archive, shown as caf\xe9
    add_student(course, "caf\\xe9", dcg="def dcg(rels, k):\n    return 0.0")  # literally c a f \ x e 9
    run = _grade(course)

    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    shown = [s["student_id"] for s in document["students"]]
    assert len(set(shown)) == len(shown), shown
    rows = (course / "graded" / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len({row.split(",")[0] for row in rows}) == len(rows), rows
    assert len(run.batch.students) == 2


# ----- failed attacks (pass today; keep them as regressions) -----------------------------------------
def test_exit_codes_of_the_blind_process_are_not_shown(tmp_path):
    """A blind process that ends with os._exit(n) could signal 8 bits per case through the exit code."""
    crash = ('import os\nSEEN = []\n\n\ndef dcg(rels, k):\n    SEEN.append(1)\n'
             '    if list(rels) != [1, 0, 2, 1, 0] and len(SEEN) == 1:\n        os._exit(sum(rels) + 100)\n'
             '    return 0.0')
    course = new_course(tmp_path / "course")
    add_student(course, "crasher", dcg=crash)
    _grade(course)
    texts = _outputs(course / "graded")
    assert not any("exited with code" in t for t in texts)
