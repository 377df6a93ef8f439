"""The one grading pipeline: grade a folder of submissions into results, feedback, report, gradebook.

:func:`grade_course` is what the command line (``python -m autograder grade``), the demo, the
benchmarks and the tests call; there is no other way into grading.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from .course.autograde.autograded import write_autograded
from .course.autograde.submission_folder import Collected, read_collected, require_submissions, shipped_files
from .course.classmates import course_classmates
from .course.materials.nbgrader_commands import release_notebook
from .course.notebook_cells.generated_cells import skipped_cell_ids
from .course.setup.course_root import find_root
from .course.setup.lock import grading_lock
from .course.setup.privacy import check_course_folder
from .course.setup.roster import course_roster
from .course.setup.secret import course_secret
from .distributed.local import PROCESS_CLASS, ProcessExecutor
from .errors import CourseError, GradebookError, UsageError
from .files import write_changed
from .gradebook.update import update_gradebook
from .grading import (
    BatchResult,
    Exercise,
    GradingSettings,
    GroupInfo,
    Status,
    StudentResult,
    default_workers,
    grade_batch,
)
from .grading.batch import Executor, never_submitted, not_submitted, student_folders
from .grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from .grading.reading.notebook import DEFAULT_MAX_NOTEBOOK_BYTES, file_ids, release_code, release_sources
from .grading.store import ResultStore
from .grading.submission import DEFAULT_TIMEOUT
from .output.copying_notes import copying_note
from .output.feedback import write_feedback
from .output.report import write_report
from .output.results import results_assignment, run_summary, write_results
from .output.safe_text import printable
from .sandbox import RUNS_AS_ROOT_WARNING, WEAK_ISOLATION_WARNING, Limits, Sandbox, checked_limits, choose_sandbox

#: The steps after grading write each student's files in this many threads (they mostly wait for the disk).
FILE_THREADS = 4


@dataclass(frozen=True)
class GradeOptions:
    """How to grade a batch (the options of ``python -m autograder grade``)."""

    exercise: Exercise
    #: nbgrader's layout: ``submitted/<student_id>/<assignment>/<notebook>``.
    submitted: Path = Path("submitted")
    out: Path = Path("graded")
    workers: int = field(default_factory=default_workers)
    #: Seconds each code cell and each test call may take.
    timeout: float = DEFAULT_TIMEOUT
    #: Re-grade students whose results an earlier run saved.
    force: bool = False
    #: ``auto``, ``required`` or ``none`` (see :func:`autograder.sandbox.choose_sandbox`).
    sandbox: str = "auto"
    #: nbgrader gradebook URL; None for the course's (``c.CourseDirectory.db_url``); ``"none"`` to skip.
    gradebook: str | None = None
    progress: bool = True
    #: The course directory (``nbgrader_config.py``, ``release/``); None: found from the working directory.
    course_root: Path | None = None
    #: Notebooks larger than this are refused unread.
    max_notebook_mb: float = DEFAULT_MAX_NOTEBOOK_BYTES / 1024**2
    #: A submission folder with more entries (files, folders, links), or more MiB of files, is refused unlisted.
    max_folder_files: int = DEFAULT_MAX_FOLDER_FILES
    max_folder_mb: float = DEFAULT_MAX_FOLDER_BYTES / 1024**2
    #: Grade in a course folder other accounts can read, with a warning (None: the course's
    #: ``c.CoursePrivacy.allow_readable_course``; :mod:`autograder.course.setup.privacy`).
    allow_readable_course: bool | None = None
    #: Show the parts of the exercise's definition marked as the solution in the feedback pages
    #: (off by default: a tutor turns it on after the deadline).
    show_solution: bool = False
    #: Re-grade just these students (their saved results are not reused); the others as usual.
    students: tuple[str, ...] = ()
    #: Wait for another grader of the course to finish instead of refusing (:mod:`.course.setup.lock`).
    wait: bool = False
    #: Grade on the Dask scheduler at this address (``tls://host:8786``) instead of in this process.
    scheduler: str | None = None
    #: Grade on a local Dask cluster of this many worker processes (0: threads of this process).
    processes: int = 0
    #: The sandbox's resource limits (``--memory`` and the like); None: the exercise's.
    limits: Limits | None = None
    #: From this many students on, ``workers`` > 1 are processes, not threads (:mod:`.distributed.local`).
    process_class: int = PROCESS_CLASS
    #: Give Task 1.2's follow-through point to answers that fit another student's list (the course's
    #: ``c.SandboxedExecute.credit_copied_follow_through``; off: withheld, and every output says so).
    credit_copied_follow_through: bool = False

    def __post_init__(self) -> None:
        # limits built in code are held to the command line's ranges, not only the ones parsed from it
        if self.limits is not None:
            checked_limits(self.limits, "GradeOptions.limits")


@dataclass(frozen=True)
class GradeRun:
    """What a grading run did."""

    batch: BatchResult
    out: Path
    #: One line on the gradebook: recorded, skipped, or why it was not updated.
    gradebook_note: str
    gradebook_failed: bool
    #: How it graded: the isolation and where the limits hold (:attr:`autograder.sandbox.Sandbox.mode`).
    sandbox_mode: str = ""
    #: Students of the gradebook's roster with no submission (listed as ``missing``, counted apart).
    not_submitted: int = 0
    #: Graded students whose id the gradebook's roster (when it has one) does not hold, in order.
    not_on_roster: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 even when students failed (that is a result); 1 when the gradebook could not be updated."""
        return GradebookError.exit_code if self.gradebook_failed else 0

    def summary(self, *, table: bool = True) -> str:
        """What the run prints on the terminal: the table of students (if ``table``), counts, outputs."""
        summary = run_summary(self.batch, self.out, self.gradebook_note, table=table,
                              sandbox=self.sandbox_mode or None, not_submitted=self.not_submitted,
                              not_on_roster=self.not_on_roster)
        return f"{summary}\n{copying_note(self.out)}"


