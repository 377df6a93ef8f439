"""Drive one submission's runner process: deadlines per item, restarts after a hang or a crash.

The runner (``runner.py``) executes the student's cells, then the calls, and reports each item
as one JSON line. The grader gives every item ``timeout`` seconds from the previous report: of
the sandbox's own CPU time where the run has a cgroup (with a wall-clock backstop), else of wall
time (:mod:`.deadline`).
When an item hangs (even one that ignores every signal) or kills its own process, the whole
sandbox is killed, that item is recorded as ``timeout`` or ``crashed``, and a fresh sandbox
runs the items that are left, without the bad one. A submission never takes longer than its
``budget``; what is left then is recorded as not run. Where the machine, not the submission,
used up the time, :class:`.deadline.MachineOverloaded` is raised instead: no outcome is made up.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .deadline import Budget, ItemClock, MachineOverloaded
from .launch import Sandbox
from .paths import redact_paths
from .protocol import (
    NOT_RUN_CALL,
    CallOutcome,
    CallRecord,
    CellOutcome,
    CellRecord,
    ProtocolError,
    call_record,
    cell_record,
)
from .scratch import scratch_folder

#: Longest line the runner may write; longer means it is not talking our protocol any more.
MAX_LINE = 256 * 1024
#: What a run that broke the protocol is told: a fixed sentence, nothing of what it wrote.
INTERFERED = "the submission wrote to the grader's channel itself, breaking the protocol"
#: Time allowed for the sandbox and Python to start, on top of the per-item timeout.
STARTUP_GRACE = 10.0


@dataclass(frozen=True)
class CallOrder:
    """One call to make: ``function(*args)``, numbered; tuples in ``args`` reach the function as fresh lists."""

    id: int
    function: str
    args: tuple[Any, ...]

    def wire(self) -> dict[str, Any]:
        """The call as the runner reads it (JSON writes tuples as lists)."""
        return {"id": self.id, "function": self.function, "args": self.args}


@dataclass
class RunOutcome:
    """What came back from one submission's runs, item by item (all data checked by type)."""

    cells: dict[int, CellRecord] = field(default_factory=dict)
    calls: dict[int, CallRecord] = field(default_factory=dict)
    #: Set when the runner could not start or broke the protocol: the submission cannot be graded.
    fatal: str | None = None
    notes: list[str] = field(default_factory=list)


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except ProcessLookupError:
        pass
    process.wait()


