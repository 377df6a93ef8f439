"""Command line of the grading package: ``python -m autograder --help``."""

from __future__ import annotations

import argparse
import sys

from .course import CourseError, find_root, generate_release, source_notebook
from .grade_command import add_arguments, run_grade
from .notebook_tests import sync_source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grading tools of the DCG/nDCG course. Run from the course directory.",
        epilog="example: python -m autograder grade --submitted submitted --out graded",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync", help="rewrite the source notebook's test cells from autograder/cases.py")
    commands.add_parser("release", help="sync, then regenerate release/ with nbgrader generate_assignment")
    grade = commands.add_parser(
        "grade",
        help="grade every submission in a sandbox: results.json, grades.csv, feedback, report, gradebook",
        description="Grade every submission in its own sandbox and write results.json, grades.csv, "
        "one feedback page per student, the class report and the scores in the nbgrader gradebook.",
        epilog="example: python -m autograder grade --submitted submitted --out graded --workers 4",
    )
    add_arguments(grade)
    commands.add_parser("docs", help="regenerate docs/misconceptions.md from the misconception catalogue")
    commands.add_parser("demo", help="regenerate the release and grade the bundled example submissions")
    args = parser.parse_args(argv)
    try:
        if args.command == "grade":
            return run_grade(args)
        root = find_root()
        if args.command == "sync":
            changed = sync_source(source_notebook(root))
            print(f"updated: {', '.join(changed)}" if changed else "test cells already in sync")
        elif args.command == "release":
            generate_release(root)
            print("release/ regenerated")
        elif args.command == "docs":
            from .files import write_atomic
            from .misconceptions import catalogue_markdown

            write_atomic(root / "docs" / "misconceptions.md", catalogue_markdown())
            print("docs/misconceptions.md regenerated")
        elif args.command == "demo":
            from . import demo

            return demo.run(root)
    except (CourseError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