def _check(options: GradeOptions) -> None:
    if options.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {options.workers}")
    if options.scheduler and options.processes:
        raise UsageError(
            "--scheduler and --dask-processes exclude each other (a cluster elsewhere, or one started here)"
        )
    if options.processes < 0:
        raise UsageError(f"--dask-processes must be at least 1, got {options.processes}")
    if not options.timeout > 0:
        raise UsageError(f"--timeout must be positive, got {options.timeout:g}")
    if not options.max_notebook_mb > 0:
        raise UsageError(f"--max-notebook-mb must be positive, got {options.max_notebook_mb:g}")
    if options.max_folder_files < 1 or not options.max_folder_mb > 0:
        raise UsageError(f"--max-folder-files and --max-folder-mb must be positive, got {options.max_folder_files} "
                         f"and {options.max_folder_mb:g}")
    require_submissions(options.submitted, options.exercise.assignment, options.exercise.notebook)
    earlier = results_assignment(options.out)
    if earlier is not None and earlier != options.exercise.assignment:  # results.json, grades.csv, report: one's
        raise UsageError(f"{options.out} holds the results of {printable(earlier)}; grade "
                         f"{options.exercise.assignment} into a folder of its own: --out "
                         f"{options.out.parent / (options.out.name + '-' + options.exercise.assignment)}")
    unknown = sorted(set(options.students) - set(student_folders(options.submitted)))
    if unknown:
        raise UsageError(f"--student {printable(unknown[0])}: no such folder in {options.submitted} (the student ids "
                         "are the folder names there)")


def _course_root(options: GradeOptions) -> Path | None:
    if options.course_root is not None:
        return options.course_root
    try:
        return find_root()
    except CourseError:
        return None


def _collected_files(options: GradeOptions, store: ResultStore, root: Path | None) -> dict[str, Collected]:
    """What ``nbgrader collect`` left beside each student's notebook; its problems become the student's warnings."""
    assignment = options.exercise.assignment
    shipped = shipped_files(root, assignment) if root is not None else frozenset()
    collected = {}
    for student in store:
        if student.status is Status.REFUSED or never_submitted(student):
            continue  # no folder of that name: its id is the folder's name escaped, or it never came in
        keep = shipped | {options.exercise.notebook, *([student.notebook] if student.notebook else [])}
        found = read_collected(options.submitted, student.student_id, assignment, keep,
                               notebook=options.exercise.notebook, max_files=options.max_folder_files,
                               graded=Path(student.notebook).name if student.notebook else None,
                               max_bytes=int(options.max_folder_mb * 1024**2))
        if found.warnings:  # a record read from the store is a copy: put back what changed
            student.warnings.extend(found.warnings)
            store.put(student)
        collected[student.student_id] = found
    return collected


def _course_feedback(root: Path, exercise: Exercise, student: str, page: Path, files: dict[str, bytes]) -> None:
    """A copy of the page where ``nbgrader release_feedback`` takes it from, with the files it needs beside it."""
    folder = root / "feedback" / student / exercise.assignment
    # unchanged files are left alone: a re-run touches only the students whose page changed
    write_changed(folder / page.name, page.read_text(encoding="utf-8"))
    for name, data in files.items():
        write_changed(folder / name, data.decode("utf-8", "replace"))


