"""Hostile submissions that game the kinds of cases (contract, property, own ratio), covert
channels between concurrent sandboxes, the hidden process's outcome names, and the leased user ids.

Each test FAILS while the attack works and passes once it is closed (or passes already, kept as a
regression test). Hostile code only targets things this test created, or takes advisory locks on
the grader's own Python files, read-only (nothing is written).
"""

from __future__ import annotations

import builtins
import json
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course

from grading_run import RELEASE, add_student, new_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

ROOT = Path(__file__).resolve().parents[2]


def _grade(course: Path, workers: int = 2, timeout: float = 5):
    return grade_course(GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=workers, timeout=timeout,
        sandbox="required", gradebook="none", progress=False, course_root=course,
    ))


def _results(course: Path) -> dict[str, dict]:
    document = json.loads((course / "graded" / "results.json").read_text())
    return {student["student_id"]: student for student in document["students"]}


def _points(student: dict) -> dict[str, float]:
    return {test["name"]: test["points"] for test in student["tests"]}


# ----- 1. a solution that does nothing scores 8 of 10 -----------------------------------------------
# `return 0` in both functions: every SAME_AS property holds (0 == 0, 0 == 2 * 0), and the own ratio
# of 0 / 0 counts as 0.0, which is what the ndcg "returns" for the lecture example and every
# ideal-ranking case. Hard-coding the two visible lecture values adds dcg_lecture: 9 of 10.
# Only the contract groups (a number, input unchanged) and ndcg_zero (0.0) are earned by these:
# at most 0.5 + 1 + 0.5 = 2 points.
EARNED_BY_A_CONSTANT_ZERO = 2.0

STUB_DCG = "def dcg(rels, k):\n    return 0"
STUB_NDCG = "def ndcg(rels, k):\n    return 0"
HARDCODED_DCG = '''def dcg(rels, k):
    if list(rels) == [1, 0, 2, 1, 0]:  # the visible lecture example, its values are in the notebook
        return {5: 2.430676558073393, 3: 2.0}.get(k, 0.0)
    return 0.0'''
OWN_RATIO_NDCG = '''def ndcg(rels, k):
    ideal = dcg(sorted(rels, reverse=True), k)
    return dcg(rels, k) / ideal if ideal else 0.0'''

# Consistent garbage with state: random values, except that a call that looks like the companion of
# the previous call (same top k up to trailing zeros, or the same list scaled) repeats the previous
# value (scaled), and the two dcg calls right after an ndcg call return that ndcg's value and 1.0,
# so that "the ratio of the student's own dcg values" is whatever the ndcg returned. Non-zero values
# everywhere (nothing relevant gives 0.0): a fix that only refuses all-zero properties is not enough.
STATEFUL_COMMON = r'''
import random
_CALLS = []


def _trim(values):
    values = list(values)
    while values and values[-1] == 0:
        values.pop()
    return values


def _scale(previous, current):
    """c with previous == c * current elementwise (same length), else None."""
    if len(previous) != len(current) or not any(current):
        return None
    ratios = {p / c for p, c in zip(previous, current) if c}
    zeros_agree = all((p == 0) == (c == 0) for p, c in zip(previous, current))
    return ratios.pop() if len(ratios) == 1 and zeros_agree else None
'''
STATEFUL_DCG = STATEFUL_COMMON + r'''

def dcg(rels, k):
    rels = list(rels)
    last = _CALLS[-1] if _CALLS else None
    kind = "dcg"
    if not any(rels[:k]):
        value = 0.0
    elif last and last[0] == "ndcg" and last[1] == rels and last[2] == k:
        value, kind = last[3], "own-top"
    elif last and last[0] == "own-top" and sorted(last[1], reverse=True) == rels:
        value, kind = 1.0, "own-bottom"
    elif last and last[0] == "dcg" and _trim(last[1][: last[2]]) == _trim(rels[:k]):
        value = last[3]
    elif last and last[0] == "dcg" and last[2] == k and _scale(last[1], rels):
        value = last[3] / _scale(last[1], rels)
    else:
        value = random.uniform(1.0, 9.0)
    _CALLS.append((kind, rels, k, value))
    return value
'''
STATEFUL_NDCG = r'''
def ndcg(rels, k):
    rels = list(rels)
    last = _CALLS[-1] if _CALLS else None
    if not any(rels):
        value = 0.0
    elif last and last[0] == "ndcg" and _trim(last[1][: last[2]]) == _trim(rels[:k]):
        value = last[3]
    else:
        value = random.uniform(0.05, 0.95)
    _CALLS.append(("ndcg", rels, k, value))
    return value
'''