def run_submission(
    sandbox: Sandbox,
    cells: list[str],
    calls: list[CallOrder],
    *,
    timeout: float,
    budget: float | Budget,
    slot: int = 0,
    skip_after_timeout: Callable[[int], list[int]] = lambda call_id: [],
    batched: bool = False,
) -> RunOutcome:
    """Run the student's ``cells``, then ``calls``, in fresh sandboxes until every item has an outcome.

    Parameters
    ----------
    sandbox : Bubblewrap or ResourceLimitsOnly
        Where to run.
    cells : list of str
        Python sources of the student's cells (magics already transformed).
    calls : list of CallOrder
        The calls to make after the cells; no expected values.
    timeout : float
        Seconds each cell and each call may take.
    budget : float or Budget
        Seconds the whole submission may take, restarts included (charged seconds: see
        :mod:`.deadline`); pass one :class:`Budget` to several calls for one submission's runs.
    slot : int
        Worker slot, so that parallel sandboxes run under different user ids.
    skip_after_timeout : callable
        Given a call id that timed out, the ids of calls not worth running any more.
    batched : bool
        Send every call at once, after the last cell has reported, instead of each after the
        report of the one before. Only for a process that holds no hidden input: a function that
        looks through ``gc`` or its stack can find the calls still to come.

    Returns
    -------
    RunOutcome

    Raises
    ------
    MachineOverloaded
        When the machine let the sandbox wait so long that the grader gave up (see :mod:`.deadline`).
    """
    budget = budget if isinstance(budget, Budget) else Budget(budget)
    outcome = RunOutcome()
    bad_cells: set[int] = set()
    pending_calls = [call.id for call in calls]
    by_id = {call.id: call for call in calls}
    while True:
        # Every run starts afresh, so it re-runs all cells except those that hung or crashed.
        run_cells = [index for index in range(len(cells)) if index not in bad_cells]
        if budget.left <= 0:
            for index in run_cells:
                outcome.cells.setdefault(index, CellRecord(CellOutcome.NOT_RUN))
            for call_id in pending_calls:
                outcome.calls[call_id] = NOT_RUN_CALL
            outcome.notes.append(f"stopped after the submission's time budget of {budget.seconds:g} s")
            break
        with scratch_folder() as scratch:  # removed afterwards; one a killed grader left, by the next run
            reports, stop, detail = _one_run(
                sandbox, scratch, slot, [cells[i] for i in run_cells],
                [by_id[c] for c in pending_calls], timeout, budget, batched,
            )
        if stop == "overloaded":
            raise MachineOverloaded(detail)
        cells_done = calls_done = 0
        for report in reports:
            if isinstance(report.record, CellRecord):
                outcome.cells.setdefault(run_cells[report.position], report.record)
                cells_done += 1
            else:
                outcome.calls[pending_calls[report.position]] = report.record
                calls_done += 1
        pending_calls = pending_calls[calls_done:]
        if stop == "done":
            if cells_done < len(run_cells) or pending_calls:
                outcome.fatal = "the runner stopped before reporting every item"
            break
        if stop in ("startup", "protocol"):
            outcome.fatal = detail
            break
        # "timeout", "crashed" or "budget": the item in progress gets that outcome, then restart without it.
        hung = stop in ("timeout", "budget")
        if cells_done < len(run_cells):
            bad_cell = run_cells[cells_done]
            bad_cells.add(bad_cell)
            outcome.cells[bad_cell] = CellRecord(CellOutcome.TIMEOUT if hung else CellOutcome.CRASHED, detail=detail)
        elif pending_calls:
            call_id = pending_calls.pop(0)
            outcome.calls[call_id] = CallRecord(CallOutcome.TIMEOUT if hung else CallOutcome.CRASHED, detail=detail)
            if stop != "crashed":
                for other in skip_after_timeout(call_id):
                    if other in pending_calls:
                        pending_calls.remove(other)
                        outcome.calls[other] = NOT_RUN_CALL
        if not pending_calls and all(i in outcome.cells for i in range(len(cells))):
            break
    return outcome


@dataclass(frozen=True)
class _Report:
    """One checked report line: the item's position among the run's cells or calls, and its record."""

    position: int
    record: CellRecord | CallRecord


_Stop = tuple[list[_Report], str, str]


def _one_run(
    sandbox: Sandbox, scratch: Path, slot: int, cells: list[str], calls: list[CallOrder], timeout: float,
    budget: Budget, batched: bool,
) -> _Stop:
    """One sandboxed process. Returns (reports, stop reason, detail)."""
    launch = sandbox.launch(scratch, slot)
    cells_line = json.dumps(cells).encode() + b"\n"
    call_lines = [json.dumps(call.wire()).encode() + b"\n" for call in calls]
    reports: list[_Report] = []
    try:
        process = subprocess.Popen(
            launch.argv, cwd=launch.cwd, env=launch.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=launch.pass_fds,
        )
    except OSError as error:
        launch.end()
        return reports, "startup", redact_paths(f"could not start the sandbox: {error}")
    launch.close_fds()
    group = launch.group
    clock = ItemClock(
        group.cpu_seconds if group is not None else None, budget, group.task_delays if group is not None else None
    )
    try:
        outbox = _Outbox(process)
        outbox.add(cells_line)
        if not cells:
            outbox.send_calls(call_lines, 0, batched)
        return _read_reports(
            process, outbox, reports, len(cells), call_lines, [call.id for call in calls], timeout, clock, batched
        )
    finally:
        budget.spent += clock.charged()
        _kill(process)
        launch.end()  # the cgroup's removal kills whatever escaped the process group
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass  # the runner's input, with a call it never read


