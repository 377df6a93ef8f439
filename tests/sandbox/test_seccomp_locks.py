"""Inside the sandbox, file locks and file watches are refused (a channel between concurrent sandboxes).

Each call is tried on a file the test created in the sandbox's own scratch home.
"""

from __future__ import annotations

import platform
import shutil

import pytest

from autograder.sandbox.isolation.bubblewrap import Bubblewrap
from autograder.sandbox.resources.limits import Limits
from autograder.sandbox.syscall_filter.syscalls import MACHINES

from grading_run import python_in_sandbox

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap"),
    pytest.mark.skipif(platform.machine() not in MACHINES, reason="no seccomp table for this machine"),
]

PROBE = r"""
import errno, fcntl, os, struct
path = os.path.join(os.getcwd(), "canary")
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
refused = {}
def attempt(name, call):
    try:
        call()
        refused[name] = False
    except OSError as error:
        refused[name] = error.errno == errno.EPERM
attempt("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
attempt("lockf", lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
attempt("F_GETLK", lambda: fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhllhh", fcntl.F_WRLCK, 0, 0, 0, 0, 0)))
attempt("F_OFD_SETLK", lambda: fcntl.fcntl(fd, 37, struct.pack("hhllhh", fcntl.F_WRLCK, 0, 0, 0, 0, 0)))
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def inotify():
    if libc.inotify_init1(0) < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
attempt("inotify_init1", inotify)
print(fcntl.fcntl(fd, fcntl.F_GETFL) >= 0, refused)  # other fcntl commands still work
"""


def test_file_locks_and_watches_are_refused_and_other_fcntl_works():
    done = python_in_sandbox(Bubblewrap("bwrap", Limits()), PROBE, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    works, refused = done.stdout.strip().split(" ", 1)
    assert works == "True"
    assert refused == str({"flock": True, "lockf": True, "F_GETLK": True, "F_OFD_SETLK": True, "inotify_init1": True})