def grade_course(options: GradeOptions) -> GradeRun:
    """Grade every submission in its own sandbox; write results, feedback, report and gradebook scores.

    Parameters
    ----------
    options : GradeOptions

    Returns
    -------
    GradeRun
        The batch's results and what happened to the gradebook.

    Raises
    ------
    UsageError
        For options that cannot be used (nothing is written then).
    SandboxUnavailable
        With ``sandbox="required"`` where bubblewrap does not work; with ``"auto"`` as root where
        neither bubblewrap nor an unprivileged Python works.
    CourseBusy
        When another grader works on the course and ``options.wait`` is false.
    CourseError
        When other accounts can read the course folder and that is not allowed (:mod:`autograder.course.setup.privacy`).
    """
    _check(options)
    root = _course_root(options)
    if root is not None:
        check_course_folder(root, options.allow_readable_course)
    # one grader per course (its feedback/, autograded/, gradebook); outside a course, per --out
    with grading_lock(root if root is not None else options.out, who="python -m autograder grade", wait=options.wait):
        return _grade_course(options)


def grading_sandbox(options: GradeOptions) -> Sandbox:
    """The sandbox a run grades in: of the kind ``options.sandbox`` asks for, with ``options.limits`` or the exercise's.

    Parameters
    ----------
    options : GradeOptions

    Returns
    -------
    Sandbox
        Its :attr:`~autograder.sandbox.Sandbox.limits` are the ones every submission is given.

    Raises
    ------
    SandboxUnavailable
        See :func:`~autograder.sandbox.choose_sandbox`.
    """
    return choose_sandbox(options.sandbox, options.exercise.limits if options.limits is None else options.limits)


def _grade_course(options: GradeOptions) -> GradeRun:
    exercise = options.exercise
    root = _course_root(options)
    sandbox = grading_sandbox(options)
    if not sandbox.isolated:
        as_root, reason = sandbox.runs_as_root, sandbox.root_reason  # why an unprivileged user cannot run it here
        banner = WEAK_ISOLATION_WARNING + (f"\n{RUNS_AS_ROOT_WARNING}" if as_root else "") + (
            f" (Not as an unprivileged user: {reason}.)" if as_root and reason else ""
        )
        print("\n" + "!" * 78 + "\n" + banner + "\n" + "!" * 78 + "\n", file=sys.stderr)
    if sandbox.resource_warning:
        print(sandbox.resource_warning, file=sys.stderr)
    release = release_notebook(root, exercise.assignment, exercise.notebook) if root else None
    settings = GradingSettings(
        exercise, options.timeout, skip := skipped_cell_ids(exercise, release),
        # a notebook whose code is exactly the release's was not attempted
        release_cells=release_code(release, skip),
        max_notebook_bytes=int(options.max_notebook_mb * 1024**2),
        max_folder_files=options.max_folder_files, max_folder_bytes=int(options.max_folder_mb * 1024**2),
        # a submitted notebook that is one of these files (a hard link) is not the student's work
        course_files=file_ids([root / "source", root / "release"]) if root else frozenset(),
        # the key of the fresh hidden instances: the course's secret (outside a course: beside submitted/)
        draw_key=course_secret(root if root is not None else options.submitted.resolve().parent),
        limits=sandbox.limits,  # a Dask worker chooses its sandbox with these (.distributed.worker)
        # the by-hand part's list comes from the release's derivation cell, whatever a submission's copy says
        published=release_sources(release, exercise.answered.published_ids) if exercise.answered else (),
    )
    # the gradebook's students: a look-alike folder of one of them is theirs, and one without a folder is listed
    roster = course_roster(root, options.gradebook)
    # every list the course gave out: answers that fit another's earn no follow-through (as on nbgrader's path)
    settings = replace(settings, classmates=course_classmates(
        options.submitted, roster, credit_copied=options.credit_copied_follow_through))
    try:
        with _executor(options, sandbox) as executor:
            store = grade_batch(
                options.submitted, options.out, settings, sandbox, workers=options.workers, force=options.force,
                progress=options.progress, regrade=frozenset(options.students), executor=executor,
                roster=roster, expected=roster,
            )
    finally:
        sandbox.close()  # its warm zygotes: a process that grades again (a test, a benchmark) starts new ones
    batch = BatchResult(
        assignment=exercise.assignment, notebook=exercise.notebook, title=exercise.title,
        max_score=exercise.max_score, sandbox=sandbox.name,
        groups=[GroupInfo(g.grade_id, g.description, g.points, g.visible) for g in exercise.graded_groups],
        students=store,
    )
    collected = _collected_files(options, store, root)
    files = {student: found.files for student, found in collected.items()}
    note, failed = _after_grading(options, root, batch, store, collected, files, settings.max_notebook_bytes)
    absent = len(not_submitted(student_folders(options.submitted), roster))
    # a roster names the class: an id outside it is a typo, or a submission made as another account (the
    # store's index of ids and statuses: no record read)
    statuses = zip(store.student_ids, store.statuses(), strict=True)
    graded = {student for student, status in statuses if status is not Status.REFUSED}
    unknown = tuple(sorted(graded - roster)) if roster else ()
    return GradeRun(batch, options.out, note, failed, sandbox.mode, absent, unknown)


