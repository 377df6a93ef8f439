"""The student ids nbgrader's gradebook holds, for the student-id rule's look-alike decision.

:func:`~autograder.grading.reading.student_ids.check_ids` grades, of two look-alike folders (``alice`` and
``Alice``), the one the gradebook already knows; both grading paths read that roster here, the
same way. A gradebook that does not exist yet is not created, and one that cannot be read gives
no roster: then every look-alike is refused (the safe side), and the gradebook step says what is
wrong with the gradebook.
"""

from __future__ import annotations

from pathlib import Path

from ...gradebook.database import open_gradebook
from ...gradebook.scores import gradebook_path
from ...gradebook.url import _absolute, course_gradebook
from ...grading.batch import student_folders
from ...grading.reading.student_ids import IdCheck, check_ids


def roster_ids(url: str | None) -> frozenset[str]:
    """The ids of the gradebook at ``url`` (empty for None, a missing SQLite file, or one that cannot be read)."""
    if url is None:
        return frozenset()
    path = gradebook_path(url)
    if path is not None and not path.is_file():
        return frozenset()  # reading would create it
    try:
        with open_gradebook(url) as gradebook:
            return frozenset(str(student.id) for student in gradebook.students)
    except Exception:  # locked, not a database, another schema: no roster (every look-alike is refused)
        return frozenset()


def course_roster(root: Path | None, option: str | None = None) -> frozenset[str]:
    """The roster of the gradebook ``python -m autograder grade`` records in (``--gradebook``, else the course's)."""
    try:
        target = course_gradebook(root, option)
    except Exception:  # the gradebook step reports it
        return frozenset()
    return roster_ids(None if target is None else target.url)


def gradebook_roster(root: Path, url: str | None) -> frozenset[str]:
    """The roster of the gradebook at ``url`` (relative: ``root``'s), as nbgrader's own commands name it.

    nbgrader's commands (``autograde``, ``collect``, the formgrader) call this, or :func:`course_ids`,
    with their ``CourseDirectory``'s root and ``db_url``.
    """
    return roster_ids(None if url is None else _absolute(url, root))


def course_ids(root: Path, folders: list[str], url: str | None) -> IdCheck:
    """``folders`` checked against the rule with the roster of the gradebook at ``url`` (:func:`gradebook_roster`)."""
    return check_ids(folders, gradebook_roster(root, url))


def submitted_ids(root: Path, submitted: Path, url: str | None) -> IdCheck:
    """Every folder of ``submitted`` checked against the rule (see :func:`course_ids`)."""
    return course_ids(root, student_folders(submitted) if submitted.is_dir() else [], url)
