"""Record the grader's scores in nbgrader's gradebook, so ``nbgrader export`` and the formgrader agree.

Each test group is one nbgrader grade cell (same ``grade_id``, same points); its score becomes the
cell's ``auto_score`` (a score a tutor set by hand in the formgrader is left alone and still
takes precedence, as in nbgrader). Students whose submission is missing get no submission row, as in nbgrader.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import CourseError, GradebookError
from ..files import holders
from ..grading import BatchResult, Exercise, Status, StudentResult
from ..grading.reading.student_ids import check_ids, name_problem
from ..grading.store import ResultStore
from .database import DEFAULT_COURSE, driver_problem, open_gradebook, schema_lock, shown_url
from .rows import StudentScores, read_layout, write_scores

#: The first bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def gradebook_path(url: str) -> Path | None:
    """The file of an ``sqlite:///`` gradebook URL (None for other databases)."""
    prefix = "sqlite:///"
    return Path(url[len(prefix) :]) if url.startswith(prefix) else None


def check_gradebook(path: Path) -> None:
    """Raise :class:`CourseError` if ``path`` exists but is not an SQLite database.

    nbgrader would stop on it with a page of SQLAlchemy traceback ("file is not a database"),
    after ``generate_assignment --force`` has already removed the old release.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return  # nbgrader creates it
    except OSError as error:
        raise CourseError(f"cannot read the gradebook {path}: {error.strerror}") from error
    if head and head != SQLITE_HEADER:  # an empty file is an empty database to SQLite
        raise CourseError(
            f"the gradebook {path} is not an SQLite database (it starts with {head!r}), so nbgrader cannot "
            f"open it. Move it away (mv {path} {path}.broken): nbgrader creates a new one, and "
            "`python -m autograder grade` records the scores in it again."
        )


def tool_environment() -> dict[str, str]:
    """The environment for nbgrader and Jupyter child processes: this Python's ``bin/`` first on PATH."""
    env = dict(os.environ)
    python_bin = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != python_bin:
        env["PATH"] = os.pathsep.join([python_bin, env.get("PATH", "")])
    return env


def student_id_problem(student_id: str) -> str | None:
    """Why ``student_id`` (a folder's name) may not be recorded, or None: the kit's student-id rule.

    The gradebook's door of the rule :mod:`autograder.grading.reading.student_ids` states (the batch has
    refused such a folder before grading it; a result built elsewhere is held to it here too).

    Examples
    --------
    >>> import os
    >>> student_id_problem(os.fsdecode(b"caf\\xe9"))
    'its name is not valid UTF-8 (rename the folder)'
    >>> student_id_problem("alice") is None
    True
    """
    problem = name_problem(student_id)
    return None if problem is None else f"its name {problem} (rename the folder)"


@dataclass(frozen=True)
class Recorded:
    """What :func:`record_scores` did."""

    #: Submissions whose scores are in the gradebook.
    count: int
    #: Students that could not be recorded, with why; every other student was recorded.
    refused: dict[str, str]


