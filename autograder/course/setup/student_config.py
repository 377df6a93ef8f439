"""The students' side of the exchange: the nbgrader settings a student needs, from the course's own.

Students run ``nbgrader fetch_assignment``, ``submit`` and ``fetch_feedback`` from their home, not
from the course directory, so the course's ``nbgrader_config.py`` is not read there; without a
course id nbgrader stops with "No course id specified", and without the course's exchange it looks
in its default. nbgrader reads ``~/.jupyter/nbgrader_config.py`` wherever it runs: this module
writes that file's text from the course's configuration, so the two can never disagree.

On a JupyterHub with several courses (:func:`hub_student_config`) the file names no course: a
course id there would hide every other course in the student's Assignments tab. nbgrader's
``JupyterHubAuthPlugin`` then lists the courses whose hub group (``nbgrader-<course id>``) holds the
student, and each course's assignments land in a folder of its own in the student's home.
"""

from __future__ import annotations

from pathlib import Path

from ...course_config import course_config
from ...errors import CourseError

#: Where students put the file (nbgrader reads it from Jupyter's config folder).
STUDENT_CONFIG_PATH = "~/.jupyter/nbgrader_config.py"
#: Where a JupyterHub's administrator puts the hub's file: every user's nbgrader reads it (Jupyter's system config).
HUB_CONFIG_PATH = "/etc/jupyter/nbgrader_config.py"
#: The kernel that `nbgrader validate` starts talks to it over CurveZMQ: without keys ipykernel 7 prints a
#: "Kernel is running over TCP without encryption" warning into every validate (and the plain text could
#: be read on a shared machine). "auto": keys where the kernel declares support, as ipykernel does (pyzmq's
#: wheels, PyPI's and conda-forge's, have CurveZMQ, which jupyter_client needs for the setting).
KERNEL_ENCRYPTION = (
    "# the notebook's kernel talks to nbgrader over an encrypted channel (and validate prints no TCP warning)\n"
    'c.KernelManager.transport_encryption = "auto"\n'
)


def course_settings(root: Path) -> tuple[str, str]:
    """The course id and the exchange root of the course in ``root`` (the exchange: nbgrader's default if unset).

    Raises
    ------
    CourseError
        If the course's configuration cannot be loaded or names no course id.
    """
    config = course_config(root)
    course_id = config.CourseDirectory.get("course_id")
    if not course_id:
        raise CourseError(f"{root / 'nbgrader_config.py'} sets no c.CourseDirectory.course_id")
    return str(course_id), exchange_root(root)


def exchange_root(root: Path) -> str:
    """The exchange the course in ``root`` uses: its ``c.Exchange.root``, else nbgrader's own default.

    Raises
    ------
    CourseError
        If the course's configuration cannot be loaded.
    """
    exchange = course_config(root).Exchange.get("root")
    if not exchange:
        from ...nbgrader_adapter import Exchange

        exchange = Exchange.root.default_value  # nbgrader's own default, /usr/local/share/nbgrader/exchange
    return str(exchange)


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
    course_id, exchange = course_settings(root)
    return (
        f"# nbgrader settings for students of {course_id}: save as {STUDENT_CONFIG_PATH}\n"
        "# (then `nbgrader fetch_assignment ASSIGNMENT`, `nbgrader submit ASSIGNMENT` and\n"
        "# `nbgrader fetch_feedback ASSIGNMENT` work from any folder, and so does the Assignments tab)\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {exchange!r}\n"
        + KERNEL_ENCRYPTION
    )


def hub_student_config(root: Path) -> str:
    """The text of a JupyterHub's ``/etc/jupyter/nbgrader_config.py``: the exchange and the hub's groups, no course.

    Parameters
    ----------
    root
        The course directory (its ``nbgrader_config.py`` gives the exchange, shared by every course of the hub).

    Returns
    -------
    str
        A Python file setting ``Exchange.root``, ``Exchange.path_includes_course`` and nbgrader's
        ``JupyterHubAuthPlugin``, and no course id.

    Raises
    ------
    CourseError
        If the course's configuration cannot be loaded or names no course id, or if its exchange is
        inside the course folder (the hub's students must never reach that folder: it holds the
        hidden tests).
    """
    course_id, exchange = course_settings(root)
    course = root.resolve()
    if Path(exchange).resolve() == course or course in Path(exchange).resolve().parents:
        raise CourseError(
            f"the course's exchange {exchange} is inside the course folder, which a hub's students must never reach"
            " (it holds the hidden tests): set c.Exchange.root in nbgrader_config.py to the hub's shared exchange,"
            " e.g. '/srv/nbgrader/exchange' (made once by root: mkdir -p -m 1777 /srv/nbgrader/exchange)"
        )
    return (
        f"# nbgrader settings for every user of a JupyterHub: save as {HUB_CONFIG_PATH} (or each user's\n"
        f"# {STUDENT_CONFIG_PATH}). It names no course: a student sees the courses whose hub group\n"
        f"# nbgrader-<course id> holds them ({course_id}: nbgrader-{course_id}), in the Assignments tab and with\n"
        "# `nbgrader fetch_assignment ASSIGNMENT --course COURSE_ID` (and submit, fetch_feedback).\n"
        "c = get_config()  # noqa: F821\n"
        "# the exchange every course of the hub shares\n"
        f"c.Exchange.root = {exchange!r}\n"
        "# each course's assignments in a folder of their own in the student's home (COURSE_ID/ASSIGNMENT):\n"
        "# two courses with an assignment of the same name never meet\n"
        "c.Exchange.path_includes_course = True\n"
        "# the courses a user sees are their hub groups (nbgrader's multiple-classes setup)\n"
        'c.Authenticator.plugin_class = "nbgrader.auth.JupyterHubAuthPlugin"\n'
        + KERNEL_ENCRYPTION
    )
