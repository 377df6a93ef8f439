"""Opening nbgrader's gradebook safely, on SQLite or PostgreSQL, under the course's id.

nbgrader's ``Gradebook(url, course_id)`` creates the tables (``CREATE TYPE``, ``CREATE TABLE``) when
they are missing and then the course's row. On PostgreSQL two graders doing that at once on a new
database collide (``UniqueViolation ... grade_cell_type``, or a duplicate course row) and one of
them stops. :func:`open_gradebook` takes a PostgreSQL advisory lock around that step, so the kit's
graders create the schema one after the other; the second finds it made. The same lock is held
while a grader creates the assignment's rows (:func:`schema_lock`). nbgrader's own commands
take no such lock: one that races the kit's first grader may still fail once (run it again).

nbgrader's schema indexes only its unique pairs, so finding a submission's grades (by
``grade.notebook_id``) or a submission's notebooks (by ``submitted_notebook.assignment_id``) scans
the whole table: each student's read-back cost 50 ms at 2,000 students on SQLite, and grew with the
class. :data:`INDEXES` adds the missing ones (``CREATE INDEX IF NOT EXISTS``, under names of the
kit's own; nbgrader's migrations and commands do not mind them).

A reader passes no course id: nbgrader's ``Gradebook`` adds a ``default_course`` row under its
default id, a second course beside the course's own; with ``""`` it adds none.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The advisory lock's key: one number, the same in every grader (a CRC of a fixed text).
SCHEMA_LOCK = zlib.crc32(b"nbgrader gradebook schema (ndcg-kit)")

#: Index name -> (table, column): the look-ups nbgrader's models make that its schema does not index.
INDEXES = {
    "ix_kit_grade_notebook": ("grade", "notebook_id"),
    "ix_kit_comment_notebook": ("comment", "notebook_id"),
    "ix_kit_submitted_notebook_assignment": ("submitted_notebook", "assignment_id"),
    "ix_kit_submitted_assignment_student": ("submitted_assignment", "student_id"),
}

#: nbgrader's ``Gradebook`` default course id, for a gradebook used outside a course directory.
DEFAULT_COURSE = "default_course"

#: SQLAlchemy's PostgreSQL URLs start so (``postgresql://``, ``postgresql+psycopg://``).
POSTGRESQL = "postgresql"


def is_postgresql(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://…`` or ``postgresql+psycopg://…``)."""
    return url.startswith(POSTGRESQL)


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it becomes ``***``."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy can read: nbgrader says so itself; show nothing of it
        return "the gradebook URL"


def driver_problem(url: str) -> str | None:
    """Why this Python cannot reach the database at ``url``, in one line (None if it can).

    SQLAlchemy 2 reaches ``postgresql://`` through psycopg 3, an optional extra of the kit.
    """
    if not is_postgresql(url):
        return None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return ("PostgreSQL needs the psycopg driver, which is not installed: "
                "pip install -c constraints.txt -e '.[postgresql]' (or `make venv POSTGRESQL=1`)")
    return None


@contextmanager
def schema_lock(url: str) -> Iterator[None]:
    """Hold PostgreSQL's session advisory lock :data:`SCHEMA_LOCK` (nothing on other databases).

    Whoever creates rows every grader may create at once (the schema, an assignment, its notebook
    and grade cells) holds it: nbgrader looks for the row, then inserts it, and two graders that
    both looked first collide on the insert (``UniqueViolation``).
    """
    if not is_postgresql(url):
        yield
        return
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": SCHEMA_LOCK})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": SCHEMA_LOCK})
                connection.commit()
    finally:
        engine.dispose()


def _add_indexes(gradebook: Any) -> None:
    """Create the missing :data:`INDEXES`, looking first: PostgreSQL's ``CREATE INDEX IF NOT EXISTS``
    locks the table before it looks, and deadlocks with another grader's inserts."""
    from sqlalchemy import inspect, text

    inspector = inspect(gradebook.engine)
    present = {index["name"] for table in {t for t, _ in INDEXES.values()} for index in inspector.get_indexes(table)}
    for name, (table, column) in INDEXES.items():
        if name not in present:
            gradebook.db.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})"))
    gradebook.db.commit()


@contextmanager
def open_gradebook(url: str, course_id: str = "") -> Iterator[Any]:
    """nbgrader's ``Gradebook`` at ``url``, its schema created safely; closed on leaving.

    Parameters
    ----------
    url : str
        An SQLAlchemy URL (``sqlite:///…``, ``postgresql://user@host/db``).
    course_id : str
        The course's id (``c.CourseDirectory.course_id``) for a writer that adds assignments; ""
        for a reader, which adds no course row.
    """
    from ..nbgrader_adapter import Gradebook

    with warnings.catch_warnings():
        # nbgrader's models emit SQLAlchemy "not in session" warnings that mean nothing here
        warnings.simplefilter("ignore")
        with schema_lock(url):
            gradebook = Gradebook(url, course_id)
            _add_indexes(gradebook)
        try:
            yield gradebook
        finally:
            gradebook.close()
