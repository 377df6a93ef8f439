"""The course's formgrader as a JupyterHub service: the block of ``jupyterhub_config.py`` for it.

nbgrader's "multiple classes" setup on a JupyterHub runs each course's formgrader as a hub service:
a Jupyter server started by the hub as the course's grader account, in the course folder, which
the course's instructors open through the hub. For this kit the server must be the course's own
venv's (``jupyterhub-singleuser`` of the hub's JupyterHub, the ``hub`` extra): the course's
``nbgrader_config.py`` grades only through the kit, and nbgrader runs ``alembic`` from PATH. The
groups and roles are nbgrader's: ``formgrade-<course>`` may open the service, ``nbgrader-<course>``
are its students (nbgrader's ``JupyterHubAuthPlugin`` lists a student's courses from them).
"""

from __future__ import annotations

import pwd
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ...errors import CourseError, UsageError
from .student_config import course_settings

#: The Jupyter server a hub starts as a service; the ``hub`` extra installs it into the course's venv.
SINGLEUSER = "jupyterhub-singleuser"
#: The PATH after the venv's bin/ (the service's environment is the hub's, which is not the grader's login).
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The hub's own ``server`` role with the one scope nbgrader's ``JupyterHubAuthPlugin`` adds: a user's
#: server reads that user's groups (its courses); the first two are JupyterHub's defaults for the role.
SERVER_SCOPES = ("users:activity!user", "access:servers!server", "read:users:groups!user")
#: A course id that can name a hub service, its URL and the groups nbgrader reads the course from.
SERVICE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class HubService:
    """What the service block says: the course, where it runs, as whom, and who may use it."""

    course_id: str
    course: Path  # the course folder: the service's working directory
    grader: str  # the account the service runs as
    port: int  # the service listens on 127.0.0.1:port (the hub's proxy forwards to it)
    bin: Path  # the course venv's bin/, first on the service's PATH
    instructors: tuple[str, ...]  # formgrade-<course>: may open the formgrader
    students: tuple[str, ...]  # nbgrader-<course>: see the course's assignments
    hub_roles: bool  # with the hub-wide server role (once per hub)


def _grader(course: Path, grader: str | None) -> str:
    """The account the service runs as: ``grader`` if given, else the course folder's owner; never root."""
    if grader is not None:
        if grader == "root" or (_uid(grader) == 0):
            raise UsageError("--grader root: the formgrader service must not run as root (student code is graded "
                             "from it, and jupyterhub-singleuser refuses root): name the course's grader account")
        return grader
    owner = course.stat().st_uid
    if owner == 0:
        raise UsageError(
            f"{course} belongs to root, and the formgrader service must not run as root (student code is graded "
            "from it): give the course to the grader account (chown -R GRADER: the folder) or name it with --grader"
        )
    try:
        return pwd.getpwuid(owner).pw_name
    except KeyError:
        raise UsageError(f"{course} belongs to uid {owner}, which has no account: name one with --grader") from None


def _uid(name: str) -> int | None:
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def account_note(service: HubService) -> str | None:
    """A note for a grader account this machine does not have (yet): the hub cannot start the service without it."""
    if _uid(service.grader) is None:
        return (f"note: there is no account {service.grader} on this machine yet; the hub starts the service as it "
                f"(create it, and give it the course folder: chown -R {service.grader}: {service.course})")
    return None


def hub_service(root: Path, *, grader: str | None = None, port: int = 9999, instructors: tuple[str, ...] = (),
                students: tuple[str, ...] = (), hub_roles: bool = True) -> HubService:
    """The service of the course in ``root``, checked.

    Parameters
    ----------
    root
        The course directory.
    grader
        The account the service runs as; None: the course folder's owner.
    port
        The port on 127.0.0.1 the service listens on (one per course).
    instructors, students
        Hub user names for the groups ``formgrade-<course>`` and ``nbgrader-<course>``.
    hub_roles
        Include the hub's ``server`` role (once per hub: JupyterHub refuses a role defined twice).

    Raises
    ------
    UsageError
        For root as the grader, a root-owned course without ``--grader``, or a port out of range (a
        grader account this machine lacks is only noted: :func:`account_note`).
    CourseError
        If the course's configuration cannot be loaded, its course id cannot name a service (letters,
        digits, ``.``, ``_``, ``-``), or this Python's environment has no ``jupyterhub-singleuser``
        (the ``hub`` extra).
    """
    course_id, _ = course_settings(root)
    if not SERVICE_NAME.fullmatch(course_id):
        raise CourseError(f"the course id {course_id!r} cannot name a hub service and its groups: use letters, digits, "
                          "'.', '_' and '-' in c.CourseDirectory.course_id (nbgrader_config.py)")
    if not 1 <= port <= 65535:
        raise UsageError(f"--port {port}: not a port (1-65535)")
    bin_folder = Path(sys.prefix) / "bin"
    if not (bin_folder / SINGLEUSER).is_file():
        raise CourseError(
            f"{bin_folder} has no {SINGLEUSER}: install the hub extra into the course's venv "
            "(make venv, or pip install -c constraints.txt -e '.[hub]'), the same JupyterHub as the hub's"
        )
    course = root.resolve()
    grader_account = _grader(course, grader)
    return HubService(course_id=course_id, course=course, grader=grader_account, port=port, bin=bin_folder,
                      instructors=tuple(instructors), students=tuple(students), hub_roles=hub_roles)


