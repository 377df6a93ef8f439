"""One submission's items across its runs: what each run reported, and what is left for the next.

A run that stops in an item (a hang, a crash, the budget) gives that item the stop as its outcome;
the next run, a fresh process, runs the other cells again and the calls still pending.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .protocol import NOT_RUN_CALL, CallOutcome, CallRecord, CellOutcome, CellRecord
from .stop_reason import StopReason


def budget_note(seconds: float) -> str:
    """What the student is told when their submission used up its time budget (in their terms, not the grader's)."""
    return (
        f"grading stopped when your notebook had used up its time budget of {seconds:g} s (its cells and every "
        "test call together, counted from the start): every code test scores 0, also those that had run (where "
        "the time runs out depends on the machine, the score must not); make each call quick, "
        "and leave no program running after a cell"
    )


@dataclass
class RunOutcome:
    """What came back from one submission's runs, item by item (all data checked by type)."""

    cells: dict[int, CellRecord] = field(default_factory=dict)
    calls: dict[int, CallRecord] = field(default_factory=dict)
    #: Set when the runner could not start or broke the protocol: the submission cannot be graded.
    fatal: str | None = None
    notes: list[str] = field(default_factory=list)
    #: Set when the submission used up its time budget: its code tests score 0 (:func:`budget_note`).
    out_of_budget: bool = False


@dataclass(frozen=True)
class Report:
    """One checked report line: the item's position among the run's cells or calls, and its record."""

    position: int
    record: CellRecord | CallRecord


@dataclass(frozen=True)
class RunEnd:
    """How one sandboxed process ended: the reports it made, why it stopped, and what to say about it."""

    reports: list[Report]
    reason: StopReason
    detail: str = ""


@dataclass
class Progress:
    """One submission's items across its runs: the outcomes so far, the cells left out, the calls still to make."""

    cell_count: int
    pending_calls: list[int]
    outcome: RunOutcome = field(default_factory=RunOutcome)
    #: Cells that hung or crashed: every later run (a fresh process) runs the others again, not these.
    bad_cells: set[int] = field(default_factory=set)

    def cells_to_run(self) -> list[int]:
        """The cells a fresh run executes: all but the bad ones."""
        return [index for index in range(self.cell_count) if index not in self.bad_cells]

    def out_of_budget(self, run_cells: list[int], seconds: float) -> None:
        """The submission's time is used up: whatever has no outcome yet was not run."""
        for index in run_cells:
            self.outcome.cells.setdefault(index, CellRecord(CellOutcome.NOT_RUN))
        self._not_run(self.pending_calls)
        self.outcome.notes.append(budget_note(seconds))
        self.outcome.out_of_budget = True

    def absorb(self, end: RunEnd, run_cells: list[int], skip_after_timeout: Callable[[int], list[int]]) -> bool:
        """Record one run's reports and how it ended; whether another run is needed."""
        cells_done = self._take_reports(end.reports, run_cells)
        if end.reason is StopReason.DONE:
            if cells_done < len(run_cells) or self.pending_calls:
                self.outcome.fatal = "the runner stopped before reporting every item"
            return False
        if end.reason in (StopReason.STARTUP, StopReason.PROTOCOL):
            self.outcome.fatal = end.detail
            return False
        self._fail_item_in_progress(end, run_cells[cells_done] if cells_done < len(run_cells) else None,
                                    skip_after_timeout)
        return bool(self.pending_calls) or any(i not in self.outcome.cells for i in range(self.cell_count))

    def _take_reports(self, reports: list[Report], run_cells: list[int]) -> int:
        """Put the run's reports in place; the number of cells it finished (its calls are no longer pending)."""
        cells_done = calls_done = 0
        for report in reports:
            if isinstance(report.record, CellRecord):
                self.outcome.cells.setdefault(run_cells[report.position], report.record)
                cells_done += 1
            else:
                self.outcome.calls[self.pending_calls[report.position]] = report.record
                calls_done += 1
        self.pending_calls = self.pending_calls[calls_done:]
        return cells_done

    def _fail_item_in_progress(
        self, end: RunEnd, cell: int | None, skip_after_timeout: Callable[[int], list[int]]
    ) -> None:
        """The item the run stopped in (``cell``, else the next call) gets the stop as its outcome."""
        hung = end.reason is not StopReason.CRASHED  # a timeout, or the budget running out
        if cell is not None:
            self.bad_cells.add(cell)
            outcome = CellOutcome.TIMEOUT if hung else CellOutcome.CRASHED
            self.outcome.cells[cell] = CellRecord(outcome, detail=end.detail)
            return
        if not self.pending_calls:
            return
        call_id = self.pending_calls.pop(0)
        self.outcome.calls[call_id] = CallRecord(
            CallOutcome.TIMEOUT if hung else CallOutcome.CRASHED, detail=end.detail
        )
        if hung:
            self._not_run([other for other in skip_after_timeout(call_id) if other in self.pending_calls])

    def _not_run(self, call_ids: Iterable[int]) -> None:
        """These calls are given up: recorded as not run, no longer pending."""
        given_up = dict.fromkeys(call_ids)
        for call_id in given_up:
            self.outcome.calls[call_id] = NOT_RUN_CALL
        self.pending_calls = [call_id for call_id in self.pending_calls if call_id not in given_up]
