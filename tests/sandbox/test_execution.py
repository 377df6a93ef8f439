"""One submission's runs (``run_submission``) with fake sandboxes: restarts and stop reasons, in seconds.

The real sandboxes' versions of these (bubblewrap, cgroups, a hostile batch) are in
``test_threat_containment.py`` and ``grading/test_grader.py``; here the driver's own logic is
checked with the real runner in a plain process (trusted code written by this test) or with a
scripted stand-in that says what a well-behaved runner never does.
"""

from __future__ import annotations

import json
import signal

import pytest

from autograder.sandbox import CallOrder, CallOutcome, CellOutcome, run_submission

from fake_sandbox import PlainProcess, ScriptedRunner

DOUBLE = "def double(x):\n    return 2 * x"
#: Seconds per item: generous on a loaded machine for items that take milliseconds.
TIMEOUT = 20.0


def _calls(*values: int) -> list[CallOrder]:
    return [CallOrder(number, "double", (value,)) for number, value in enumerate(values)]


def test_cells_and_calls_report_in_one_process() -> None:
    sandbox = PlainProcess()
    outcome = run_submission(sandbox, [DOUBLE, "x = 1 / 0"], _calls(3, 4), timeout=TIMEOUT, budget=120)
    assert outcome.fatal is None
    assert outcome.cells[0].outcome is CellOutcome.OK
    assert (outcome.cells[1].outcome, outcome.cells[1].error) == (CellOutcome.ERROR, "ZeroDivisionError")
    assert [outcome.calls[i].value for i in (0, 1)] == [2 * 3, 2 * 4]
    assert sandbox.launches == 1


@pytest.mark.parametrize("returned, empty", [
    ("[]", True), ("()", True), ("''", True), ("{}", True), ("[0]", False), ("None", False), ("'0'", False),
])
def test_the_runner_says_whether_a_result_that_is_no_number_is_empty(returned: str, empty: bool) -> None:
    cells = [f"def double(x):\n    return {returned}"]
    outcome = run_submission(PlainProcess(), cells, _calls(1), timeout=TIMEOUT, budget=120)
    assert (outcome.calls[0].outcome, outcome.calls[0].empty) == (CallOutcome.NOT_A_NUMBER, empty)


def test_a_cell_that_ends_the_process_is_skipped_and_the_rest_runs_in_a_fresh_one() -> None:
    sandbox = PlainProcess()
    cells = ["import os\nos._exit(7)", DOUBLE]
    outcome = run_submission(sandbox, cells, _calls(5), timeout=TIMEOUT, budget=120)
    assert outcome.cells[0].outcome is CellOutcome.CRASHED
    assert "exited with code 7" in (outcome.cells[0].detail or "")
    assert outcome.cells[1].outcome is CellOutcome.OK
    assert outcome.calls[0].value == 2 * 5
    assert sandbox.launches == 2  # one restart, without the crashing cell


def test_a_call_that_ends_the_process_costs_only_that_call() -> None:
    cells = ["import os\n\ndef double(x):\n    if x < 0:\n        os._exit(1)\n    return 2 * x"]
    sandbox = PlainProcess()
    outcome = run_submission(sandbox, cells, _calls(1, -1, 2), timeout=TIMEOUT, budget=120)
    assert [outcome.calls[i].outcome for i in range(3)] == [CallOutcome.VALUE, CallOutcome.CRASHED, CallOutcome.VALUE]
    assert outcome.calls[2].value == 2 * 2
    assert sandbox.launches == 2


def test_a_hung_call_times_out_and_skips_what_the_caller_names() -> None:
    cells = ["def double(x):\n    while x == 0:\n        pass\n    return 2 * x"]
    timeout = 1.0  # the hang costs this much wall time; the honest calls take milliseconds each
    outcome = run_submission(
        PlainProcess(), cells, _calls(0, 1, 2), timeout=timeout, budget=120,
        skip_after_timeout=lambda call_id: [1] if call_id == 0 else [],
    )
    assert outcome.calls[0].outcome is CallOutcome.TIMEOUT
    assert outcome.calls[1].outcome is CallOutcome.NOT_RUN
    assert outcome.calls[2].value == 2 * 2


def test_a_used_up_budget_leaves_everything_not_run_with_a_note() -> None:
    outcome = run_submission(PlainProcess(), [DOUBLE], _calls(1), timeout=TIMEOUT, budget=0)
    assert outcome.cells[0].outcome is CellOutcome.NOT_RUN
    assert outcome.calls[0].outcome is CallOutcome.NOT_RUN
    assert any("time budget" in note for note in outcome.notes)


def test_a_runner_that_cannot_start_is_fatal_with_its_reason() -> None:
    sandbox = ScriptedRunner([], code=3, stderr=b"bwrap: No permissions to create new namespace")
    outcome = run_submission(sandbox, [DOUBLE], _calls(1), timeout=TIMEOUT, budget=120)
    assert outcome.fatal is not None
    assert "failed to start (exit 3)" in outcome.fatal and "No permissions" in outcome.fatal
    assert sandbox.launches == 1  # a sandbox that cannot start is not retried


@pytest.mark.parametrize("line", [
    b"not json",
    json.dumps([1, 2]).encode(),
    json.dumps({"cell": 5, "ok": True}).encode(),  # out of order
    json.dumps({"hello": "grader"}).encode(),
    # a call answered before the last cell has reported: its calls were not even sent yet
    json.dumps({"call": 0, "status": "value", "value": 2.0, "after": None}).encode(),
])
def test_a_forged_line_is_a_fixed_sentence_that_quotes_nothing(line: bytes) -> None:
    sandbox = ScriptedRunner([b'{"ready": true}', line])
    outcome = run_submission(sandbox, [DOUBLE], _calls(1), timeout=TIMEOUT, budget=120)
    assert outcome.fatal is not None and "protocol" in outcome.fatal
    assert line.decode() not in outcome.fatal
    assert sandbox.launches == 1


def test_a_runner_that_stops_early_is_fatal() -> None:
    sandbox = ScriptedRunner([b'{"ready": true}', b'{"cell": 0, "ok": true}', b'{"done": true}'])
    outcome = run_submission(sandbox, [DOUBLE], _calls(1), timeout=TIMEOUT, budget=120)
    assert outcome.fatal == "the runner stopped before reporting every item"


@pytest.mark.parametrize(("ending", "said"), [
    ({"code": 9}, "exited with code 9"),
    ({"kill_with": signal.SIGKILL}, "killed by SIGKILL"),
])
def test_how_the_process_ended_is_told_in_words(ending: dict[str, int], said: str) -> None:
    sandbox = ScriptedRunner([b'{"ready": true}'], **ending)
    outcome = run_submission(sandbox, [DOUBLE, DOUBLE], [], timeout=TIMEOUT, budget=120)
    # each cell in turn ends a process: both are recorded as crashed, with the ending in words
    assert [outcome.cells[i].outcome for i in (0, 1)] == [CellOutcome.CRASHED, CellOutcome.CRASHED]
    assert said in (outcome.cells[0].detail or "")
    assert sandbox.launches == 2