def service_block(service: HubService) -> str:
    """The ``jupyterhub_config.py`` lines for ``service`` (they add to what the file sets before them)."""
    name = service.course_id
    formgrade, enrolled = f"formgrade-{name}", f"nbgrader-{name}"
    graders = sorted({service.grader, *service.instructors})
    definition = {
        "name": name,
        "url": f"http://127.0.0.1:{service.port}",
        "command": [str(service.bin / SINGLEUSER)],
        "user": service.grader,
        "cwd": str(service.course),
        "environment": {
            "PATH": f"{service.bin}:{SYSTEM_PATH}",
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
        },
        "oauth_no_confirm": True,
    }
    groups = {formgrade: {"users": graders},
              enrolled: {"users": sorted(set(service.students) | set(service.instructors))}}
    roles = [
        {"name": formgrade, "groups": [formgrade], "scopes": [f"access:services!service={name}"]},
        {"name": enrolled, "groups": [enrolled], "scopes": ["list:services", f"read:services!service={name}"]},
        # the service's own token: nbgrader's JupyterHubAuthPlugin (the hub's nbgrader settings) asks the hub
        # for the grader's groups when the formgrader lists the assignments, and puts a student the formgrader
        # adds into the course's group
        {"name": f"{name}-service", "services": [name],
         "scopes": [f"read:users:groups!user={service.grader}", "list:groups", f"groups!group={enrolled}"]},
    ]
    lines = [
        f"# --- the course {name}: its formgrader as a hub service (python -m autograder hub-service) ---",
        "# It runs as the grader account, in the course folder, from the course's venv (the kit grades in its",
        "# sandbox; nbgrader finds alembic on PATH); the hub gives it its API token. Instructors open",
        f"# /services/{name}/formgrader/ (the Lab's Formgrader panel stays blank under JupyterHub >= 4.1).",
        f"c.JupyterHub.services.append({_python(definition)})",
        f"c.JupyterHub.load_groups.update({_python(groups)})",
        f"c.JupyterHub.load_roles.extend({_python(roles)})",
    ]
    if service.hub_roles:
        lines += [
            "# --- once per hub (leave out for a second course: --course-only): a user's server may read the",
            "# user's groups, from which nbgrader's JupyterHubAuthPlugin lists the user's courses",
            f"c.JupyterHub.load_roles.append({_python({'name': 'server', 'scopes': list(SERVER_SCOPES)})})",
        ]
    return "\n".join(lines) + "\n"


def _python(value: object, indent: str = "") -> str:
    """``value`` (dicts, lists, str, bool, int) as a Python literal: short ones on a line, else one item a line."""
    flat = repr(value)
    if len(indent) + len(flat) <= 80 or not isinstance(value, dict | list):
        return flat
    inner = indent + "    "
    if isinstance(value, dict):
        items = [f"{inner}{key!r}: {_python(item, inner)}," for key, item in value.items()]
        return "{\n" + "\n".join(items) + f"\n{indent}}}"
    items = [f"{inner}{_python(item, inner)}," for item in value]
    return "[\n" + "\n".join(items) + f"\n{indent}]"


def roster_users(path: Path) -> tuple[str, ...]:
    """The ids of a roster CSV file (the ``id`` column nbgrader's ``db student import`` reads), in its order.

    Raises
    ------
    UsageError
        If the file cannot be read or has no ``id`` column.
    """
    import csv

    try:
        with path.open(newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UsageError(f"--roster {path}: cannot read it ({type(error).__name__}: {error})") from None
    if not rows or "id" not in rows[0]:
        raise UsageError(f"--roster {path}: no id column (nbgrader's roster: id,first_name,last_name,email)")
    return tuple(dict.fromkeys(row["id"].strip() for row in rows if row["id"] and row["id"].strip()))
