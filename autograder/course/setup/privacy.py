"""Whether other accounts of this machine can read the course folder, which holds the hidden tests.

The course folder is the tutor's checkout: the source notebook with its hidden tests, the exercise's
cases, the gradebook, every student's work. On a shared machine or a JupyterHub with the usual 0755
homes, any account (an enrolled student or not) could read all of it. A path is open to another
account when every folder from ``/`` down to the course folder lets it in (search permission, ``x``):
to all accounts through the "others" bits, or to the members of the folder's group when that group
has a member other than the folder's owner. One closed folder on the way is enough (a 0700 home, or
the course folder itself at 0700). Access control lists are not read: a folder closed by its mode
but opened by an ACL entry is taken as closed.

Grading, releasing and nbgrader's autograde (the command and the formgrader's button) refuse such a
course in one line naming the ``chmod`` that closes it, or, where the tutor allows it explicitly
(``--allow-readable-course``, ``c.CoursePrivacy.allow_readable_course = True``), warn once.
"""

from __future__ import annotations

import grp
import os
import pwd
import shlex
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from traitlets import Bool
from traitlets.config import LoggingConfigurable

from ...errors import CourseError

#: The command-line option that lets a command go on (with a warning) in a course other accounts can read.
ALLOW_OPTION = "--allow-readable-course"
#: The same for nbgrader's commands and the formgrader, in the course's ``nbgrader_config.py``.
ALLOW_SETTING = "c.CoursePrivacy.allow_readable_course = True"


class CoursePrivacy(LoggingConfigurable):
    """The course's setting for a course folder other accounts can read (``c.CoursePrivacy`` in nbgrader_config.py)."""

    allow_readable_course = Bool(
        False,
        help="Grade and release in a course folder other accounts of this machine can read, with a warning, instead of "
        "refusing (it holds the hidden tests and every student's work).",
    ).tag(config=True)


@dataclass(frozen=True)
class OpenWay:
    """A course folder other accounts can reach: each folder on the way and how it lets them in."""

    course: Path
    #: ``(folder, mode, who)`` from ``/`` down to the course folder; who: ``"all accounts"`` or ``"group NAME"``.
    folders: tuple[tuple[Path, int, str], ...]

    def problem(self) -> str:
        """One sentence: which folder is open, and the ``chmod`` that closes the course."""
        mode, who = self.folders[-1][1], self.folders[-1][2]
        return (
            f"the course folder {self.course} (mode {mode:04o}) can be read by other accounts of this machine ({who}; "
            "every folder above it lets them in), and it holds the hidden tests and every student's work: "
            f"close it with `chmod 700 {shlex.quote(str(self.course))}`"
        )


def _others_in_group(gid: int, owner: int) -> bool:
    """Whether group ``gid`` has a member other than the account ``owner`` (by its list or as a primary group)."""
    try:
        members = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        return False  # a number no group has: no account is in it by name
    members |= {entry.pw_name for entry in pwd.getpwall() if entry.pw_gid == gid}
    try:
        members.discard(pwd.getpwuid(owner).pw_name)
    except KeyError:
        pass
    return bool(members)


def _who_may_enter(info: os.stat_result) -> str | None:
    """Which other accounts may search a folder of this mode and owner, or None."""
    if info.st_mode & stat.S_IXOTH:
        return "all accounts"
    if info.st_mode & stat.S_IXGRP and _others_in_group(info.st_gid, info.st_uid):
        try:
            return f"group {grp.getgrgid(info.st_gid).gr_name}"
        except KeyError:  # pragma: no cover — _others_in_group found the group
            return f"group {info.st_gid}"
    return None


def open_way(course: Path) -> OpenWay | None:
    """How other accounts reach ``course`` (every folder on the way lets them in), or None if one folder keeps them out.

    Parameters
    ----------
    course : Path
        The course folder; made absolute and resolved (links are followed: the way that counts is the real one).

    Returns
    -------
    OpenWay or None
    """
    course = course.resolve()
    folders = []
    for folder in (*reversed(course.parents), course):
        info = os.stat(folder)
        who = _who_may_enter(info)
        if who is None:
            return None
        folders.append((folder, stat.S_IMODE(info.st_mode), who))
    return OpenWay(course, tuple(folders))


_warned: set[Path] = set()


def check_course_privacy(course: Path, *, allow: bool, warn: Callable[[str], None] | None = None) -> None:
    """Refuse a course folder other accounts can read, or (``allow``) warn once per process and course.

    Parameters
    ----------
    course : Path
        The course folder.
    allow : bool
        Go on with a warning instead of refusing (:data:`ALLOW_OPTION`, :data:`ALLOW_SETTING`).
    warn : callable, optional
        Where the warning goes (default: one line on standard error).

    Raises
    ------
    CourseError
        When the course is readable by other accounts and ``allow`` is false: one line naming the folder,
        the ``chmod`` that closes it and the two ways to go on anyway.
    """
    way = open_way(course)
    if way is None:
        return
    if not allow:
        raise CourseError(f"{way.problem()} (or, to go on anyway, pass {ALLOW_OPTION} or set {ALLOW_SETTING})")
    if way.course not in _warned:
        _warned.add(way.course)
        (warn or (lambda text: print(text, file=sys.stderr)))(f"warning: {way.problem()}")


def check_course_folder(course: Path, flag: bool | None) -> None:
    """:func:`check_course_privacy` as the kit's commands decide it: ``flag`` (the command line's) if given,
    else the course's ``c.CoursePrivacy.allow_readable_course``.

    Raises
    ------
    CourseError
        See :func:`check_course_privacy`; also when the course's ``nbgrader_config.py`` does not load.
    """
    from ...course_config import course_config  # here: loading the course's config imports nbgrader (seconds)

    allow = bool(CoursePrivacy(config=course_config(course)).allow_readable_course) if flag is None else flag
    check_course_privacy(course, allow=allow)
