"""Grade a whole class in parallel, resumable after a crash of the grader.

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
from pathlib import Path

from tqdm import tqdm

from ..files import source_digest, write_atomic
from ..sandbox import Sandbox
from .model import SCHEMA_VERSION, Status, StudentResult
from .notebook import SubmissionProblem, locate_notebook
from .submission import GradingSettings, grade_submission

STATE = ".state"
#: The grading code: a change to any of its files may change results.
PACKAGE = Path(__file__).resolve().parents[1]


def grading_fingerprint(settings: GradingSettings) -> str:
    """Changes whenever a re-run could give other results for an unchanged notebook."""
    exercise = settings.exercise
    digest = hashlib.sha256(source_digest(PACKAGE).encode())
    cases = [(g.grade_id, g.points, [(c, exercise.expected(c)) for c in g.cases]) for g in exercise.groups]
    digest.update(repr((SCHEMA_VERSION, cases, exercise.probes, exercise.fingerprint)).encode())
    digest.update(repr((settings.timeout, sorted(settings.skip_ids))).encode())
    return digest.hexdigest()


def _notebook_digest(student_dir: Path, settings: GradingSettings) -> str | None:
    try:
        path, _ = locate_notebook(student_dir, settings.exercise.assignment, settings.exercise.notebook)
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (SubmissionProblem, OSError):
        return None


def student_folders(submitted: Path) -> list[Path]:
    """Every student folder under ``submitted`` (hidden folders and stray files are not students)."""
    return sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith("."))


def _load_state(path: Path, fingerprint: str, digest: str | None) -> StudentResult | None:
    """The saved result if it was graded the same way from the same notebook, else None."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["fingerprint"] != fingerprint or digest is None or saved["notebook_sha256"] != digest:
            return None
        return StudentResult.from_json(saved["result"])
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or from another version: grade again
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
) -> list[StudentResult]:
    """Grade every student folder under ``submitted``; return the results in student order.

    Results already in ``out/.state`` are reused unless ``force`` or the notebook or the grading
    changed. Each new result is saved as soon as it is known.
    """
    state_dir = out / STATE
    state_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = grading_fingerprint(settings)
    folders = student_folders(submitted)
    results: dict[str, StudentResult] = {}
    todo: list[Path] = []
    for folder in folders:
        state = state_dir / f"{folder.name}.json"
        saved = None if force else _load_state(state, fingerprint, _notebook_digest(folder, settings))
        if saved is not None:
            results[folder.name] = saved
        else:
            todo.append(folder)

    slots: queue.Queue[int] = queue.Queue()
    for slot in range(workers):
        slots.put(slot)

    def work(folder: Path) -> StudentResult:
        slot = slots.get()
        try:
            digest = _notebook_digest(folder, settings)
            try:
                result = grade_submission(folder, settings, sandbox, slot)
            except Exception as error:  # a grader bug must not cost the other students their grades
                message = f"internal grader error: {type(error).__name__}: {error}"
                result = StudentResult.without_grading(folder.name, Status.ERROR, message, settings.exercise.max_score)
                digest = None  # never cache a grader failure
            if digest is not None:
                record = {"fingerprint": fingerprint, "notebook_sha256": digest, "result": result.to_json()}
                write_atomic(state_dir / f"{folder.name}.json", json.dumps(record, indent=1))
            return result
        finally:
            slots.put(slot)

    bar = tqdm(
        total=len(folders), initial=len(results), unit="student", desc="grading", disable=not progress, file=sys.stderr
    )
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, folder) for folder in todo]
        for future in as_completed(futures):
            result = future.result()
            results[result.student_id] = result
            bar.update(1)
    bar.close()
    return [results[folder.name] for folder in folders]


def default_workers() -> int:
    """The number of cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
