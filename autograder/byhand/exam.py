"""``python -m autograder variants --roster roster.csv``: the paper exam's sheets and the tutors' key.

The same generator as the notebook's derivation cell (and the release's salt, unless told another),
so a written exam and the notebook give a student the same variant. ``--choose-salt`` finds a salt
that gives every student of the roster a variant of their own and writes it into the source notebook
(then ``make release`` publishes it). Any exercise whose answered part carries a by-hand hook
(:class:`~..grading.ByHand`) has sheets; for one without, the command says so in one line.
"""

from __future__ import annotations

import csv
import secrets
from pathlib import Path

from ..course.setup.offering import submissions_found
from ..course_config import course_config
from ..errors import CourseError, UsageError
from ..grading import ByHand, Exercise
from .paper import Sheet, StepValues, write_paper
from .salt import by_hand, collisions, release_variant, source_salt, write_salt


def read_roster(path: Path) -> list[str]:
    """The student ids of a roster CSV: the ``student_id`` or ``id`` column (nbgrader's roster), or the first one.

    Raises
    ------
    UsageError
        If the file cannot be read, has no ids, or names a student twice.
    """
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read the roster {path}: {type(error).__name__}") from None
    header = [name.strip() for name in rows[0]] if rows else []
    named = next((name for name in ("student_id", "id") if name in header), None)
    if named is not None:  # the roster `nbgrader db student import` reads names its ids `id`
        column = header.index(named)
        rows = rows[1:]
    else:
        column = 0
    ids = [row[column].strip() for row in rows if len(row) > column and row[column].strip()]
    if not ids:
        raise UsageError(f"the roster {path} names no student (a column student_id or id, or ids in the first column)")
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UsageError(f"the roster {path} names {', '.join(twice[:5])} more than once")
    return ids


def sheet(hook: ByHand, student: str, salt: str, pool: str) -> Sheet:
    """One student's sheet: their variant, the right values and each common mistake's."""
    rels = hook.variant(student, salt, pool)
    ways = tuple(StepValues(way.name, way.mistake, way.sequence, *way.numbers) for way in hook.worked(rels))
    return Sheet(student, rels, hook.cutoff, ways)


def write_variants(root: Path, exercise: Exercise, roster: Path, out: Path, *, choose: bool = False,
                   force: bool = False) -> str:
    """Write the sheets and the key of ``exercise`` for ``roster`` into ``out``; return a summary line.

    With ``choose``, first choose a salt that separates the roster and write it into the source notebook;
    once the course has submissions only with ``force`` (a new salt gives every student another variant).

    Raises
    ------
    UsageError
        When the exercise has no by-hand part (one line says so).
    CourseError
        With ``choose`` and without ``force``, when the course already has submissions.
    """
    hook = by_hand(exercise)
    students = read_roster(roster)
    pool = hook.pool()
    found = submissions_found(root) if choose else []
    if found and not force:
        raise CourseError(
            f"the course already has submissions ({', '.join(found)}): a new salt gives every student another "
            f"{hook.task} list, and the answers handed in for the old one would be marked wrong. Keep the salt; "
            "to change it anyway, add --force (a notebook fetched before the change is then still marked "
            "against the list it showed)"
        )
    if choose and not collisions(hook, students, current := source_salt(root, exercise), pool):
        # the offering's own salt already separates the roster: changing it would only disturb
        salt, note = current, f"the salt {current} already gives every student a list of their own: kept"
    elif choose:
        # drawn afresh from the offering's id, never from a fixed base: each offering's lists stay its own
        salt = hook.choose_salt(students, pool, f"{course_config(root).CourseDirectory.get('course_id', 'course')}"
                                                f"-byhand-{secrets.token_hex(4)}")
        # handed-in notebooks keep the lists they showed
        write_salt(root, exercise, salt, keep_earlier=bool(found))
        note = f"salt {salt} written into source/{exercise.assignment}/: run `make release` to publish it"
    else:
        salt, pool = release_variant(root, exercise)
        shared = collisions(hook, students, salt, pool)
        note = (f"{sum(len(v) for v in shared.values())} students share a list with another: "
                "use --choose-salt before the release") if shared else "every student has a list of their own"
    sheets_page, key_page = write_paper([sheet(hook, s, salt, pool) for s in students], out, salt=salt,
                                        tolerance=hook.tolerance, wording=hook.wording)
    return f"{len(students)} sheets: {sheets_page}; key: {key_page}; {note}"
