"""Grade a whole class in parallel, resumable after a crash of the grader.

Each student's result is written to ``OUT/.state/<hash of the student id>.json`` (atomically) as soon as it is
known. A later run reuses it when neither the notebook nor the grading (test cases, runner)
changed, unless ``force`` is given; so a grader killed in the middle of a batch finishes the rest
when run again, and the results equal those of an uninterrupted run.

Where the submissions are graded is an :class:`Executor`'s choice: threads of this process
(:class:`ThreadedExecutor`, the default) or workers on other machines (``autograder.distributed``).
This process stays the coordinator: it reads every notebook, draws each submission's seed from the
course's secret, keeps the resume cache and returns the results; the executor grades :class:`Job` s.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tqdm import tqdm

from ..files import source_digest, write_atomic
from ..sandbox import MachineOverloaded, Sandbox
from .definition.answered import answers_current
from .definition.exercise import Exercise
from .model import SCHEMA_VERSION, Status, StudentResult
from .reading.folder_bounds import check_folder
from .reading.notebook import FileId, NotebookFile, SubmissionProblem, read_notebook
from .reading.student_ids import check_ids, name_problem
from .store import ResultStore
from .submission import GradingSettings, grade_submission, submission_seed

STATE = ".state"
#: The grader's code, the engine and the sandbox: a change to any of their files may change results
#: (the exercise's own code and the reference it calls are the exercise's :attr:`~.Exercise.fingerprint`).
GRADER = (Path(__file__).resolve().parent, Path(__file__).resolve().parents[1] / "sandbox")


def grading_fingerprint(settings: GradingSettings) -> str:
    """Changes whenever a re-run could give other results for an unchanged notebook."""
    exercise = settings.exercise
    digest = hashlib.sha256("".join(source_digest(folder) for folder in GRADER).encode())
    cases = [(g.grade_id, g.points, [(c, exercise.expected(c)) for c in g.cases]) for g in exercise.groups]
    digest.update(repr((SCHEMA_VERSION, cases, exercise.probes, exercise.fingerprint)).encode())
    digest.update(repr((settings.timeout, sorted(settings.skip_ids), settings.max_notebook_bytes)).encode())
    # a new release (another salt) gives the answered part other values to mark against
    digest.update(repr((settings.published, [(g.grade_id, g.points) for g in exercise.graded_groups])).encode())
    # crediting follow-through on another student's variant changes points (the class itself: answers_current)
    digest.update(repr(settings.classmates.credit_copied).encode())
    # a raised memory limit must re-grade the students who ran out of it
    digest.update(repr(settings.sandbox_limits).encode())
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


#: The message of a student the course expects who has no folder at all (status ``missing``, 0 points).
NOT_SUBMITTED = "no submission collected (on the course's roster)"


def not_submitted(folders: Sequence[str], expected: frozenset[str]) -> list[str]:
    """The students of ``expected`` (the gradebook's roster) without a folder in ``folders``, in order.

    The roster is input like any other (imported from elsewhere): an id the student-id rule refuses
    (:func:`.reading.student_ids.name_problem`: a path, a newline, a formula) is no file name or row of an output.
    """
    return sorted(student for student in expected - set(folders) if name_problem(student) is None)


def never_submitted(student: StudentResult) -> bool:
    """Whether ``student`` is one of :func:`not_submitted`: counted apart from a folder without a notebook."""
    return student.status is Status.MISSING and student.message == NOT_SUBMITTED


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


def class_digest(settings: GradingSettings) -> str:
    """Changes whenever the class whose variants the answered part checks answers against changes."""
    return hashlib.sha256("\n".join(sorted(settings.classmates.ids)).encode()).hexdigest()


def _save_state(path: Path, fingerprint: str, digest: str, classes: str, result: StudentResult) -> None:
    """Keep ``result`` for the next run (see :func:`_load_state`)."""
    record = {"fingerprint": fingerprint, "notebook_sha256": digest, "classmates": classes, "result": result.to_json()}
    # compact, so that json uses its C encoder (with an indent: its Python one, many times slower)
    write_atomic(path, json.dumps(record, separators=(",", ":")))


def _load_state(path: Path, fingerprint: str, digest: str) -> tuple[StudentResult, str] | None:
    """The saved result and the class it was marked in if it was graded the same way from the same notebook."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["fingerprint"] != fingerprint or saved["notebook_sha256"] != digest:
            return None
        return StudentResult.from_json(saved["result"]), str(saved["classmates"])
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or from another version: grade again
        return None


def _reused(path: Path, file: NotebookFile, settings: GradingSettings, fingerprint: str, classes: str,
            ) -> StudentResult | None:
    """The saved result of ``file`` when it holds for this run: graded the same way, its answers marked alike."""
    saved = _load_state(path, fingerprint, file.sha256)
    if saved is None or saved[1] == classes:
        return None if saved is None else saved[0]
    # marked in another class (a classmate joined): reused while its answers fit the same classmate's list,
    # and saved as of this class (checked once, not on every run)
    result = saved[0]
    if not answers_current(result, file, settings.exercise.answered, dict(settings.published), settings.classmates):
        return None
    _save_state(path, fingerprint, file.sha256, classes, result)
    return result


@dataclass(frozen=True)
class Job:
    """One submission to grade: all a grading process needs, of the course's secret only the derived seed."""

    student_id: str
    file: NotebookFile
    #: The seed of this submission's fresh instances (:func:`.definition.draws.draw_seed`), drawn by the coordinator.
    seed: bytes = field(repr=False)


@dataclass(frozen=True)
class Graded:
    """A result, with the job it was graded from when it belongs in the resume cache."""

    result: StudentResult
    #: None: reused from the cache, refused unread, or not graded (overloaded, a grader error): not saved.
    job: Job | None = None


class Executor(Protocol):
    """Where the submissions are graded: threads here (:class:`ThreadedExecutor`) or workers elsewhere.

    The coordinator alone reads the submissions, keeps the resume cache and writes every output;
    an executor only turns jobs into results, in any order.
    """

    def run(
        self, students: Sequence[str], prepare: Callable[[str], StudentResult | Job], settings: GradingSettings,
        submitted: Path,
    ) -> Iterator[Graded]:
        """Call ``prepare`` for each student; grade each :class:`Job` it returns; yield every result once."""
        ...


def grade_job(job: Job, settings: GradingSettings, submitted: Path, sandbox: Sandbox, slot: int) -> Graded:
    """Grade one job in ``sandbox``; whatever happens, a result (the same wherever it runs)."""

    def ungraded(status: Status, message: str) -> Graded:
        return Graded(StudentResult.without_grading(job.student_id, status, message, settings.exercise.max_score))

    try:
        result = grade_submission(job.student_id, job.file, submitted, settings, sandbox, slot, seed=job.seed)
    except MachineOverloaded as overloaded:  # ungraded, not saved: the next run grades them
        return ungraded(Status.NOT_GRADED, str(overloaded))
    except Exception as error:  # a grader bug must not cost the other students their grades
        return ungraded(Status.ERROR, f"internal grader error: {type(error).__name__}: {error}")
    return Graded(result, job)


@dataclass
class ThreadedExecutor:
    """Grade in this process: ``workers`` threads, each with a slot of its own (a sandbox user id)."""

    sandbox: Sandbox
    workers: int

    def run(
        self, students: Sequence[str], prepare: Callable[[str], StudentResult | Job], settings: GradingSettings,
        submitted: Path,
    ) -> Iterator[Graded]:
        """See :meth:`Executor.run`; notebooks are read in the worker threads too."""
        slots: queue.Queue[int] = queue.Queue()
        for slot in range(self.workers):
            slots.put(slot)

        def work(student: str) -> Graded:
            prepared = prepare(student)
            if isinstance(prepared, StudentResult):
                return Graded(prepared)
            slot = slots.get()
            try:
                return grade_job(prepared, settings, submitted, self.sandbox, slot)
            finally:
                slots.put(slot)

        with ThreadPoolExecutor(max_workers=max(1, self.workers)) as pool:
            futures = [pool.submit(work, student) for student in students]
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:  # stopped early (the disk is full): no new student starts
                for future in futures:
                    future.cancel()


def _read_submission(
    submitted: Path, student: str, settings: GradingSettings, shared: dict[FileId, list[str]]
) -> NotebookFile | StudentResult:
    """The student's notebook as read once, or their result when it cannot be graded (the message says why)."""
    exercise = settings.exercise
    try:
        # before anything lists the folder, as nbgrader's path does before it copies it (.course.converters)
        check_folder(submitted / student / exercise.assignment, max_files=settings.max_folder_files,
                     max_bytes=settings.max_folder_bytes, notebook=exercise.notebook)
        file = read_notebook(
            submitted, student, exercise.assignment, exercise.notebook, max_bytes=settings.max_notebook_bytes,
            course_files=settings.course_files,
        )
    except SubmissionProblem as problem:
        return StudentResult.without_grading(student, problem.status, problem.message, exercise.max_score)
    others = [other for other in shared.get(file.file_id, []) if other != student]
    if others:
        message = f"{file.name} is the same file as the notebook of {', '.join(others)} (a hard link)"
        return StudentResult.without_grading(student, Status.ERROR, message, exercise.max_score)
    return file


def _listed_order(folders: list[str], refused: dict[str, str], absent: list[str]) -> list[str]:
    """The ids in the outputs' order: by folder name (a refused one under its escaped name), the absent among them."""
    places = sorted([*((folder, refused.get(folder, folder)) for folder in folders),
                     *((student, student) for student in absent)])
    return [shown for _, shown in places]


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
    executor: Executor | None = None,
    roster: frozenset[str] = frozenset(),
    expected: frozenset[str] = frozenset(),
) -> ResultStore:
    """Grade every student folder under ``submitted``; return the results in student order.

    The results go to a :class:`.ResultStore` (a temporary file in ``out/.state``) as they arrive,
    so this process holds one student's record at a time, whatever the class's size.

    Results already in ``out/.state`` are reused unless ``force``, the student is in ``regrade``,
    or the notebook or the grading changed. Each new result is saved as soon as it is known.
    ``executor`` grades the submissions (default: ``workers`` threads of this process in ``sandbox``);
    whichever it is, this process alone reads the notebooks and saves the results.
    A folder whose name is no valid student id (:mod:`.reading.student_ids`, with ``roster``: the ids the
    gradebook holds) is not read: its result is :attr:`Status.REFUSED` under its name escaped.
    A student of ``expected`` (the course's roster) without a folder is :attr:`Status.MISSING` with
    0 points and the message :data:`NOT_SUBMITTED`, so that every output lists the whole roster.

    Raises
    ------
    DiskFull
        When the grader's own disk fills up: the results saved so far are kept for the next run.
    """
    exercise = settings.exercise
    state_dir = out / STATE
    state_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = grading_fingerprint(settings)
    classes = class_digest(settings)
    folders = student_folders(submitted)
    ids = check_ids(folders, roster)
    students = list(ids.accepted)
    shared = _shared_files(submitted, students, exercise)

    def ungraded(student: str, status: Status, message: str) -> StudentResult:
        return StudentResult.without_grading(student, status, message, exercise.max_score)

    def prepare(student: str) -> StudentResult | Job:
        try:
            return read_job(student)
        except Exception as error:  # a grader bug on one notebook must not stop the batch (its thread re-raises)
            return ungraded(student, Status.ERROR, f"internal grader error: {type(error).__name__}: {error}")

    def read_job(student: str) -> StudentResult | Job:
        file = _read_submission(submitted, student, settings, shared)
        if isinstance(file, StudentResult):
            return file
        saved = None if force or student in regrade else _reused(state_dir / state_name(student), file, settings,
                                                                  fingerprint, classes)
        if saved is not None:
            return saved
        return Job(student, file, submission_seed(student, file, settings))

    results = ResultStore(state_dir)
    absent = not_submitted(folders, expected)
    # a refused folder under the escaped name: no output ever holds the folder's own; an absent student
    # has nothing to read or save: listed with 0, as nbgrader's export lists them
    for result in [*(ungraded(no.shown, Status.REFUSED, f"not graded: {no.reason}") for no in ids.refused),
                   *(ungraded(student, Status.MISSING, NOT_SUBMITTED) for student in absent)]:
        results.put(result)
    bar = tqdm(total=len(students), unit="student", desc="grading", disable=not progress, file=sys.stderr)
    graded = (executor or ThreadedExecutor(sandbox, workers)).run(students, prepare, settings, submitted)
    try:
        for item in graded:
            if item.job is not None:  # saved here, by the coordinator only, as soon as it is known
                _save_state(state_dir / state_name(item.result.student_id), fingerprint, item.job.file.sha256,
                            classes, item.result)
            results.put(item.result)
            bar.update(1)
    except BaseException:
        results.close()
        raise
    finally:
        close = getattr(graded, "close", None)
        if close is not None:
            close()
        bar.close()
    refused = {folder: refusal.shown for folder, refusal in ids.refused_folders().items()}
    results.order(_listed_order(folders, refused, absent))
    return results


def default_workers() -> int:
    """The number of cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
