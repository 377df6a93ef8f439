"""One submission's bookkeeping across its runs (``Progress``), without any process: each ``StopReason``.

``test_execution.py`` drives the same logic through real runner processes; here each way a run can
stop is given directly, so that what it does to the outcome and to the next run is pinned.
"""

from __future__ import annotations

import pytest

from autograder.sandbox.runs.progress import Progress, Report, RunEnd, budget_note
from autograder.sandbox.runs.protocol import NOT_RUN_CALL, CallOutcome, CallRecord, CellOutcome, CellRecord
from autograder.sandbox.runs.stop_reason import StopReason

OK_CELL = CellRecord(CellOutcome.OK)


def _value(number: float) -> CallRecord:
    return CallRecord(CallOutcome.VALUE, value=number)


def _never_skip(call_id: int) -> list[int]:
    return []


def test_a_finished_run_records_every_report_and_needs_no_other() -> None:
    progress = Progress(2, [10, 11])
    end = RunEnd([Report(0, OK_CELL), Report(1, OK_CELL), Report(0, _value(1.0)), Report(1, _value(2.0))],
                 StopReason.DONE)
    assert progress.absorb(end, progress.cells_to_run(), _never_skip) is False
    assert progress.outcome.fatal is None
    assert progress.outcome.calls == {10: _value(1.0), 11: _value(2.0)}
    assert progress.pending_calls == []


def test_a_run_that_says_done_too_early_cannot_be_graded() -> None:
    progress = Progress(1, [10])
    assert progress.absorb(RunEnd([Report(0, OK_CELL)], StopReason.DONE), [0], _never_skip) is False
    assert progress.outcome.fatal == "the runner stopped before reporting every item"


@pytest.mark.parametrize("reason", [StopReason.STARTUP, StopReason.PROTOCOL])
def test_a_run_that_did_not_start_or_broke_the_protocol_ends_the_submission(reason: StopReason) -> None:
    progress = Progress(1, [10])
    assert progress.absorb(RunEnd([], reason, "what happened"), [0], _never_skip) is False
    assert progress.outcome.fatal == "what happened"


@pytest.mark.parametrize("reason, outcome", [
    (StopReason.TIMEOUT, CellOutcome.TIMEOUT), (StopReason.BUDGET, CellOutcome.TIMEOUT),
    (StopReason.CRASHED, CellOutcome.CRASHED),
])
def test_the_cell_a_run_stopped_in_is_left_out_of_the_next_run(reason: StopReason, outcome: CellOutcome) -> None:
    progress = Progress(3, [10])
    again = progress.absorb(RunEnd([Report(0, OK_CELL)], reason, "why"), progress.cells_to_run(), _never_skip)
    assert again is True
    assert progress.outcome.cells[1] == CellRecord(outcome, detail="why")
    assert progress.cells_to_run() == [0, 2]
    assert progress.pending_calls == [10]


def test_a_hung_call_gives_up_the_calls_it_names_and_a_crashed_one_does_not() -> None:
    def skip(call_id: int) -> list[int]:
        return [12, 99] if call_id == 11 else []  # 99 is not pending: nothing to give up

    hung = Progress(0, [10, 11, 12, 13])
    assert hung.absorb(RunEnd([Report(0, _value(1.0))], StopReason.TIMEOUT, "slow"), [], skip) is True
    assert hung.outcome.calls[11].outcome is CallOutcome.TIMEOUT
    assert hung.outcome.calls[12] == NOT_RUN_CALL and 99 not in hung.outcome.calls
    assert hung.pending_calls == [13]

    crashed = Progress(0, [10, 11, 12, 13])
    assert crashed.absorb(RunEnd([Report(0, _value(1.0))], StopReason.CRASHED, "died"), [], skip) is True
    assert crashed.outcome.calls[11].outcome is CallOutcome.CRASHED
    assert crashed.pending_calls == [12, 13]


def test_the_last_call_hanging_leaves_nothing_to_run() -> None:
    progress = Progress(1, [10])
    assert progress.absorb(RunEnd([Report(0, OK_CELL)], StopReason.TIMEOUT, "slow"), [0], _never_skip) is False
    assert progress.outcome.calls[10].outcome is CallOutcome.TIMEOUT


def test_out_of_budget_everything_left_is_not_run_and_the_note_says_so() -> None:
    progress = Progress(2, [10, 11])
    progress.outcome.cells[0] = OK_CELL
    progress.out_of_budget(progress.cells_to_run(), 60.0)
    assert progress.outcome.cells == {0: OK_CELL, 1: CellRecord(CellOutcome.NOT_RUN)}
    assert progress.outcome.calls == {10: NOT_RUN_CALL, 11: NOT_RUN_CALL}
    assert progress.outcome.notes == [budget_note(60)]