def _after_grading(
    options: GradeOptions, root: Path | None, batch: BatchResult, store: ResultStore, collected: dict[str, Collected],
    files: dict[str, dict[str, bytes]], max_notebook_bytes: int,
) -> tuple[str, bool]:
    """The steps after grading, side by side: the gradebook's note and whether it failed.

    The autograded notebooks need nothing from the gradebook (their saved result leaves lateness
    and marks out): they are written while the gradebook is updated. Feedback pages, results and
    report show the gradebook's marks and lateness: they start once it is read back. Each step
    runs in threads of its own, the per-student files in :data:`FILE_THREADS` slices of the class:
    most of their time is waiting for the disk (every file is written with an ``fsync``), which
    threads do side by side.
    """
    exercise = options.exercise
    slices = [batch.students[k::FILE_THREADS] for k in range(FILE_THREADS)]
    with ThreadPoolExecutor(max_workers=2 * FILE_THREADS + 2, thread_name_prefix="outputs") as pool:
        steps: list[Future[object]] = []
        if root is not None:  # what nbgrader autograde leaves, for the formgrader
            # the results as graded, whatever the gradebook step below has set on the records by then
            # (its warnings, lateness and marks): the same files whichever thread is faster
            warned = {student.student_id: list(student.warnings) for student in batch.students if student.warnings}
            for part in slices:
                graded = (replace(student, warnings=warned.get(student.student_id, []), late=None, manual=None)
                          for student in part)
                steps.append(pool.submit(
                    write_autograded, root, options.submitted, exercise, batch, options.timeout, files,
                    max_notebook_bytes, show_solution=options.show_solution, students=graded,
                ))
        # the gradebook first: lateness and penalties come from it and show in every output below
        timestamps = {student: found.timestamp for student, found in collected.items() if found.timestamp is not None}
        note, failed = update_gradebook(root, options.gradebook, exercise, store, timestamps)
        steps += [pool.submit(_feedback_pages, options, root, batch, files, part) for part in slices]
        steps += [pool.submit(write_results, options.out, batch),
                  pool.submit(write_report, options.out, exercise, batch)]
        for step in steps:  # in order, so that a failure (a full disk) is raised as it would be alone
            step.result()
    return note, failed


def _feedback_pages(options: GradeOptions, root: Path | None, batch: BatchResult,
                    files: dict[str, dict[str, bytes]], students: Sequence[StudentResult] | None = None) -> None:
    """Each student's page (of ``students``, default all) in ``--out``, and a copy for ``nbgrader release_feedback``."""
    for student in batch.students if students is None else students:
        page = write_feedback(options.out, options.exercise, batch, student, show_solution=options.show_solution)
        if root is not None and student.status not in (Status.MISSING, Status.NOT_GRADED, Status.REFUSED):
            _course_feedback(root, options.exercise, student.student_id, options.out / page, files[student.student_id])


@contextmanager
def _executor(options: GradeOptions, sandbox: Sandbox) -> Iterator[Executor | None]:
    """Dask's workers when asked for (:mod:`.distributed`); worker processes of this machine for a large
    class (:mod:`.distributed.local`); else None: threads of this process."""
    if not options.scheduler and not options.processes:
        if options.workers > 1 and len(student_folders(options.submitted)) >= options.process_class:
            processes = ProcessExecutor(options.workers, options.sandbox, sandbox.name)
            yield processes
            # the same machine: only what this process did not say already
            for warning in set(processes.warnings) - {sandbox.resource_warning}:
                print(f"a worker process: {warning}", file=sys.stderr)
        else:
            yield None
        return
    from .distributed import dask_executor

    with dask_executor(options.scheduler, options.processes, options.sandbox, sandbox.name) as executor:
        yield executor
        for warning in executor.warnings:  # what a worker's sandbox lacks (cgroups), once each
            print(f"a Dask worker: {warning}", file=sys.stderr)
