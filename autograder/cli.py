"""Command line of the grading package: ``python -m autograder --help``.

Errors the user can fix (:class:`~autograder.errors.KitError`, an unusable sandbox) are one line
on stderr with their class's exit code; anything else is a grader bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

# Only what the parser needs is imported here: the commands' modules load nbgrader, numpy and matplotlib
# (seconds), after the arguments are read and, for `grade`, after a busy course was refused.
from .byhand.commands import add_byhand_parsers, copying_command, variants_command
from .course.setup.course_root import find_root
from .course.setup.lock import refuse_if_held
from .course.setup.privacy import ALLOW_OPTION
from .distributed.local import PROCESS_CLASS
from .errors import CourseError, KitError
from .files import write_atomic
from .grading import default_workers
from .grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from .grading.reading.notebook import DEFAULT_MAX_NOTEBOOK_BYTES
from .grading.submission import DEFAULT_TIMEOUT
from .sandbox import Limits
from .sandbox.isolation.choice import MODES
from .sandbox.runs.deadline import DEFAULT_BUDGET_TEXT

if TYPE_CHECKING:
    from .pipeline import GradeOptions

DEFAULT_OUT = "graded"


def _add_grade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--submitted", type=Path, default=Path("submitted"),
                        help="folder in nbgrader's layout SUBMITTED/<student_id>/<assignment>/<notebook> "
                        "(default: submitted)")
    parser.add_argument("--out", type=Path, default=Path(DEFAULT_OUT),
                        help=f"where results.json, grades.csv and feedback/<student_id>/ go (default: {DEFAULT_OUT})")
    parser.add_argument("--assignment", default=None,
                        help="assignment id (default: the first registered exercise, ndcg)")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help=f"submissions graded at once, in threads; from {PROCESS_CLASS} students on, in worker "
                        "processes forked from this one (default: the number of cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="grade on the workers of this Dask scheduler (tls://host:8786 or tcp://host:8786); this "
                        "process reads the submissions and alone writes the outputs and the gradebook "
                        "(pip install '.[distributed]')")
    parser.add_argument("--dask-processes", "--processes", dest="processes", type=int, default=0, metavar="N",
                        help="grade on a local Dask cluster of N worker processes, one submission each at a time "
                        "(default: this machine's threads or worker processes, see --workers; --processes is "
                        "its old name, kept for a while)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds each code cell and each test call may take (default: the course's "
                        f"c.SandboxedExecute.timeout, else {DEFAULT_TIMEOUT:g}); "
                        "a submission takes at most --budget seconds in all")
    parser.add_argument("--force", action="store_true", help="re-grade students already graded by an earlier run")
    parser.add_argument("--student", action="append", default=[], metavar="ID",
                        help="re-grade this student even if an earlier run graded them (repeatable); the others' "
                        "saved results are reused, and the outputs still cover the whole class")
    parser.add_argument("--wait", action="store_true",
                        help="if another grader is working on this course, wait for it to finish (default: refuse)")
    parser.add_argument("--sandbox", choices=MODES, default=None,
                        help="auto: bubblewrap if it works here, else resource limits only with a warning (as root "
                        "as an unprivileged user, or refuse); required: refuse to grade without bubblewrap; none: "
                        "resource limits only, no isolation, asked for explicitly (as root: as root if "
                        "privileges cannot be dropped) (default: the course's c.SandboxedExecute.sandbox, else "
                        "auto)")
    parser.add_argument("--gradebook", default=None,
                        help="nbgrader gradebook URL to record scores in (default: the course's "
                        "c.CourseDirectory.db_url, <course>/gradebook.db; 'none' to skip)")
    parser.add_argument("--max-notebook-mb", type=float, default=None,
                        help="refuse (status error) notebooks larger than this, unread (default: the course's "
                        f"c.SandboxedExecute.max_notebook_mb, else {DEFAULT_MAX_NOTEBOOK_BYTES / 1024**2:g})")
    parser.add_argument("--max-folder-files", type=int, default=None,
                        help="refuse (status error) a submission folder holding more files and folders than this, "
                        "before it is listed (default: the course's c.SandboxedExecute.max_folder_files, else "
                        f"{DEFAULT_MAX_FOLDER_FILES})")
    parser.add_argument("--max-folder-mb", type=float, default=None,
                        help="refuse (status error) a submission folder whose files hold more MiB than this "
                        f"(default: the course's c.SandboxedExecute.max_folder_mb, else "
                        f"{DEFAULT_MAX_FOLDER_BYTES / 1024**2:g})")
    parser.add_argument("--show-solution", action="store_true",
                        help="show the solution (the definition's Python one-liner) in the feedback pages; "
                        "for after the deadline (default: the definition without code)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    _add_limit_arguments(parser)


#: The sandbox limits ``grade`` may set over the exercise's: option to setting (:data:`SETTINGS`).
LIMIT_OPTIONS = {"--memory": "memory_mb", "--cpu-seconds": "cpu_seconds", "--max-processes": "processes",
                 "--scratch": "scratch_mb", "--budget": "budget_seconds"}


def _add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The sandbox's limits; read as text, so that a bad value is refused in one line (:func:`grade_options`)."""
    limits = parser.add_argument_group(
        "sandbox limits (default: the course's c.SandboxedExecute.<setting>, else the exercise's; docs/security.md)"
    )
    limits.add_argument("--memory", metavar="MB", help="memory of each submission's sandbox, all its processes, in MiB "
                        f"(default: {Limits().memory_bytes // 1024**2})")
    limits.add_argument("--cpu-seconds", metavar="S", help="CPU seconds each process of a sandbox may use "
                        f"(default: {Limits().cpu_seconds})")
    limits.add_argument("--max-processes", metavar="N", help="processes and threads of a sandbox "
                        f"(default: {Limits().processes})")
    limits.add_argument("--scratch", metavar="MB", help="size in MiB of a sandbox's writable home and /tmp "
                        f"(default: {Limits().scratch_bytes // 1024**2})")
    limits.add_argument("--budget", metavar="S", help="seconds one submission's grading may take in all, every run "
                        "and restart together; beyond it every code test scores 0 "
                        f"(default: {DEFAULT_BUDGET_TEXT}, timeout being --timeout)")