def record_scores(
    db_url: str, exercise: Exercise, batch: BatchResult, timestamps: dict[str, datetime] | None = None,
    *, course_id: str = DEFAULT_COURSE,
) -> Recorded:
    """Write every submitted student's per-test points into the gradebook at ``db_url``.

    As nbgrader's ``SaveAutoGrades`` does: each grade's ``auto_score``, and ``needs_manual_grade``
    only where a tutor's manual score exists and the automatic score under it changed; a
    submission's ``timestamp`` from ``timestamps``.
    Each student's submission and scores are written together or not at all
    (:mod:`.rows`), so an export during recording, or after a kill, shows nobody at a
    false 0. A student the gradebook cannot hold (a folder name that is not UTF-8, say) is refused
    with the reason and costs no one else.

    Parameters
    ----------
    course_id : str
        The course's id (``c.CourseDirectory.course_id``): the assignment belongs to that course row.

    Raises
    ------
    CourseError
        For an SQLite file that is not a database, or PostgreSQL without its driver.
    """
    path = gradebook_path(db_url)
    if path is not None:
        check_gradebook(path)
    if (problem := driver_problem(db_url)) is not None:
        raise CourseError(problem)
    # nbgrader runs the `alembic` program when it creates a gradebook: it lives next to this Python.
    os.environ["PATH"] = tool_environment()["PATH"]
    from ..nbgrader_adapter import parse_utc

    assignment = exercise.assignment
    notebook_id = Path(exercise.notebook).stem
    refused: dict[str, str] = {}
    candidates = []  # ids only: a record is read again when its scores are written, a chunk at a time
    for student_id, status in _ids_and_statuses(batch.students):
        if status in (Status.MISSING, Status.REFUSED):
            continue  # no notebook; or a name that is no student id (grading/student_ids.py): never in nbgrader's pages
        if problem := student_id_problem(student_id):
            refused[student_id] = problem
            continue
        if status is Status.NOT_GRADED:
            continue  # a student the machine could not grade keeps what the gradebook holds (no 0 until the next run)
        candidates.append(student_id)
    with open_gradebook(db_url, course_id) as gradebook:
        with schema_lock(db_url):  # graders starting at once would each insert these rows
            gradebook.update_or_create_assignment(assignment)
            gradebook.update_or_create_notebook(notebook_id, assignment)
            for group in exercise.graded_groups:
                gradebook.update_or_create_grade_cell(
                    group.grade_id, notebook_id, assignment, max_score=group.points, cell_type="code"
                )
        # two look-alike ids never both reach nbgrader's pages: the rule's decision with this gradebook's roster
        ambiguous = check_ids(candidates, [student.id for student in gradebook.students])
        refused |= {refusal.folder: refusal.reason for refusal in ambiguous.refused}
        wanted = set(candidates) - set(refused)
        del candidates

        def scores() -> Iterator[StudentScores]:  # one record at a time: only the points are kept
            for student in batch.students:
                if student.student_id not in wanted:
                    continue
                points = {test.name: test.points for test in student.tests}
                timestamp = (timestamps or {}).get(student.student_id)
                yield StudentScores(
                    student.student_id,
                    {group.grade_id: points.get(group.grade_id, 0.0) for group in exercise.graded_groups},
                    None if timestamp is None else parse_utc(timestamp),
                )

        refused |= write_scores(gradebook, read_layout(gradebook, assignment, notebook_id), scores())
    return Recorded(sum(student not in refused for student in wanted), refused)


def _ids_and_statuses(students: Iterable[StudentResult]) -> Iterator[tuple[str, Status]]:
    """Each student's id and status; a :class:`ResultStore`'s without reading its records."""
    if isinstance(students, ResultStore):
        yield from zip(students.student_ids, students.statuses(), strict=True)
    else:
        yield from ((student.student_id, student.status) for student in students)


def busy_message(path: Path | None) -> str:
    """What to tell the tutor when SQLite says the gradebook is locked: who has it open and what to do."""
    where = str(path) if path is not None else "the gradebook"
    held = holders(path) if path is not None else []
    who = f"open in {'; '.join(held)}" if held else "the program is not visible from here"
    return (
        f"NOT updated: {where} is locked by another program ({who}; the formgrader or `nbgrader autograde` "
        "holds it while saving, an sqlite3 shell or database browser until it is closed). The results on disk "
        "are complete: close that program or let it finish, then run the same command again (it reuses the "
        "results and records them)"
    )


@contextmanager
def gradebook_errors(path: Path | None = None) -> Iterator[None]:
    """Turn any failure to update the gradebook (at ``path`` if SQLite) into :class:`GradebookError`.

    The results on disk stand. SQLite's "database is locked" gets :func:`busy_message`.
    """
    try:
        yield
    except CourseError as error:
        raise GradebookError(f"NOT updated ({error})") from error
    except Exception as error:  # nbgrader/SQLAlchemy: locked, read-only, a schema of another version
        if "database is locked" in str(error):  # sqlite3.OperationalError, wrapped by SQLAlchemy
            raise GradebookError(busy_message(path)) from error
        if path is not None and not path.parent.is_dir():
            raise GradebookError(f"NOT updated: the gradebook's folder {path.parent} does not exist; create it or "
                                 "name another with --gradebook") from error
        # SQLAlchemy wraps the database's own error and adds a link to its docs: the database's words suffice
        cause = getattr(error, "orig", None) or error
        raise GradebookError(f"NOT updated ({type(cause).__name__}: {cause})") from error


def try_record_scores(
    db_url: str, exercise: Exercise, batch: BatchResult, timestamps: dict[str, datetime] | None = None,
    *, course_id: str = DEFAULT_COURSE,
) -> tuple[str, dict[str, str]]:
    """:func:`record_scores`, turning any failure into :class:`GradebookError` (the results on disk stand).

    Returns the one-line note and the refused students with why.
    """
    with gradebook_errors(gradebook_path(db_url)):
        recorded = record_scores(db_url, exercise, batch, timestamps, course_id=course_id)
    refused = f"; {len(recorded.refused)} NOT recorded (see their warnings)" if recorded.refused else ""
    return f"gradebook: {recorded.count} submissions recorded in {shown_url(db_url)}{refused}", recorded.refused
