"""A seccomp filter for the sandbox: no kernel keyrings, no file locks, no file watches.

The kernel keyring of a user id outlives every process of that user (since Linux 5.3 it is kept
per user namespace), so without this a process that has seen hidden inputs could store them in
its user's keyring (``add_key``) for a later sandbox of the same worker slot to read back
(``keyctl``): a channel between runs, and between students. File locks and watches are a channel
between sandboxes that run at the same time: every sandbox sees the same read-only files (the
venv, ``/usr``), and a lock taken on one (``flock``, or ``fcntl``'s record locks, which a
read-only descriptor allows) or a watch on it (inotify, fanotify) is seen by every other one, so a
student's hidden-test process could spell out hidden inputs in locks for a classmate's
visible process to read back into their feedback. The filter makes ``add_key``, ``request_key``,
``keyctl``, ``flock``, the ``fcntl`` lock commands and the inotify/fanotify calls fail with
``EPERM``, refuses every system call of a foreign ABI (i386 on x86-64, x32), and allows the rest.
bubblewrap installs it (``--seccomp FD``) after setting ``no_new_privs``, before it runs anything
of the student's.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from dataclasses import dataclass

# classic BPF, as seccomp runs it (linux/filter.h, linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
#: struct seccomp_data: int nr at offset 0, __u32 arch at offset 4
_NR, _ARCH = 0, 4

#: struct seccomp_data: __u64 args[6] from offset 16; the low half of args[1] (little-endian machines)
_ARG1_LOW = 24


@dataclass(frozen=True)
class _Table:
    """One machine's audit architecture and system call numbers."""

    arch: int
    #: add_key, request_key, keyctl; flock; inotify_init (x86-64 only), inotify_init1, inotify_add_watch;
    #: fanotify_init
    denied: tuple[int, ...]
    fcntl: int


_TABLES = {
    "x86_64": _Table(0xC000003E, (248, 249, 250, 73, 253, 294, 254, 300), 72),
    "aarch64": _Table(0xC00000B7, (217, 218, 219, 32, 26, 27, 262), 25),
}
#: x32 system calls on x86-64 have this bit set: a second table the filter must not let through.
_X32_BIT = 0x40000000
#: fcntl's record-lock commands: F_GETLK, F_SETLK, F_SETLKW and their open-file-description forms.
_LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def keyring_filter(machine: str | None = None) -> bytes | None:
    """The filter program for this machine (None where its system call numbers are not known)."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    # Layout (jumps count the instructions skipped after the jump itself):
    #   0 load arch; 1 native? skip 1; 2 refuse (ENOSYS); 3 load nr; 4 x32 -> DENY;
    #   5.. each denied call -> DENY; F fcntl? skip the ALLOW; F+1 ALLOW;
    #   F+2 load args[1]; F+3.. each lock command -> DENY; ALLOW; DENY (EPERM)
    fcntl_at = 5 + len(table.denied)
    deny_at = fcntl_at + 4 + len(_LOCK_COMMANDS)

    def to_deny(at: int) -> int:
        return deny_at - at - 1

    program = [
        _instruction(_LD_W_ABS, _ARCH),
        _instruction(_JEQ_K, table.arch, jt=1, jf=0),  # the native ABI: go on; any other: refuse
        _instruction(_RET_K, _RET_ERRNO | errno.ENOSYS),
        _instruction(_LD_W_ABS, _NR),
        _instruction(_JGE_K, _X32_BIT, jt=to_deny(4), jf=0),  # x32 numbers
        *(_instruction(_JEQ_K, number, jt=to_deny(5 + i), jf=0) for i, number in enumerate(table.denied)),
        _instruction(_JEQ_K, table.fcntl, jt=1, jf=0),
        _instruction(_RET_K, _RET_ALLOW),
        _instruction(_LD_W_ABS, _ARG1_LOW),
        *(_instruction(_JEQ_K, cmd, jt=to_deny(fcntl_at + 3 + i), jf=0) for i, cmd in enumerate(_LOCK_COMMANDS)),
        _instruction(_RET_K, _RET_ALLOW),
        _instruction(_RET_K, _RET_ERRNO | errno.EPERM),
    ]
    return b"".join(program)


def filter_fd(program: bytes) -> int:
    """A file descriptor holding ``program`` at offset 0, for ``bwrap --seccomp FD`` (close it after)."""
    fd = os.memfd_create("ndcg-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd
