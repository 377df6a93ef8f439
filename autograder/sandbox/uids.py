"""User ids for sandboxes of a grader running as root, leased so that no two live sandboxes share one.

As root, sandboxed code runs under an unprivileged user id of its own. ``RLIMIT_NPROC`` counts the
processes of a *user id*, not of a sandbox: two sandboxes under the same id share one process budget,
so one student's fork bomb would starve another student's sandbox of processes and threads. Worker
slots of one grader already differ, but two graders on one machine (two tutors, the batch command
beside the formgrader's Autograde button, a test suite beside a demo) would each start at slot 0.
So every launch leases its id: an exclusive ``flock`` on a file per id in a root-only folder, held
until the run is over. The kernel drops the lock when its holder dies, so a crashed grader leaks
no id.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .limits import FIRST_SANDBOX_UID, SandboxUnavailable

#: How many user ids, from :data:`FIRST_SANDBOX_UID` on, the sandboxes may use.
SANDBOX_UIDS = 4096
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
    """Lease a sandbox user id, trying ``FIRST_SANDBOX_UID + first_choice`` first.

    Raises
    ------
    SandboxUnavailable
        If all :data:`SANDBOX_UIDS` ids are in use.
    """
    folder = _lease_folder()
    for offset in range(SANDBOX_UIDS):
        uid = FIRST_SANDBOX_UID + (first_choice + offset) % SANDBOX_UIDS
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                continue  # a live sandbox has it
            raise
        return UidLease(uid, fd)
    raise SandboxUnavailable(f"all {SANDBOX_UIDS} sandbox user ids are in use by running sandboxes")