class _Outbox:
    """What the grader still has to write to the runner, written as the pipe takes it, never blocking.

    A runner that stops reading (a hung cell, a full pipe) must not stop the grader: its deadline
    is judged while the rest waits here.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._stdin = process.stdin
        self._fd = process.stdin.fileno() if process.stdin is not None else -1
        if self._fd >= 0:
            os.set_blocking(self._fd, False)
        self._pending = b""
        self._close = False

    @property
    def fd(self) -> int:
        """The runner's standard input, or -1 once it is closed."""
        return self._fd

    @property
    def waiting(self) -> bool:
        """Whether something is left to write (or the input is to be closed)."""
        return self._fd >= 0 and (bool(self._pending) or self._close)

    def add(self, data: bytes, close: bool = False) -> None:
        """Queue ``data`` (then close the runner's input if ``close``) and write what the pipe takes now."""
        self._pending += data
        self._close = self._close or close
        self.flush()

    def send_calls(self, call_lines: list[bytes], position: int, batched: bool) -> None:
        """The call at ``position`` (every call from there if ``batched``); the end of input after the last."""
        if position >= len(call_lines):
            self.add(b"", close=True)
        elif batched:
            self.add(b"".join(call_lines[position:]), close=True)
        else:
            self.add(call_lines[position])

    def flush(self) -> None:
        """Write what the pipe takes without waiting; close the input once all is written, if asked."""
        if self._fd < 0:
            return
        try:
            while self._pending:
                self._pending = self._pending[os.write(self._fd, self._pending[:65536]):]
        except BlockingIOError:
            return
        except OSError:  # the process is gone; reading its reports will tell why
            self._pending = b""
            self._close = True
        if self._close and self._stdin is not None:
            self._stdin.close()
            self._fd = -1


def _read_reports(
    process: subprocess.Popen[bytes], outbox: _Outbox, reports: list[_Report], cell_count: int,
    call_lines: list[bytes], call_ids: list[int], timeout: float, clock: ItemClock, batched: bool,
) -> _Stop:
    """Collect reports; send the calls after the last cell's report (one at a time unless ``batched``)."""
    if process.stdout is None or process.stderr is None:
        raise RuntimeError("the runner process has no pipes")  # a grader bug: Popen was called without them
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    fd = process.stdout.fileno()
    buffer = b""
    ready = False
    cells_seen = calls_seen = 0
    clock.start(timeout + STARTUP_GRACE)
    while True:
        overrun = clock.overrun()
        if overrun is not None:
            if not ready and overrun != "overloaded":
                return reports, "startup", f"the sandbox did not start: {clock.detail}"
            return reports, overrun, clock.detail
        writing = outbox.waiting
        if writing:
            selector.register(outbox.fd, selectors.EVENT_WRITE)
        try:
            events = selector.select(timeout=clock.wait())
        finally:
            if writing:
                selector.unregister(outbox.fd)
        if any(key.fd == outbox.fd for key, _ in events):
            outbox.flush()
        if not any(key.fd == fd for key, _ in events):
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            process.wait()
            if not ready:
                error = process.stderr.read(2000).decode(errors="replace").strip()
                # shown in the feedback: no path of this machine (bubblewrap names the folders it mounts)
                failed = f"the sandbox failed to start (exit {process.returncode}): {error}"
                return reports, "startup", redact_paths(failed)
            return reports, "crashed", _exit_text(process.returncode)
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ProtocolError("report is not an object")
                if record.get("ready") is True and not ready:
                    ready = True
                elif record.get("done") is True:
                    return reports, "done", ""
                elif "cell" in record:
                    _check_order("cell", record["cell"], cells_seen)
                    reports.append(_Report(cells_seen, cell_record(record)))
                    cells_seen += 1
                    if cells_seen == cell_count:
                        outbox.send_calls(call_lines, 0, batched)
                elif "call" in record:
                    _check_order("call", record["call"], call_ids[calls_seen] if calls_seen < len(call_ids) else None)
                    reports.append(_Report(calls_seen, call_record(record)))
                    calls_seen += 1
                    if not batched:
                        outbox.send_calls(call_lines, calls_seen, batched)
                else:
                    raise ProtocolError(f"unknown report {line[:200]!r}")
            except (ValueError, RecursionError, ProtocolError):
                # never quote the line: its text is the student's, and may come from a process that
                # has seen hidden inputs
                return reports, "protocol", INTERFERED
            clock.start(timeout)
        if len(buffer) > MAX_LINE:
            return reports, "protocol", INTERFERED


def _check_order(kind: str, label: object, wanted: int | None) -> None:
    """Reports arrive in job order (cells 0, 1, ... then the calls' ids): anything else is forged."""
    if type(label) is not int or label != wanted:
        raise ProtocolError(f"{kind} report {str(label)[:50]} out of order (expected {wanted})")


def _exit_text(code: int | None) -> str:
    if code is None:
        return "the Python process died"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the Python process was killed by {name}"
    return f"the Python process exited with code {code} (sys.exit or os._exit?)"