def _add_privacy_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(ALLOW_OPTION, dest="allow_readable_course", action="store_const", const=True, default=None,
                         help="go on, with a warning, in a course folder other accounts of this machine can read "
                         "(default: refuse, unless the course sets c.CoursePrivacy.allow_readable_course)")


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m autograder``."""
    main_parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grading tools of the DCG/nDCG course. Run from the course directory.",
        epilog="example: python -m autograder grade --submitted submitted --out graded",
    )
    commands = main_parser.add_subparsers(dest="command", required=True)
    sync = commands.add_parser(
        "sync", help="rewrite each exercise's generated cells in its source notebook from the exercise (its cases)"
    )
    release = commands.add_parser(
        "release", help="sync, regenerate release/ (nbgrader generate_assignment) of each exercise and the "
        "walkthroughs' student copies", epilog="example: python -m autograder release --assignment ndcg",
    )
    for command in (sync, release):
        _add_privacy_argument(command)
        command.add_argument("--assignment", action="append", default=[], metavar="ID",
                             help="only this exercise (repeat for more; default: every exercise the course grades)")
    grade = commands.add_parser(
        "grade",
        help="grade every submission in a sandbox: results.json, grades.csv, feedback, report, gradebook",
        description="Grade every submission in its own sandbox and write results.json, grades.csv,\n"
        "one feedback page per student, the class report and the scores in the nbgrader gradebook.",
        epilog="examples: python -m autograder grade --submitted submitted --out graded --workers 4\n"
        "          python -m autograder grade --student alice --student bob   (re-grade just these two)\n"
        "exit codes: 0 graded (whatever the students did), 1 the gradebook was not updated (results on disk), "
        "2 the grader could not run, 3 another grader is working on this course",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_grade_arguments(grade)
    _add_privacy_argument(grade)
    add_byhand_parsers(commands)  # variants, copying: the by-hand feature's commands
    offering = commands.add_parser(
        "new-offering", help="a new offering of the course: its own course id, Task 1.2 salt and grading secret "
        "(refused once anything is handed in)", epilog="example: python -m autograder new-offering ir-ws2027",
    )
    offering.add_argument("course_id", help="the offering's course id (letters, digits, '.', '_', '-')")
    commands.add_parser("docs", help="regenerate docs/misconceptions.md from the misconception catalogue")
    commands.add_parser("demo", help="regenerate the release and grade the bundled example submissions")
    student_config = commands.add_parser(
        "student-config",
        help="print the students' ~/.jupyter/nbgrader_config.py (the course id and the exchange of this course)",
    )
    student_config.add_argument(
        "--hub", action="store_true",
        help="a JupyterHub's /etc/jupyter/nbgrader_config.py instead: the exchange, each course in its own folder, "
        "the courses from the hub's groups (JupyterHubAuthPlugin); no course id, so a student sees every course",
    )
    _add_hub_service_parser(commands)
    return main_parser


T = TypeVar("T")


def _given(flag: T | None, course: T) -> T:
    """A flag's value where the command line gave one, else the course's setting."""
    return course if flag is None else flag


def _add_hub_service_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    service = commands.add_parser(
        "hub-service",
        help="print the jupyterhub_config.py block for this course's formgrader as a JupyterHub service",
        description="Print the jupyterhub_config.py lines for this course: its formgrader as a hub service (as the\n"
        "grader account, in this folder, from this venv), the groups formgrade-COURSE and nbgrader-COURSE and\n"
        "their roles (docs/tutor-guide.md, \"On JupyterHub\").",
        epilog="example: python -m autograder hub-service --grader grader-ir --instructor ada --roster roster.csv",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service.add_argument("--grader", default=None, help="the account the service runs as (default: the course "
                         "folder's owner; never root)")
    service.add_argument("--port", type=int, default=9999, help="its port on 127.0.0.1, one per course (default: 9999)")
    service.add_argument("--instructor", action="append", default=[], metavar="USER",
                         help="a hub user who may open the formgrader (repeatable)")
    service.add_argument("--student", action="append", default=[], metavar="USER",
                         help="a hub user enrolled in the course (repeatable)")
    service.add_argument("--roster", type=Path, default=None,
                         help="enrol the ids of this CSV file (its id column, as for nbgrader db student import)")
    service.add_argument("--course-only", action="store_true",
                         help="leave out the hub-wide server role (for a second course on the same hub)")


def grade_options(args: argparse.Namespace) -> GradeOptions:
    """The pipeline's options from the parsed ``grade`` arguments.

    Every setting comes from the course's ``nbgrader_config.py`` (``c.SandboxedExecute.*``), and a flag
    overrides it for this run (:mod:`autograder.course.autograde.grade_settings`).

    Raises
    ------
    UsageError
        For a limit that is not a whole number in its range (one line naming the option or the setting).
    CourseError
        When the course's ``nbgrader_config.py`` does not load.
    """
    from .course.autograde.grade_settings import course_grade_settings
    from .course.materials.nbgrader_commands import ASSIGNMENT
    from .exercises import exercise_for
    from .pipeline import GradeOptions
    from .sandbox.resources.limits import configured_limits

    exercise = exercise_for(args.assignment or ASSIGNMENT)
    try:
        root: Path | None = find_root()
    except CourseError:  # outside a course: the settings' defaults
        root = None
    course = course_grade_settings(root)
    names = {setting: f"c.SandboxedExecute.{setting}" for setting in course.limits}
    limits = configured_limits(exercise.limits, course.limits, names)  # the course's, checked and named as written
    values = {setting: getattr(args, option[2:].replace("-", "_")) for option, setting in LIMIT_OPTIONS.items()}
    limits = configured_limits(limits, values, {setting: option for option, setting in LIMIT_OPTIONS.items()})
    return GradeOptions(
        exercise=exercise, submitted=args.submitted, out=args.out, workers=args.workers, limits=limits,
        timeout=_given(args.timeout, course.timeout), force=args.force, sandbox=_given(args.sandbox, course.sandbox),
        gradebook=args.gradebook, progress=not args.quiet, show_solution=args.show_solution,
        max_notebook_mb=_given(args.max_notebook_mb, course.max_notebook_mb),
        max_folder_files=_given(args.max_folder_files, course.max_folder_files),
        max_folder_mb=_given(args.max_folder_mb, course.max_folder_mb),
        students=tuple(args.student), wait=args.wait, scheduler=args.scheduler, processes=args.processes,
        allow_readable_course=args.allow_readable_course,
        credit_copied_follow_through=course.credit_copied_follow_through,
    )


def _grade(args: argparse.Namespace) -> int:
    try:
        root = find_root()
    except CourseError:
        root = None  # outside a course: the run locks its --out folder itself
    if root is not None and not args.wait:
        refuse_if_held(root)  # a second tutor is told now, not after the course's modules have loaded
    from .pipeline import grade_course

    run = grade_course(grade_options(args))
    print(run.summary(table=not args.quiet))
    if args.student:
        print(f"re-graded: {', '.join(args.student)}; the others' saved results were reused where unchanged")
    return run.exit_code


def _assignments(args: argparse.Namespace) -> list[str]:
    """The exercises ``sync``/``release`` work on: those named by ``--assignment``, else every registered one."""
    from .exercises import EXERCISES, exercise_for

    return [exercise_for(name).assignment for name in args.assignment] or list(EXERCISES)


def _sync(args: argparse.Namespace, root: Path) -> int:
    from .course.materials.nbgrader_commands import sync_exercise

    for assignment in _assignments(args):
        changed = sync_exercise(root, assignment)
        print(f"{assignment}: " + (f"updated: {', '.join(changed)}" if changed else "test cells already in sync"))
    return 0


def _release(args: argparse.Namespace, root: Path) -> int:
    from .course.materials.nbgrader_commands import generate_release
    from .course.materials.outbound import outbound_state
    from .course.materials.walkthrough import release_walkthroughs

    assignments = _assignments(args)
    for assignment in assignments:
        generate_release(root, assignment)
    release_walkthroughs(root)
    print(f"release/ regenerated: {', '.join(assignments)}")
    for assignment in assignments:
        note = outbound_state(root, assignment).note()  # what students fetch is the exchange's copy
        if note:
            print(note)
    return 0


def _new_offering(args: argparse.Namespace, root: Path) -> int:
    from .course.setup.offering import new_offering

    print(new_offering(root, args.course_id).summary())
    return 0


def _docs(args: argparse.Namespace, root: Path) -> int:
    from .exercises.ndcg.documentation import catalogue_markdown

    write_atomic(root / "docs" / "misconceptions.md", catalogue_markdown())
    print("docs/misconceptions.md regenerated")
    return 0


def _demo(args: argparse.Namespace, root: Path) -> int:
    from . import demo

    return demo.run(root)


def _student_config(args: argparse.Namespace, root: Path) -> int:
    from .course.setup.student_config import hub_student_config, student_config

    print((hub_student_config if args.hub else student_config)(root), end="")
    return 0


def _hub_service(args: argparse.Namespace, root: Path) -> int:
    from .course.setup.hub_service import account_note, hub_service, roster_users, service_block

    students = tuple(args.student) + (roster_users(root / args.roster) if args.roster else ())
    service = hub_service(root, grader=args.grader, port=args.port, instructors=tuple(args.instructor),
                          students=students, hub_roles=not args.course_only)
    print(service_block(service), end="")
    note = account_note(service)
    if note:
        print(note, file=sys.stderr)
    return 0


#: Each command's function (``grade`` finds its course itself; the others are given the course directory).
_COMMANDS = {
    "sync": _sync, "release": _release, "variants": variants_command, "copying": copying_command,
    "new-offering": _new_offering, "docs": _docs, "demo": _demo, "student-config": _student_config,
    "hub-service": _hub_service,
}


def _run(args: argparse.Namespace) -> int:
    if args.command == "grade":
        return _grade(args)
    root = find_root()
    if args.command in ("sync", "release"):  # they write the course: a course others can read is refused first
        from .course.setup.privacy import check_course_folder

        check_course_folder(root, args.allow_readable_course)
    return _COMMANDS[args.command](args, root)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return its exit code."""
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except KitError as error:  # SandboxUnavailable too
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
