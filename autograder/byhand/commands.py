"""The by-hand feature's commands: ``python -m autograder variants`` and ``python -m autograder copying``.

Only the parsers are built when the command line starts; each command imports its modules (nbformat,
copydetect, numpy) when it runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_byhand_parsers(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``variants`` (the paper exam) and ``copying`` (the copying report) to the command line."""
    variants = commands.add_parser(
        "variants", help="paper exam: one printable sheet per student of a roster (their list, k) and the tutors' key",
        epilog="example: python -m autograder variants --roster roster.csv --out paper",
    )
    variants.add_argument("--roster", type=Path, required=True, help="CSV with a student_id column (or ids first)")
    variants.add_argument("--out", type=Path, default=Path("paper"), help="folder for sheets.html and key.html")
    variants.add_argument("--choose-salt", action="store_true",
                          help="choose a salt giving every student a list of their own, write it into the source "
                          "notebook (refused once the course has submissions, unless --force)")
    variants.add_argument("--force", action="store_true",
                          help="with --choose-salt: change the salt even though students have handed in")
    variants.add_argument("--assignment", default=None,
                          help="assignment id (default: the first registered exercise with a by-hand part, ndcg)")
    copying = commands.add_parser(
        "copying", help="copying report: by-hand answers that are another student's values, similar code pairs",
        epilog="example: python -m autograder copying --threshold 0.8 --out graded/copying.html",
    )
    copying.add_argument("--submitted", type=Path, default=Path("submitted"))
    copying.add_argument("--out", type=Path, default=Path("graded") / "copying.html")
    copying.add_argument("--threshold", type=float, default=0.8,
                         help="list code pairs from this similarity (0..1, default 0.8)")
    copying.add_argument("--assignment", default=None,
                         help="assignment id (default: the first registered exercise, ndcg); by-hand answers are "
                         "compared for an exercise with a by-hand part, code for every one")


def variants_command(args: argparse.Namespace, root: Path) -> int:
    """``variants``: the sheets and the key of the exercise's by-hand part."""
    from .exam import write_variants
    from .salt import by_hand_exercise

    exercise = by_hand_exercise(args.assignment)
    print(write_variants(root, exercise, args.roster, args.out, choose=args.choose_salt, force=args.force))
    return 0


def copying_command(args: argparse.Namespace, root: Path) -> int:
    """``copying``: the copying report of the exercise (by-hand answers where it has such a part, and code)."""
    from ..course.materials.nbgrader_commands import ASSIGNMENT
    from ..exercises import exercise_for
    from .copied import write_report

    exercise = exercise_for(args.assignment or ASSIGNMENT)
    print(write_report(root, exercise, root / args.submitted, root / args.out, args.threshold))
    return 0
