"""A new offering of the course: its own course id, its own Task 1.2 salt, its own grading secret.

Two offerings of the course on one machine (this winter's and last winter's, or two groups) met in
one exchange under the one fixed course id, and the by-hand lists of every offering came from the
same salt (a student of last year could hand a list's answers on). ``python -m autograder
new-offering ID`` gives the checkout its own identity before anything is handed in:

- ``c.CourseDirectory.course_id`` in ``nbgrader_config.py`` becomes ``ID`` (the exchange's folder,
  the students' config, the gradebook's course row);
- the source notebook of every exercise with a by-hand part (:class:`~...grading.ByHand`) publishes a
  fresh salt (random, and chosen to give the gradebook's roster lists of their own when it has one):
  every student's Task 1.2 list is new;
- the grading secret (``.grading-secret``) is removed, so the first grading draws new hidden instances.

It refuses once the offering has submissions (in ``submitted/``, the gradebook or the exchange's
inbound folder of the current course id): their lists, instances and exchange would no longer match.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from ...course_config import course_config
from ...errors import CourseError, UsageError
from ...exercises import EXERCISES
from ...gradebook.database import open_gradebook
from ...gradebook.scores import gradebook_path
from ...gradebook.url import course_gradebook
from ...grading.batch import student_folders
from .roster import course_roster
from .secret import SECRET_NAME
from .student_config import exchange_root

#: A course id: a name for a folder of the exchange, a URL part and a gradebook key.
COURSE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
#: The one line of ``nbgrader_config.py`` that names the course id.
_ID_LINE = re.compile(r"^c\.CourseDirectory\.course_id = (?P<quote>[\"'])(?P<id>[^\"'\n]*)(?P=quote)[ \t]*$", re.M)


@dataclass(frozen=True)
class Offering:
    """What ``new-offering`` set."""

    course_id: str
    #: Each by-hand part's new salt: (its name, e.g. "Task 1.2", the assignment, the salt).
    salts: tuple[tuple[str, str, str], ...]
    #: Whether an old grading secret was removed (the first grading draws a new one).
    secret_removed: bool

    def summary(self) -> str:
        """The lines the command prints: what changed and what to run next."""
        return (
            f"course id: {self.course_id} (nbgrader_config.py)\n"
            + "".join(f"{task} salt: {salt} (source/{assignment}/)\n" for task, assignment, salt in self.salts)
            + f"grading secret: {'removed, ' if self.secret_removed else ''}a new one is drawn at the first grading\n"
            "next: make release, then python -m autograder student-config for the students' settings"
        )


def submissions_found(root: Path, course_id: str | None = None) -> list[str]:
    """Where the offering in ``root`` already has submissions, in words (empty: none).

    Parameters
    ----------
    root : Path
        The course directory.
    course_id : str, optional
        The offering's course id (default: the one ``nbgrader_config.py`` sets).

    Returns
    -------
    list of str
        Such as ``"3 in submitted/"``, ``"5 in the gradebook"``, ``"handed in to <exchange>/<id>/inbound"``.
    """
    if course_id is None:
        course_id = str(course_config(root).CourseDirectory.get("course_id", ""))
    found = []
    submitted = root / "submitted"
    if submitted.is_dir() and (folders := student_folders(submitted)):
        found.append(f"{len(folders)} in submitted/")
    gradebook = course_gradebook(root)
    path = None if gradebook is None else gradebook_path(gradebook.url)
    if gradebook is not None and (path is None or path.is_file()):  # reading a missing SQLite file would create it
        with open_gradebook(gradebook.url, gradebook.course_id) as book:
            count = sum(len(assignment.submissions) for assignment in book.assignments)
        if count:
            found.append(f"{count} in the gradebook")
    exchange = Path(exchange_root(root))
    inbound = exchange / course_id / "inbound"
    if inbound.is_dir() and any(inbound.iterdir()):
        found.append(f"handed in to {inbound}")
    return found


def new_offering(root: Path, course_id: str) -> Offering:
    """Give the course at ``root`` the course id ``course_id``, a fresh Task 1.2 salt and a fresh grading secret.

    Parameters
    ----------
    root : Path
        The course directory.
    course_id : str
        The new offering's id (letters, digits, ``. _ -``, at most 64 characters, starting with a letter or digit).

    Returns
    -------
    Offering

    Raises
    ------
    UsageError
        For an id that breaks the rule.
    CourseError
        When the offering already has submissions, or ``nbgrader_config.py`` does not name its course id in one line.
    """
    if not COURSE_ID.match(course_id):
        raise UsageError(f"a course id is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; "
                         f"got {course_id!r}")
    config_path = root / "nbgrader_config.py"
    text = config_path.read_text(encoding="utf-8")
    lines = list(_ID_LINE.finditer(text))
    if len(lines) != 1:
        raise CourseError(f"{config_path} must set c.CourseDirectory.course_id = \"…\" in exactly one line "
                          f"(found {len(lines)}): set it by hand")
    current = lines[0].group("id")
    if found := submissions_found(root, current):
        raise CourseError(f"the offering {current!r} has submissions ({', '.join(found)}): a new offering starts "
                          "from a fresh checkout of the course, before anything is handed in")
    salts = []
    for exercise in EXERCISES.values():  # each by-hand part through the hook its exercise carries
        hook = exercise.answered.by_hand if exercise.answered is not None else None
        if hook is not None:
            salt = hook.choose_salt(course_roster(root), hook.pool(), f"{course_id}-byhand-{secrets.token_hex(4)}")
            hook.write_salt(root / "source" / exercise.assignment / exercise.notebook, salt, False)
            salts.append((hook.task, exercise.assignment, salt))
    config_path.write_text(text[:lines[0].start()] + f"c.CourseDirectory.course_id = {course_id!r}"
                           + text[lines[0].end():], encoding="utf-8")
    secret = root / SECRET_NAME
    removed = secret.exists() or secret.is_symlink()
    if removed:
        secret.unlink()
    return Offering(course_id, tuple(salts), removed)
