"""``python -m autograder grade``: grade a folder of submissions into results, feedback and the gradebook."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .course import ASSIGNMENT, NOTEBOOK, CourseError, find_root, release_notebook
from .feedback import write_feedback
from .gradebook import record_scores
from .grading import GradingSettings, default_workers, grade_batch
from .report import write_report
from .results import score_table, status_summary, write_results
from .sandbox import WEAK_ISOLATION_WARNING, SandboxUnavailable, choose_sandbox
from .submission import skipped_cell_ids

DEFAULT_OUT = "graded"
DEFAULT_TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--submitted", type=Path, default=Path("submitted"),
                        help="folder in nbgrader's layout SUBMITTED/<student_id>/<assignment>/ndcg.ipynb (default: submitted)")
    parser.add_argument("--out", type=Path, default=Path(DEFAULT_OUT),
                        help=f"where results.json, grades.csv and feedback/<student_id>/ go (default: {DEFAULT_OUT})")
    parser.add_argument("--assignment", default=ASSIGNMENT, help=f"assignment id (default: {ASSIGNMENT})")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="submissions graded at once (default: the number of cores)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds each code cell and each test call may take (default: {DEFAULT_TIMEOUT:g}); "
                        "a submission takes at most max(60, 10 x timeout) seconds in all")
    parser.add_argument("--force", action="store_true", help="re-grade students already graded by an earlier run")
    parser.add_argument("--sandbox", choices=("auto", "required"), default="auto",
                        help="auto: bubblewrap if it works here, else resource limits only with a warning; "
                        "required: refuse to grade without bubblewrap (default: auto)")
    parser.add_argument("--gradebook", default=None,
                        help="nbgrader gradebook URL to record scores in (default: sqlite:///gradebook.db in the "
                        "course directory; 'none' to skip)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no table")


def run_grade(args: argparse.Namespace) -> int:
    """Grade the batch; return the exit code (0 even when students failed: that is a result)."""
    if args.workers < 1:
        raise CourseError(f"--workers must be at least 1, got {args.workers}")
    if args.timeout <= 0:
        raise CourseError(f"--timeout must be positive, got {args.timeout:g}")
    if not args.submitted.is_dir():
        raise CourseError(f"no submissions folder {args.submitted} (expected {args.submitted}/<student_id>/{args.assignment}/{NOTEBOOK})")
    try:
        root = find_root()
    except CourseError:
        root = None
    try:
        sandbox = choose_sandbox(args.sandbox)
    except SandboxUnavailable as error:
        raise CourseError(str(error)) from error
    if not sandbox.isolated:
        print("\n" + "!" * 78 + "\n" + WEAK_ISOLATION_WARNING + "\n" + "!" * 78 + "\n", file=sys.stderr)
    release = release_notebook(root, args.assignment) if root else None
    settings = GradingSettings(args.assignment, NOTEBOOK, args.timeout, frozenset(skipped_cell_ids(release)))
    out: Path = args.out
    students = grade_batch(args.submitted, out, settings, sandbox, workers=args.workers, force=args.force, progress=not args.quiet)
    for student in students:
        student["feedback"] = write_feedback(out, args.assignment, NOTEBOOK, student)
    write_results(out, args.assignment, students, sandbox.name)
    write_report(out, args.assignment, students)
    code = 0
    gradebook_note = "gradebook: skipped"
    url = args.gradebook or (f"sqlite:///{root / 'gradebook.db'}" if root else None)
    if url and url != "none":
        try:
            recorded = record_scores(url, args.assignment, NOTEBOOK, students)
            gradebook_note = f"gradebook: {recorded} submissions recorded in {url}"
        except Exception as error:  # the results on disk are complete; say what failed
            detail = str(error) if isinstance(error, CourseError) else f"{type(error).__name__}: {error}"
            gradebook_note = f"gradebook: NOT updated ({detail})"
            code = 1
    if not args.quiet:
        print(score_table(students))
    print(
        f"\n{len(students)} students: {status_summary(students)}"
        + f"\nresults: {out / 'results.json'}, {out / 'grades.csv'}, {out / 'report.html'}, feedback in {out / 'feedback'}/"
        + f"\nsandbox: {sandbox.name}; {gradebook_note}"
    )
    return code
