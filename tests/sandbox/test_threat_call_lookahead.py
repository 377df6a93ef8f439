"""Threat: a function that reads the calls still to come, in a process that sees hidden inputs.

The first process of a submission (visible tests and diagnosis probes) gets all its calls at once,
so that ~100 calls cost one round trip instead of one each; nothing in it is hidden. The two blind
processes (hidden tests; extra calls and witnesses) must still get each call only after the one
before has reported: a function that finds the pending calls could tell a witness from a test call,
or a companion from its case, by what comes next.

The look-ahead here is what a student could write: find the runner's input stream through ``gc``
and peek at what it holds, or ask ``select`` whether more is waiting in the pipe. Nothing hostile
runs: the function only looks.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.sandbox import Budget, CallOrder, CallOutcome, choose_sandbox, run_submission

from grading_run import CORRECT_DCG, add_student, grade, new_course, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

LOOK_AHEAD = '''import gc, io, os, select, stat


def _calls_ahead():
    """Whether any call beyond the one in progress can be seen from here."""
    for stream in gc.get_objects():
        if type(stream) is not io.BufferedReader:
            continue
        try:
            fd = stream.fileno()
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue  # the original standard input, now /dev/null
            if select.select([fd], [], [], 0)[0]:
                return True
            os.set_blocking(fd, False)
            try:
                held = stream.peek()
            finally:
                os.set_blocking(fd, True)
            if b'"function"' in held:
                return True
        except (OSError, ValueError):
            pass
    return False
'''

#: Correct, except wherever it can see a call still to come.
PEEKING_DCG = LOOK_AHEAD + "\n\n" + CORRECT_DCG.replace(
    "def dcg(rels, k):\n", "def dcg(rels, k):\n    if _calls_ahead():\n        return 0.0\n"
)


@pytest.mark.parametrize("batched", [True, False])
def test_the_look_ahead_sees_a_batch_and_nothing_one_call_at_a_time(batched: bool) -> None:
    """The probe can fail: given a batch it sees the calls to come; one at a time it sees none."""
    sandbox = choose_sandbox("required")
    calls = [CallOrder(i, "dcg", ([1, 0, 2], 3)) for i in range(6)]
    outcome = run_submission(sandbox, [PEEKING_DCG], calls, timeout=10, budget=Budget(60), batched=batched)
    assert outcome.fatal is None
    assert all(record.outcome is CallOutcome.VALUE for record in outcome.calls.values()), outcome.calls
    saw_ahead = [record.value == 0.0 for _, record in sorted(outcome.calls.items())]
    if batched:
        # Each call but the last sees the next ones in its input. The last sees only the end of
        # input, and only if the grader has closed the pipe by then: it writes the batch, then
        # closes, and on a loaded machine the runner can reach the last call in between (the
        # flaky failure this test had when it asked for all six).
        assert all(saw_ahead[:-1]), saw_ahead
    else:
        assert not any(saw_ahead), saw_ahead


def test_only_the_visible_process_gets_its_calls_at_once(tmp_path: Path) -> None:
    """Graded for real: the peeking function fails the visible group and passes every hidden one."""
    course = new_course(tmp_path / "course")
    add_student(course, "peeker", dcg=PEEKING_DCG)
    run = grade(course, "--sandbox", "required", "--gradebook", "none", "--workers", "1", "--timeout", "5")
    assert run.returncode == 0, run.stderr[-2000:]
    tests = results(course)["peeker"]["tests"]
    code = {group.grade_id for group in EXERCISE.groups}  # not Task 1.2's steps (byhand_dcg is answered by hand)
    visible_dcg = [t for t in tests if t["visible"] and t["name"] in code and "dcg" in t["name"].lower()
                   and "ndcg" not in t["name"].lower()]
    assert visible_dcg and not any(t["passed"] for t in visible_dcg), visible_dcg
    hidden = [t for t in tests if not t["visible"]]
    assert hidden and all(t["passed"] for t in hidden), [(t["name"], t["message"]) for t in hidden if not t["passed"]]
