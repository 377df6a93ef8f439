"""Drive one submission's runner process: deadlines per item, restarts after a hang or a crash.

The runner (``runner.py``) executes the student's cells, then the calls, and reports each item
as one JSON line. The grader gives every item ``timeout`` seconds from the previous report.
When an item hangs (even one that ignores every signal) or kills its own process, the whole
sandbox is killed, that item is recorded as ``timeout`` or ``crashed``, and a fresh sandbox
runs the items that are left, without the bad one. A submission never takes longer than its
``budget``; what is left then is recorded as not run.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .sandbox import Sandbox

#: Longest line the runner may write; longer means it is not talking our protocol any more.
MAX_LINE = 256 * 1024
#: Time allowed for the sandbox and Python to start, on top of the per-item timeout.
STARTUP_GRACE = 10.0


@dataclass
class RunOutcome:
    """What came back from one submission's runs, item by item (all data checked by type)."""

    cells: dict[int, dict] = field(default_factory=dict)
    calls: dict[int, dict] = field(default_factory=dict)
    restarts: int = 0
    #: Set when the runner could not start or broke the protocol: the submission cannot be graded.
    fatal: str | None = None
    notes: list[str] = field(default_factory=list)


class _ProtocolError(Exception):
    pass


def _valid_cell(record: dict) -> dict:
    if record.get("ok") is True:
        return {"outcome": "ok"}
    if record.get("ok") is False and isinstance(record.get("error"), str) and isinstance(record.get("message"), str):
        return {"outcome": "error", "error": record["error"][:200], "message": record["message"][:400]}
    raise _ProtocolError(f"malformed cell report {str(record)[:200]}")


def _valid_call(record: dict) -> dict:
    status = record.get("status")
    after = record.get("after")
    if after is not None and not (
        isinstance(after, list) and all(v is None or (type(v) in (int, float)) for v in after)
    ):
        after = None
    if status == "value":
        value = record.get("value")
        if type(value) not in (int, float):
            raise _ProtocolError(f"call value is not a number: {str(value)[:100]}")
        return {"outcome": "value", "value": float(value), "after": after}
    if status == "not-a-number" and isinstance(record.get("type"), str):
        return {"outcome": "not-a-number", "type": record["type"][:100], "after": after}
    if status == "raised" and isinstance(record.get("error"), str) and isinstance(record.get("message"), str):
        return {"outcome": "raised", "error": record["error"][:200], "message": record["message"][:400], "after": after}
    if status == "undefined":
        return {"outcome": "undefined"}
    raise _ProtocolError(f"malformed call report {str(record)[:200]}")


def _kill(process: subprocess.Popen) -> None:
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
    calls: list[dict],
    *,
    timeout: float,
    budget: float,
    slot: int = 0,
    skip_after_timeout: Callable[[int], list[int]] = lambda call_id: [],
) -> RunOutcome:
    """Run the student's ``cells``, then ``calls``, in fresh sandboxes until every item has an outcome.

    Parameters
    ----------
    sandbox : Bubblewrap or ResourceLimitsOnly
        Where to run.
    cells : list of str
        Python sources of the student's cells (magics already transformed).
    calls : list of dict
        ``{"id", "function", "rels", "k"}`` per call; no expected values.
    timeout : float
        Seconds each cell and each call may take.
    budget : float
        Seconds the whole submission may take, restarts included.
    slot : int
        Worker slot, so that parallel sandboxes run under different user ids.
    skip_after_timeout : callable
        Given a call id that timed out, the ids of calls not worth running any more.

    Returns
    -------
    RunOutcome
    """
    outcome = RunOutcome()
    bad_cells: set[int] = set()
    pending_calls = [call["id"] for call in calls]
    by_id = {call["id"]: call for call in calls}
    started = time.monotonic()
    while True:
        # Every run starts afresh, so it re-runs all cells except those that hung or crashed.
        run_cells = [index for index in range(len(cells)) if index not in bad_cells]
        remaining = budget - (time.monotonic() - started)
        if remaining <= 0:
            for index in run_cells:
                outcome.cells.setdefault(index, {"outcome": "not-run"})
            for call_id in pending_calls:
                outcome.calls[call_id] = {"outcome": "not-run"}
            outcome.notes.append(f"stopped after the submission's time budget of {budget:g} s")
            break
        with tempfile.TemporaryDirectory(prefix="ndcg-scratch-") as scratch:
            reports, stop, detail = _one_run(
                sandbox, Path(scratch), slot, [cells[i] for i in run_cells],
                [by_id[c] for c in pending_calls], timeout, remaining,
            )
        cells_done = calls_done = 0
        for kind, position, record in reports:
            if kind == "cell":
                outcome.cells.setdefault(run_cells[position], record)
                cells_done += 1
            else:
                outcome.calls[pending_calls[position]] = record
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
        outcome.restarts += 1
        bad = {"outcome": "timeout" if stop in ("timeout", "budget") else "crashed", "detail": detail}
        if cells_done < len(run_cells):
            bad_cell = run_cells[cells_done]
            bad_cells.add(bad_cell)
            outcome.cells[bad_cell] = bad
        elif pending_calls:
            call_id = pending_calls.pop(0)
            outcome.calls[call_id] = bad
            if stop != "crashed":
                for other in skip_after_timeout(call_id):
                    if other in pending_calls:
                        pending_calls.remove(other)
                        outcome.calls[other] = {"outcome": "not-run"}
        if not pending_calls and all(i in outcome.cells for i in range(len(cells))):
            break
    return outcome