def test_gaming_properties_and_own_ratio_earns_only_the_contract(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    # Task 1.2 left as released: only the code's points are counted against the limits
    add_student(course, "stub", dcg=STUB_DCG, ndcg=STUB_NDCG, by_hand=None)
    add_student(course, "hardcoded", dcg=HARDCODED_DCG, ndcg=OWN_RATIO_NDCG, by_hand=None)
    add_student(course, "stateful", dcg=STATEFUL_DCG, ndcg=STATEFUL_NDCG, by_hand=None)
    _grade(course)
    students = _results(course)
    scores = {name: student["score"] for name, student in students.items()}
    # at the time of writing: stub 8.0, hardcoded 9.0, stateful 8.0
    limits = {"stub": EARNED_BY_A_CONSTANT_ZERO, "hardcoded": EARNED_BY_A_CONSTANT_ZERO + 1.0,  # + dcg_lecture
              "stateful": EARNED_BY_A_CONSTANT_ZERO}
    too_much = {name: _points(students[name]) for name, limit in limits.items() if scores[name] > limit}
    assert not too_much, (scores, too_much)


# ----- 2. a covert channel between two sandboxes that run at the same time --------------------------
# Every sandbox sees the same read-only files (the grader's Python, /usr). flock() needs only a
# read-only descriptor and works across mount namespaces, so the process that sees hidden inputs
# (alice's) can spell them out as exclusive locks on a list of files, and a classmate's *visible*
# process (bob's, graded beside her with --workers 2) reads them back with LOCK_NB and raises them
# in a code cell, whose message his feedback shows verbatim. Only the grader's own venv files are
# locked (advisory, read-only); nothing is written.
LOCK_COMMON = r'''
import fcntl, os, sys


def _lock_files():
    out = []
    for top, dirs, files in os.walk(os.path.join(sys.prefix, "lib")):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path):
                out.append(path)
            if len(out) >= 400:
                return out
    return out
'''
SENDER_DCG = LOCK_COMMON + r'''
import json, math, time
_HELD = []
_FIRST = []


def _send(data):
    files = _lock_files()
    data = data[:48]
    bits = format(len(data), "08b") + "".join(format(b, "08b") for b in data)
    for i, bit in enumerate(bits):
        if bit == "1":
            f = open(files[1 + i], "rb")
            fcntl.flock(f, fcntl.LOCK_EX)
            _HELD.append(f)
    f = open(files[0], "rb")
    fcntl.flock(f, fcntl.LOCK_EX)  # "ready"
    _HELD.append(f)


def dcg(rels, k):
    if not _FIRST:
        _FIRST.append(1)
        if list(rels) != [1, 0, 2, 1, 0]:  # the first call of the process that sees hidden inputs
            _send(json.dumps([list(rels), k]).encode())
            time.sleep(12)  # sleeping costs no CPU time: no timeout, no lost points
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))
'''
RECEIVER_CELL = LOCK_COMMON + r'''
import time


def _held_elsewhere(path):
    f = open(path, "rb")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        f.close()
    return False


_files = _lock_files()
_deadline = time.time() + 25
while time.time() < _deadline and not _held_elsewhere(_files[0]):
    time.sleep(0.05)
_bits = "".join("1" if _held_elsewhere(p) else "0" for p in _files[1 : 1 + 8 + 8 * 48])
_n = int(_bits[:8], 2)
raise ValueError("LEAKED " + bytes(int(_bits[8 + 8 * i : 16 + 8 * i], 2) for i in range(_n)).decode("ascii", "replace"))
'''


def test_no_covert_channel_through_file_locks_between_concurrent_sandboxes(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    add_student(course, "alice", dcg=SENDER_DCG)
    add_student(course, "bob", extra=(RECEIVER_CELL,))
    _grade(course, workers=2, timeout=10)
    students = _results(course)
    first_hidden = next(g for g in EXERCISE.groups if not g.visible).cases[0].call
    hidden_text = json.dumps([list(first_hidden.args[0]), first_hidden.args[1]])
    feedback = (course / "graded" / "feedback" / "bob" / "ndcg.html").read_text()
    # at the time of writing: bob's message is "your code cell 1 raised ValueError: LEAKED [[1, 0, 0, 0, 0], 5]"
    assert hidden_text not in students["bob"]["message"]
    assert hidden_text not in feedback
    assert students["bob"]["score"] == EXERCISE.max_score  # the receiver's own work is graded as usual
    assert students["alice"]["status"] == "graded"  # the sender's locks fail (EPERM): its code breaks, not the run


# ----- 3. the hidden process's exception (and type) names carry bits of each hidden input -----------
# The message of a failed hidden group names the first failing case's built-in exception type
# (69 of them: about 6 bits), which the student's code picks from the input it holds; the student
# also picks which case fails first (the message names its provenance) and how many fail.
EXCEPTIONS = sorted(
    name for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), BaseException)
)
ENCODER = r'''
import builtins, math
_EXC = sorted(n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException))


def _leak(rels, k):
    name = _EXC[(len(rels) % 8) * 8 + (k % 8)]
    try:
        error = getattr(builtins, name)("x")
    except BaseException:
        error = TypeError("x")
    raise error


def _dcg(rels, k):
    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))


def dcg(rels, k):
    if list(rels) == [1, 0, 2, 1, 0]:
        return _dcg(rels, k)
    _leak(rels, k)


def ndcg(rels, k):
    if list(rels) == [1, 0, 2, 1, 0]:
        ideal = _dcg(sorted(rels, reverse=True), k)
        return _dcg(rels, k) / ideal
    _leak(rels, k)
'''


