"""The students' side of the exchange: the nbgrader settings a student needs, from the course's own.

Students run ``nbgrader fetch_assignment``, ``submit`` and ``fetch_feedback`` from their home, not
from the course directory, so the course's ``nbgrader_config.py`` is not read there; without a
course id nbgrader stops with "No course id specified", and without the course's exchange it looks
in its default. nbgrader reads ``~/.jupyter/nbgrader_config.py`` wherever it runs: this module
writes that file's text from the course's configuration, so the two can never disagree.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CourseError

#: Where students put the file (nbgrader reads it from Jupyter's config folder).
STUDENT_CONFIG_PATH = "~/.jupyter/nbgrader_config.py"


def student_config(root: Path) -> str:
    """The text of a student's ``~/.jupyter/nbgrader_config.py`` for the course in ``root``.

    Parameters
    ----------
    root
        The course directory (its ``nbgrader_config.py`` gives the course id and the exchange).

    Returns
    -------
    str
        A Python file setting ``CourseDirectory.course_id`` and ``Exchange.root``.

    Raises
    ------
    CourseError
        If the course's configuration cannot be loaded or names no course id.
    """
    from traitlets.config.loader import PyFileConfigLoader

    try:
        config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    except Exception as error:  # the file is the tutor's Python: any error, said in one line
        raise CourseError(f"cannot load {root / 'nbgrader_config.py'}: {type(error).__name__}: {error}") from error
    course_id = config.CourseDirectory.get("course_id")
    if not course_id:
        raise CourseError(f"{root / 'nbgrader_config.py'} sets no c.CourseDirectory.course_id")
    exchange = config.Exchange.get("root")
    if not exchange:
        from nbgrader.exchange.default.exchange import Exchange

        exchange = Exchange.root.default_value  # nbgrader's own default, /srv/nbgrader/exchange
    return (
        f"# nbgrader settings for students of {course_id}: save as {STUDENT_CONFIG_PATH}\n"
        "# (then `nbgrader fetch_assignment ASSIGNMENT`, `nbgrader submit ASSIGNMENT` and\n"
        "# `nbgrader fetch_feedback ASSIGNMENT` work from any folder, and so does the Assignments tab)\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {str(course_id)!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
    )