def _one_run(sandbox, scratch, slot, cells, calls, timeout, remaining):
    """One sandboxed process. Returns (reports, stop reason, detail)."""
    launch = sandbox.launch(scratch, slot)
    cells_line = json.dumps(cells).encode() + b"\n"
    calls_line = json.dumps(calls).encode() + b"\n"
    reports: list[tuple[str, int, dict]] = []
    try:
        process = subprocess.Popen(
            launch.argv, cwd=launch.cwd, env=launch.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )
    except OSError as error:
        return reports, "startup", f"could not start the sandbox: {error}"
    try:
        _send(process, cells_line, close=False)
        if not cells:
            _send(process, calls_line, close=True)
        return _read_reports(process, reports, len(cells), calls_line, [call["id"] for call in calls], timeout, remaining)
    finally:
        _kill(process)
        for stream in (process.stdout, process.stderr):
            stream.close()


def _send(process: subprocess.Popen, line: bytes, close: bool) -> None:
    try:
        process.stdin.write(line)
        process.stdin.flush()
        if close:
            process.stdin.close()
    except (BrokenPipeError, ValueError):
        pass  # the process is gone; reading its reports will tell why


def _read_reports(process, reports, cell_count, calls_line, call_ids, timeout, remaining):
    """Collect reports; send the calls once the last cell has reported."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    fd = process.stdout.fileno()
    buffer = b""
    ready = False
    end_of_budget = time.monotonic() + remaining
    deadline = min(time.monotonic() + timeout + STARTUP_GRACE, end_of_budget)
    while True:
        wait = deadline - time.monotonic()
        if wait <= 0 or not selector.select(timeout=wait):
            if not ready:
                return reports, "startup", f"the sandbox did not start within {timeout + STARTUP_GRACE:g} s"
            return reports, ("budget" if deadline >= end_of_budget else "timeout"), f"no answer within {timeout:g} s"
        chunk = os.read(fd, 65536)
        if not chunk:
            process.wait()
            if not ready:
                error = process.stderr.read(2000).decode(errors="replace").strip()
                return reports, "startup", f"the sandbox failed to start (exit {process.returncode}): {error}"
            return reports, "crashed", _exit_text(process.returncode)
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise _ProtocolError("report is not an object")
                if record.get("ready") is True and not ready:
                    ready = True
                elif record.get("done") is True:
                    return reports, "done", ""
                elif "cell" in record:
                    reports.append(("cell", _next_position(record["cell"], reports, "cell", None), _valid_cell(record)))
                    if len(reports) == cell_count:
                        _send(process, calls_line, close=True)
                elif "call" in record:
                    reports.append(("call", _next_position(record["call"], reports, "call", call_ids), _valid_call(record)))
                else:
                    raise _ProtocolError(f"unknown report {line[:200]!r}")
            except (ValueError, _ProtocolError) as error:
                return reports, "protocol", f"the submission interfered with the grader's channel ({error})"
            deadline = min(time.monotonic() + timeout, end_of_budget)
        if len(buffer) > MAX_LINE:
            return reports, "protocol", "the submission interfered with the grader's channel (line too long)"


def _next_position(label: object, reports: list, kind: str, call_ids: list[int] | None) -> int:
    """Reports arrive in job order: cells 0, 1, ... then the calls' ids; return the position."""
    position = sum(1 for k, _, _ in reports if k == kind)
    wanted = position if call_ids is None else (call_ids[position] if position < len(call_ids) else None)
    if type(label) is not int or label != wanted:
        raise _ProtocolError(f"{kind} report {str(label)[:50]} out of order (expected {wanted})")
    return position


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

