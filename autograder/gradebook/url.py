"""Which gradebook a course uses: the one its ``nbgrader_config.py`` names, whichever way the kit is run.

``nbgrader export``, the formgrader and ``nbgrader autograde`` open ``c.CourseDirectory.db_url``
under ``c.CourseDirectory.course_id``; ``python -m autograder grade`` records into the same
database and the same course row, so all of them show the same scores. ``--gradebook URL`` still
overrides the database (``none`` skips it); a relative ``sqlite:///gradebook.db`` is the course
directory's, as for nbgrader, which runs there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..course_config import course_config
from ..errors import CourseError
from .database import DEFAULT_COURSE, driver_problem

#: ``--gradebook none``: do not record scores.
NO_GRADEBOOK = "none"


@dataclass(frozen=True)
class CourseGradebook:
    """A gradebook and the course row the kit records under."""

    #: An SQLAlchemy URL (``sqlite:////abs/path/gradebook.db``, ``postgresql://user@host/db``).
    url: str
    #: ``c.CourseDirectory.course_id``; nbgrader's ``default_course`` where the course sets none.
    course_id: str


def _absolute(url: str, root: Path) -> str:
    """A relative ``sqlite:///`` path made the course directory's (nbgrader's commands run there)."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and url != prefix + ":memory:":
        return prefix + str(root / url[len(prefix):])
    return url


def course_gradebook(root: Path | None, option: str | None = None) -> CourseGradebook | None:
    """The gradebook to record in: ``option`` (``--gradebook``) if given, else the course's; None for none.

    Parameters
    ----------
    root : Path or None
        The course directory (None: outside a course, where only ``option`` names a gradebook).
    option : str or None
        ``--gradebook``: a URL, :data:`NO_GRADEBOOK`, or None for the course's own.

    Raises
    ------
    CourseError
        When the course's ``nbgrader_config.py`` does not load, or the database's driver is missing.
    """
    if option == NO_GRADEBOOK:
        return None
    if root is None:
        return None if option is None else _checked(CourseGradebook(option, DEFAULT_COURSE))
    from ..nbgrader_adapter import CourseDirectory

    config = course_config(root)
    coursedir = CourseDirectory(config=config)
    if not config.CourseDirectory.get("root"):
        coursedir.root = str(root)  # nbgrader's default gradebook is <root>/gradebook.db
    url = _absolute(option or coursedir.db_url, root)
    return _checked(CourseGradebook(url, coursedir.course_id or DEFAULT_COURSE))


def _checked(gradebook: CourseGradebook) -> CourseGradebook:
    if (problem := driver_problem(gradebook.url)) is not None:
        raise CourseError(problem)
    return gradebook
