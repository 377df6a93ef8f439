"""Grade one submission, and a whole class in parallel, resumable after a crash of the grader.

Each student's result is written to ``OUT/.state/<student>.json`` (atomically) as soon as it is
known. A later run reuses it when neither the notebook nor the grading (test cases, runner)
changed, unless ``force`` is given; so a grader killed in the middle of a batch finishes the rest
when run again, and the results equal those of an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from .cases import GROUPS, max_score
from .diagnosis import diagnose, probe_calls
from .execution import run_submission
from .files import write_atomic
from .sandbox import RUNNER, Sandbox
from .scoring import plan_calls, runner_call, runner_calls, same_group, score
from .submission import SubmissionProblem, locate_notebook, read_student_code

STATE = ".state"


@dataclass(frozen=True)
class GradingSettings:
    """What every submission of a batch is graded with."""

    assignment: str
    notebook: str
    timeout: float
    skip_ids: frozenset[str]

    @property
    def budget(self) -> float:
        """Seconds one submission may take in all: ten timeouts, at least one minute."""
        return max(60.0, 10 * self.timeout)


def grading_fingerprint(settings: GradingSettings) -> str:
    """Changes whenever a re-run could give other results for an unchanged notebook."""
    parts = [
        repr([(g.grade_id, g.points, g.cases) for g in GROUPS]),
        RUNNER.read_text(encoding="utf-8"),
        repr((settings.timeout, sorted(settings.skip_ids))),
        Path(__file__).with_name("scoring.py").read_text(encoding="utf-8"),
        Path(__file__).with_name("diagnosis.py").read_text(encoding="utf-8"),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _blank_result(student_id: str, status: str, message: str) -> dict:
    return {
        "student_id": student_id, "status": status, "score": 0.0, "max_score": max_score(),
        "tests": [], "diagnoses": [], "message": message, "cells": [],
    }


def grade_submission(student_dir: Path, settings: GradingSettings, sandbox: Sandbox, slot: int = 0) -> dict:
    """Grade one student's folder and return their result (a JSON-ready dict).

    Never raises for anything the submission does: a missing, corrupt, hanging or crashing
    submission gets a status (``missing``, ``error``, ``timeout``) and a message.
    """
    student_id = student_dir.name
    try:
        path, note = locate_notebook(student_dir, settings.assignment, settings.notebook)
        code = read_student_code(path, set(settings.skip_ids))
    except SubmissionProblem as problem:
        return _blank_result(student_id, problem.status, problem.message)
    plan = plan_calls()
    probes = probe_calls(first_id=len(plan))
    calls = runner_calls(plan) + [runner_call(call_id, p.function, p.rels, p.k) for call_id, p in probes.items()]
    tests_skip = same_group(plan)

    def skip_after_timeout(call_id: int) -> list[int]:
        # a hung probe makes the rest of the diagnosis unreliable: skip the other probes
        return [other for other in probes if other > call_id] if call_id in probes else tests_skip(call_id)

    outcome = run_submission(
        sandbox, code.cells, calls, timeout=settings.timeout, budget=settings.budget,
        slot=slot, skip_after_timeout=skip_after_timeout,
    )
    result = _blank_result(student_id, "graded", "")
    result["notebook"] = str(path)
    result["sha256"] = code.sha256
    result["cells"] = [
        {"index": index, **outcome.cells[index]} for index in sorted(outcome.cells) if outcome.cells[index]["outcome"] != "ok"
    ]
    if outcome.fatal:
        result["status"] = "error"
        result["message"] = f"could not grade the notebook: {outcome.fatal}"
        return result
    tests = score(plan, outcome.calls, settings.timeout)
    result["tests"] = [t.to_dict() for t in tests]
    found = diagnose({probe: outcome.calls.get(call_id, {"outcome": "not-run"}) for call_id, probe in probes.items()})
    result["diagnoses"] = found.ids
    result["diagnosis_details"] = [finding.to_dict() for finding in found.findings]
    result["unexplained"] = found.unexplained
    result["score"] = sum(t.points for t in tests)
    messages = [note] if note else []
    for cell in result["cells"]:
        messages.append(_cell_message(cell, settings.timeout))
    hung = sum(1 for p in plan if outcome.calls.get(p.call_id, {}).get("outcome") == "timeout")
    if hung:
        messages.append(f"{hung} test call{'s' if hung > 1 else ''} did not finish within {settings.timeout:g} s")
    if any(outcome.calls.get(call_id, {}).get("outcome") == "timeout" for call_id in probes):
        messages.append("the mistake diagnosis stopped early: a probe call did not finish")
    messages.extend(outcome.notes)
    cell_hung = any(cell["outcome"] == "timeout" for cell in result["cells"])
    if hung or cell_hung or outcome.notes:  # a probe that hangs costs no points and is no timeout
        result["status"] = "timeout"
    result["message"] = "; ".join(messages) if messages else "graded"
    return result


def _cell_message(cell: dict, timeout: float) -> str:
    number = cell["index"] + 1
    if cell["outcome"] == "error":
        return f"your code cell {number} raised {cell['error']}: {cell['message']}"
    if cell["outcome"] == "timeout":
        return f"your code cell {number} did not finish within {timeout:g} s and was skipped"
    if cell["outcome"] == "crashed":
        return f"your code cell {number} ended the Python process and was skipped"
    return f"your code cell {number} was not run"


def _notebook_digest(student_dir: Path, settings: GradingSettings) -> str | None:
    try:
        path, _ = locate_notebook(student_dir, settings.assignment, settings.notebook)
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (SubmissionProblem, OSError):
        return None


def student_folders(submitted: Path) -> list[Path]:
    """Every student folder under ``submitted`` (hidden folders and stray files are not students)."""
    return sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith("."))


def _load_state(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def grade_batch(
    submitted: Path,
    out: Path,
    settings: GradingSettings,
    sandbox: Sandbox,
    *,
    workers: int,
    force: bool = False,
    progress: bool = True,
) -> list[dict]:
    """Grade every student folder under ``submitted``; return the results in student order.

    Results already in ``out/.state`` are reused unless ``force`` or the notebook or the grading
    changed. Each new result is saved as soon as it is known.
    """
    from tqdm import tqdm

    state_dir = out / STATE
    state_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = grading_fingerprint(settings)
    folders = student_folders(submitted)
    results: dict[str, dict] = {}
    todo: list[Path] = []
    for folder in folders:
        saved = _load_state(state_dir / f"{folder.name}.json")
        if (
            not force and saved is not None and saved.get("fingerprint") == fingerprint
            and saved.get("notebook_sha256") == _notebook_digest(folder, settings)
        ):
            results[folder.name] = saved["result"]
        else:
            todo.append(folder)

    slots: queue.Queue[int] = queue.Queue()
    for slot in range(workers):
        slots.put(slot)

    def work(folder: Path) -> dict:
        slot = slots.get()
        try:
            digest = _notebook_digest(folder, settings)
            try:
                result = grade_submission(folder, settings, sandbox, slot)
            except Exception as error:  # a grader bug must not cost the other students their grades
                result = _blank_result(folder.name, "error", f"internal grader error: {type(error).__name__}: {error}")
                digest = None  # never cache a grader failure
            if digest is not None:
                record = {"fingerprint": fingerprint, "notebook_sha256": digest, "result": result}
                write_atomic(state_dir / f"{folder.name}.json", json.dumps(record, indent=1))
            return result
        finally:
            slots.put(slot)

    bar = tqdm(total=len(folders), initial=len(results), unit="student", desc="grading", disable=not progress, file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, folder) for folder in todo]
        for future in as_completed(futures):
            result = future.result()
            results[result["student_id"]] = result
            bar.update(1)
    bar.close()
    return [results[folder.name] for folder in folders]


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