def test_hidden_outcome_names_do_not_encode_the_hidden_inputs(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    add_student(course, "encoder", dcg=ENCODER, ndcg="# ndcg is defined in the cell above")
    _grade(course)
    student = _results(course)["encoder"]
    learnt = {}
    for test in student["tests"]:
        group = EXERCISE.group(test["name"])
        if group.visible:
            continue
        found = re.search(r"raised (\w+) on", test["message"])
        if found and found.group(1) in EXCEPTIONS:
            index = EXCEPTIONS.index(found.group(1))
            first = group.cases[0].call  # every case fails: the first is the one explained
            if (index // 8, index % 8) == (len(first.args[0]) % 8, first.args[1] % 8):
                learnt[group.grade_id] = f"len(rels) % 8 = {index // 8}, k % 8 = {index % 8}"
    # at the time of writing: every hidden group tells the length and k of its first case
    assert not learnt, learnt


# ----- 4. the leased user ids: nothing of the leases is reachable from inside a sandbox -------------
PROBE_LEASES = r'''
import os
fds = sorted(os.listdir("/proc/self/fd"))
seen = []
for fd in fds:
    try:
        seen.append(os.readlink("/proc/self/fd/" + fd))
    except OSError:
        pass
raise ValueError("FDS " + repr([s for s in seen if "uids" in s or "lease" in s])
                 + " RUN " + repr(os.path.exists("/run/ndcg-kit-sandbox-uids")) + " UID " + str(os.getuid()))
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="user ids are leased only when the grader runs as root")
def test_lease_files_and_descriptors_are_out_of_reach(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    add_student(course, "peek", extra=(PROBE_LEASES,))
    add_student(course, "honest")
    _grade(course)
    students = _results(course)
    assert "FDS [] RUN False UID 6" in students["peek"]["message"], students["peek"]["message"]
    assert students["honest"]["score"] == EXERCISE.max_score


# ----- 5. the walkthrough released to students holds no solution -------------------------------------
def test_walkthrough_students_copy_has_no_solution() -> None:
    notebook = nbformat.read(ROOT / "release" / "walkthrough" / "ndcg_walkthrough.ipynb", as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "ndcg_ref" not in code
    assert not re.search(r"def (n)?dcg\(", code)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    assert RELEASE.is_file()


# ----- 5. constants: every property holds for a function that returns the same number ------------
CONSTANT_DCG = "def dcg(rels, k):\n    return 1.0"
CONSTANT_NDCG = "def ndcg(rels, k):\n    return 1.0"


def test_constants_earn_only_the_contract(tmp_path: Path) -> None:
    course = new_course(tmp_path / "course")
    # Task 1.2 left as released: only the code's points are compared with the contract
    add_student(course, "constant", dcg=CONSTANT_DCG, ndcg=CONSTANT_NDCG, by_hand=None)
    add_student(course, "constant_dcg_right_ndcg", dcg=CONSTANT_DCG, by_hand=None)  # a correct ndcg on a constant dcg
    _grade(course)
    students = _results(course)
    contract = EXERCISE.group("test_dcg_contract").points + EXERCISE.group("test_ndcg_contract").points
    assert {name for name, points in _points(students["constant"]).items() if points} == {
        "test_dcg_contract", "test_ndcg_contract"
    }
    assert students["constant"]["score"] == contract
    # its ndcg divides a constant: 1 everywhere, which the own ratio must not accept as evidence
    assert students["constant_dcg_right_ndcg"]["score"] == contract
