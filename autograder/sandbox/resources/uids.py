"""User ids for sandboxes of a grader running as root, leased so that no two live sandboxes share one.

As root, sandboxed code runs under an unprivileged user id of its own. ``RLIMIT_NPROC`` counts the
processes of a *user id*, not of a sandbox: two sandboxes under the same id share one process budget,
so one student's fork bomb would starve another student's sandbox of processes and threads. Worker
slots of one grader already differ, but two graders on one machine (two tutors, the batch command
beside the formgrader's Autograde button, a test suite beside a demo) would each start at slot 0.
So every launch leases its id: an exclusive ``flock`` on a file per id in a root-only folder, held
until the run is over. The kernel drops the lock when its holder dies, so a crashed grader leaks
no id.

The ids must belong to no one: a sandbox whose id is a real account's (a local user, an LDAP user, a
group) would run the student's code as that account, with its files. The range is a machine's
setting (:data:`RANGE_VARIABLE`, graders that share ids must share it), and an id an account or a
group holds is refused, never used: the accounts the machine lists are checked once per process at the
first lease (``getpwall``/``getgrall``, which is fast), and every id leased is looked up by
itself (``getpwuid``/``getgrgid``, which also asks a directory that does not list its users).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import grp
import os
import pwd
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .limits import FIRST_SANDBOX_UID, SandboxUnavailable

#: How many user ids, from :data:`FIRST_SANDBOX_UID` on, the sandboxes may use by default.
SANDBOX_UIDS = 4096
#: Names the sandboxes' user ids as ``FIRST-LAST`` (both included) instead of the default range.
RANGE_VARIABLE = "NDCG_KIT_SANDBOX_UIDS"
#: The lowest id a range may start at: below it are the system's and the usual first users' ids.
LOWEST_FIRST_UID = 1000
#: Ids no range may hold: the kernel's "no id", ``(uid_t) -1`` and its 16-bit form.
_NEVER = frozenset({65535, 2**32 - 1})
#: Where the lock files live: ``/run`` is a root-owned tmpfs where there is one.
LEASE_FOLDER = "ndcg-kit-sandbox-uids"
#: Names another base folder for :data:`LEASE_FOLDER` (graders that share ids must share the folder).
LEASE_BASE_VARIABLE = "NDCG_KIT_UID_LEASES"


@dataclass
class UidLease:
    """One user id, reserved for one sandbox until :meth:`release`."""

    uid: int
    fd: int

    def release(self) -> None:
        """Give the id back (closing the lock file drops the lock)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@dataclass(frozen=True)
class UidRange:
    """The user ids the sandboxes may lease: ``first`` to ``last``, both included."""

    first: int
    last: int

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, int) and self.first <= uid <= self.last

    def __len__(self) -> int:
        return self.last - self.first + 1

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


def sandbox_uid_range() -> UidRange:
    """The sandboxes' user ids: :data:`RANGE_VARIABLE` if set, else :data:`SANDBOX_UIDS` from :data:`FIRST_SANDBOX_UID`.

    Raises
    ------
    SandboxUnavailable
        One line naming the variable, for a value that is not ``FIRST-LAST`` with
        :data:`LOWEST_FIRST_UID` <= FIRST <= LAST < 2**32 - 1.
    """
    text = os.environ.get(RANGE_VARIABLE, "").strip()
    if not text:
        return UidRange(FIRST_SANDBOX_UID, FIRST_SANDBOX_UID + SANDBOX_UIDS - 1)
    first, _, last = text.partition("-")
    if not (first.strip().isdecimal() and last.strip().isdecimal()):
        raise SandboxUnavailable(f"{RANGE_VARIABLE} must be FIRST-LAST, two user ids such as 61000-65095, got {text!r}")
    ids = UidRange(int(first), int(last))
    if not LOWEST_FIRST_UID <= ids.first <= ids.last < 2**32 - 1:
        raise SandboxUnavailable(
            f"{RANGE_VARIABLE}={text!r}: the range must start at {LOWEST_FIRST_UID} or above and end after it starts"
        )
    return ids


@functools.lru_cache(maxsize=4096)  # once per id and process: every run leases one, and a directory is slow
def _holder(uid: int) -> str | None:
    """Who holds ``uid`` on this machine (``user bob``, ``group staff``), or None: asked of the name service."""
    if uid in _NEVER:
        return "kernel's 'no id'"
    try:
        return f"user {pwd.getpwuid(uid).pw_name!r}"
    except KeyError:
        pass
    try:
        return f"group {grp.getgrgid(uid).gr_name!r}"
    except KeyError:
        return None


#: The ranges already checked against the accounts the machine lists, in this process.
_listed_checked: set[UidRange] = set()


def _refuse_taken(ids: UidRange, uid: int, holder: str) -> SandboxUnavailable:
    return SandboxUnavailable(
        f"sandbox user id {uid} (range {ids}) is the {holder} of this machine, and sandboxed code would run as it: "
        f"give the sandboxes ids no account or group holds, {RANGE_VARIABLE}=FIRST-LAST (docs/security.md)"
    )


def _check_listed_accounts(ids: UidRange) -> None:
    """Refuse ``ids`` when an account or group the machine lists holds one of them (once per range and process)."""
    if ids in _listed_checked:
        return
    for uid in sorted({entry.pw_uid for entry in pwd.getpwall()} | {entry.gr_gid for entry in grp.getgrall()}
                      | _NEVER):
        if uid in ids:
            raise _refuse_taken(ids, uid, _holder(uid) or "account")
    _listed_checked.add(ids)


def _lease_folder() -> Path:
    """The root-only folder of lock files, made if missing; refused if anyone else could write it."""
    base = os.environ.get(LEASE_BASE_VARIABLE) or (
        "/run" if os.path.isdir("/run") and os.access("/run", os.W_OK) else tempfile.gettempdir()
    )
    folder = Path(base) / LEASE_FOLDER
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        # someone else made it (a link, or a folder others may write): they could hold every id
        raise SandboxUnavailable(
            f"{folder} is not a folder that only this user can write: remove it (the grader makes it again)"
        )
    return folder


def lease_uid(first_choice: int) -> UidLease:
    """Lease a sandbox user id, trying the range's ``first + first_choice`` first (:func:`sandbox_uid_range`).

    Raises
    ------
    SandboxUnavailable
        If all the range's ids are in use, the range is not valid, or an account or group holds one of its ids.
    """
    ids = sandbox_uid_range()
    _check_listed_accounts(ids)
    folder = _lease_folder()
    for offset in range(len(ids)):
        uid = ids.first + (first_choice + offset) % len(ids)
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                continue  # a live sandbox has it
            raise
        if (holder := _holder(uid)) is not None:  # an account a directory holds without listing it
            os.close(fd)
            raise _refuse_taken(ids, uid, holder)
        return UidLease(uid, fd)
    raise SandboxUnavailable(f"all {len(ids)} sandbox user ids ({ids}) are in use by running sandboxes")
