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
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from selectors import BaseSelector
from typing import Any

from ..isolation.launch import Launch, Sandbox
from ..resources.processes import RunProcess
from ..resources.scratch import scratch_folder
from .deadline import Budget, ItemClock, MachineOverloaded
from .outbox import Outbox
from .paths import redact_paths
from .progress import Progress, Report, RunEnd, RunOutcome
from .protocol import (
    CellRecord,
    CompiledRoom,
    ProtocolError,
    call_record,
    cell_record,
)
from .stop_reason import StopReason

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
    compiled: bool = False,
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
    compiled : bool
        Keep the texts the cells compiled (:attr:`~.protocol.CellRecord.compiled`, within
        :class:`~.protocol.CompiledRoom`'s bounds for all runs together); without it they are dropped
        as they come.

    Returns
    -------
    RunOutcome

    Raises
    ------
    MachineOverloaded
        When the machine let the sandbox wait so long that the grader gave up (see :mod:`.deadline`).
    """
    budget = budget if isinstance(budget, Budget) else Budget(budget)
    progress = Progress(len(cells), [call.id for call in calls])
    by_id = {call.id: call for call in calls}
    room = CompiledRoom() if compiled else CompiledRoom(texts=None)
    while True:
        run_cells = progress.cells_to_run()
        if budget.left <= 0:
            progress.out_of_budget(run_cells, budget.seconds)
            break
        orders = _Orders.of([cells[i] for i in run_cells], [by_id[c] for c in progress.pending_calls], batched)
        # a cell run again after a restart has its record already: its texts again would only take room
        again = frozenset(position for position, i in enumerate(run_cells) if i in progress.outcome.cells)
        with scratch_folder() as scratch:  # removed afterwards; one a killed grader left, by the next run
            end = _one_run(sandbox, scratch, slot, orders, timeout, budget, _Compiled(room, again))
        if end.reason is StopReason.OVERLOADED:
            raise MachineOverloaded(end.detail)
        if not progress.absorb(end, run_cells, skip_after_timeout):
            break
    return progress.outcome


@dataclass(frozen=True)
class _Orders:
    """What one process is told, as the lines it reads: its cells, then its calls."""

    cells: int
    cells_line: bytes
    call_lines: list[bytes]
    call_ids: list[int]
    #: Every call at once after the last cell, instead of each after the report of the one before.
    batched: bool

    @classmethod
    def of(cls, cells: list[str], calls: list[CallOrder], batched: bool) -> _Orders:
        """The orders for ``cells`` and ``calls``, encoded once."""
        return cls(
            len(cells), json.dumps(cells).encode() + b"\n",
            [json.dumps(call.wire()).encode() + b"\n" for call in calls], [call.id for call in calls], batched,
        )


@dataclass(frozen=True)
class _Compiled:
    """Where a run's compiled texts go: the submission's room, less the cells (positions) recorded before."""

    room: CompiledRoom
    again: frozenset[int]

    def take(self, position: int, record: CellRecord) -> CellRecord:
        """``record`` with the compiled texts kept."""
        if position in self.again:
            return replace(record, compiled=(), dropped=0)
        return self.room.take(record)


def _one_run(
    sandbox: Sandbox, scratch: Path, slot: int, orders: _Orders, timeout: float, budget: Budget, compiled: _Compiled,
) -> RunEnd:
    """One sandboxed process, from its start until it ends (then killed, its cgroup removed)."""
    launch = sandbox.launch(scratch, slot)
    try:
        process = launch.start()
    except OSError as error:
        launch.end()
        return RunEnd([], StopReason.STARTUP, redact_paths(f"could not start the sandbox: {error}"))
    launch.close_fds()
    group = launch.group
    # the sandbox runs on the grader's CPUs (it inherits their affinity): it can use no more CPU time than that,
    # and no more than its cgroup's quota: a run that uses all of it is waiting for its own processes
    cpus = len(os.sched_getaffinity(0))
    clock = ItemClock(
        group.cpu_seconds if group is not None else None, budget, group.task_delays if group is not None else None,
        cpus=cpus, share=min(float(cpus), sandbox.limits.cpu_cores) if group is not None else None,
    )
    try:
        outbox = Outbox(process)
        outbox.add(orders.cells_line)
        if not orders.cells:
            outbox.send_calls(orders.call_lines, 0, orders.batched)
        return _ReportReader(process, outbox, orders, timeout, clock, compiled).read()
    finally:
        budget.spent += clock.charged()
        _end_process(process, launch)


def _end_process(process: RunProcess, launch: Launch) -> None:
    """Kill the run's processes, remove its cgroup (killing whatever escaped the group), close the pipes."""
    process.kill()
    launch.end()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass  # the runner's input, with a call it never read


class _ReportReader:
    """One runner's reports, read and checked as they come; its calls sent when it is their turn."""

    def __init__(
        self, process: RunProcess, outbox: Outbox, orders: _Orders, timeout: float, clock: ItemClock,
        compiled: _Compiled,
    ) -> None:
        if process.stdout is None or process.stderr is None:
            raise RuntimeError("the runner process has no pipes")  # a grader bug: Popen was called without them
        self._process, self._stdout, self._stderr = process, process.stdout, process.stderr
        self._outbox, self._orders, self._timeout, self._clock = outbox, orders, timeout, clock
        self._compiled = compiled
        self._reports: list[Report] = []
        self._buffer = b""
        self._ready = False
        self._cells_seen = self._calls_seen = 0

    def read(self) -> RunEnd:
        """Read until the runner is done, stops, breaks the protocol or overruns its time."""
        with selectors.DefaultSelector() as selector:
            selector.register(self._stdout, selectors.EVENT_READ)
            self._clock.start(self._timeout + STARTUP_GRACE)
            while (end := self._overrun()) is None:
                chunk = self._next_chunk(selector)
                if chunk is not None and (end := self._take(chunk)) is not None:
                    break
        return end

    def _end(self, reason: StopReason, detail: str = "") -> RunEnd:
        return RunEnd(self._reports, reason, detail)

    def _overrun(self) -> RunEnd | None:
        """The end of the run if the item in progress (or the start) has used up its time."""
        reason = self._clock.overrun()
        if reason is None:
            return None
        if not self._ready and reason is not StopReason.OVERLOADED:
            return self._end(StopReason.STARTUP, f"the sandbox did not start: {self._clock.detail}")
        return self._end(reason, self._clock.detail)

    def _next_chunk(self, selector: BaseSelector) -> bytes | None:
        """Wait for output (writing what the runner's input takes meanwhile); None if there was none in time."""
        writing = self._outbox.waiting
        if writing:
            selector.register(self._outbox.fd, selectors.EVENT_WRITE)
        try:
            events = selector.select(timeout=self._clock.wait())
        finally:
            if writing:
                selector.unregister(self._outbox.fd)
        ready_fds = {key.fd for key, _ in events}
        if self._outbox.fd in ready_fds:
            self._outbox.flush()
        fd = self._stdout.fileno()
        return os.read(fd, 65536) if fd in ready_fds else None

    def _take(self, chunk: bytes) -> RunEnd | None:
        """Read the whole lines of ``chunk`` (empty: the runner has ended); the run's end if it came."""
        if not chunk:
            return self._exited()
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                done = self._take_line(line)
            except (ValueError, RecursionError, ProtocolError):
                # never quote the line: its text is the student's, and may come from a process that
                # has seen hidden inputs
                return self._end(StopReason.PROTOCOL, INTERFERED)
            if done:
                return self._end(StopReason.DONE)
            self._clock.start(self._timeout)
        if len(self._buffer) > MAX_LINE:
            return self._end(StopReason.PROTOCOL, INTERFERED)
        return None

    def _take_line(self, line: bytes) -> bool:
        """Check one report line and keep its record; whether it says the runner is done."""
        record = json.loads(line)
        if not isinstance(record, dict):
            raise ProtocolError("report is not an object")
        if record.get("ready") is True and not self._ready:
            self._ready = True
        elif record.get("done") is True:
            return True
        elif "cell" in record:
            _check_order("cell", record["cell"], self._cells_seen)
            self._reports.append(Report(self._cells_seen, self._compiled.take(self._cells_seen, cell_record(record))))
            self._cells_seen += 1
            if self._cells_seen == self._orders.cells:
                self._outbox.send_calls(self._orders.call_lines, 0, self._orders.batched)
        elif "call" in record:
            if self._cells_seen < self._orders.cells:
                raise ProtocolError("call report before the last cell's")
            ids = self._orders.call_ids
            _check_order("call", record["call"], ids[self._calls_seen] if self._calls_seen < len(ids) else None)
            self._reports.append(Report(self._calls_seen, call_record(record)))
            self._calls_seen += 1
            if not self._orders.batched:
                self._outbox.send_calls(self._orders.call_lines, self._calls_seen, False)
        else:
            raise ProtocolError(f"unknown report {line[:200]!r}")
        return False

    def _exited(self) -> RunEnd:
        """The runner closed its output: it failed to start, or died."""
        self._process.wait()
        if not self._ready:
            error = self._stderr.read(2000).decode(errors="replace").strip()
            # shown in the feedback: no path of this machine (bubblewrap names the folders it mounts)
            failed = f"the sandbox failed to start (exit {self._process.returncode}): {error}"
            return self._end(StopReason.STARTUP, redact_paths(failed))
        return self._end(StopReason.CRASHED, _exit_text(self._process.returncode))


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

