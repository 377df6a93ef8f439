"""Grade a whole class in parallel, resumable after a crash of the grader.

Each student's result is written to ``OUT/.state/<hash of the student id>.json`` (atomically) as soon as it is
known. A later run reuses it when neither the notebook nor the grading (test cases, runner)
changed, unless ``force`` is given; so a grader killed in the middle of a batch finishes the rest
when run again, and the results equal those of an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import stat
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm

from ..files import DiskFull, source_digest, write_atomic
from ..sandbox import MachineOverloaded, Sandbox
from .exercise import Exercise
from .model import SCHEMA_VERSION, Status, StudentResult
from .notebook import FileId, SubmissionProblem, read_notebook
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
    digest.update(repr((settings.timeout, sorted(settings.skip_ids), settings.max_notebook_bytes)).encode())
    # a new course secret draws new instances: the cache must not keep the old ones' results
    digest.update(hmac.new(settings.draw_key, b"fingerprint", "sha256").digest())
    return digest.hexdigest()


def student_folders(submitted: Path) -> list[str]:
    """The name of every student entry under ``submitted``: folders, and links (graded as errors).

    Hidden entries and stray regular files are not students.
    """
    with os.scandir(submitted) as entries:
        return sorted(
            entry.name for entry in entries
            if not entry.name.startswith(".") and (entry.is_symlink() or entry.is_dir(follow_symlinks=False))
        )


def state_name(student_id: str) -> str:
    """The resume cache's file name for a student: a hash, whatever the folder's name (length, bytes)."""
    return hashlib.sha256(os.fsencode(student_id)).hexdigest() + ".json"


def _shared_files(submitted: Path, students: list[str], exercise: Exercise) -> dict[FileId, list[str]]:
    """Notebooks that are one file (hard links) in more than one student's folder."""
    owners: dict[FileId, list[str]] = {}
    for student in students:
        try:
            info = os.stat(submitted / student / exercise.assignment / exercise.notebook, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            owners.setdefault((info.st_dev, info.st_ino), []).append(student)
    return {file_id: names for file_id, names in owners.items() if len(names) > 1}


def _load_state(path: Path, fingerprint: str, digest: str) -> StudentResult | None:
    """The saved result if it was graded the same way from the same notebook, else None."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["fingerprint"] != fingerprint or saved["notebook_sha256"] != digest:
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
    regrade: frozenset[str] = frozenset(),
) -> list[StudentResult]:
    """Grade every student folder under ``submitted``; return the results in student order.

    Results already in ``out/.state`` are reused unless ``force``, the student is in ``regrade``,
    or the notebook or the grading changed. Each new result is saved as soon as it is known.

    Raises
    ------
    DiskFull
        When the grader's own disk fills up: the results saved so far are kept for the next run.
    """
    exercise = settings.exercise
    state_dir = out / STATE
    state_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = grading_fingerprint(settings)
    students = student_folders(submitted)
    shared = _shared_files(submitted, students, exercise)
    slots: queue.Queue[int] = queue.Queue()
    for slot in range(workers):
        slots.put(slot)

    def ungraded(student: str, status: Status, message: str) -> StudentResult:
        return StudentResult.without_grading(student, status, message, exercise.max_score)

    def work(student: str) -> StudentResult:
        try:
            file = read_notebook(
                submitted, student, exercise.assignment, exercise.notebook, max_bytes=settings.max_notebook_bytes,
                course_files=settings.course_files,
            )
        except SubmissionProblem as problem:
            return ungraded(student, problem.status, problem.message)
        others = [other for other in shared.get(file.file_id, []) if other != student]
        if others:
            message = f"{file.name} is the same file as the notebook of {', '.join(others)} (a hard link)"
            return ungraded(student, Status.ERROR, message)
        state = state_dir / state_name(student)
        saved = None if force or student in regrade else _load_state(state, fingerprint, file.sha256)
        if saved is not None:
            return saved
        slot = slots.get()
        try:
            result = grade_submission(student, file, submitted, settings, sandbox, slot)
        except MachineOverloaded as overloaded:  # ungraded, not saved: the next run grades them
            return ungraded(student, Status.NOT_GRADED, str(overloaded))
        except Exception as error:  # a grader bug must not cost the other students their grades
            return ungraded(student, Status.ERROR, f"internal grader error: {type(error).__name__}: {error}")
        finally:
            slots.put(slot)
        record = {"fingerprint": fingerprint, "notebook_sha256": file.sha256, "result": result.to_json()}
        write_atomic(state, json.dumps(record, indent=1))
        return result

    results: dict[str, StudentResult] = {}
    bar = tqdm(total=len(students), unit="student", desc="grading", disable=not progress, file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, student) for student in students]
        try:
            for future in as_completed(futures):
                result = future.result()
                results[result.student_id] = result
                bar.update(1)
        except DiskFull:
            for future in futures:
                future.cancel()
            raise
        finally:
            bar.close()
    return [results[student] for student in students]


def default_workers() -> int:
    """The number of cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
