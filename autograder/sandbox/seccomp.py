"""A seccomp filter for the sandbox: no kernel keyrings.

The kernel keyring of a user id outlives every process of that user (since Linux 5.3 it is kept
per user namespace), so without this a process that has seen hidden inputs could store them in
its user's keyring (``add_key``) for a later sandbox of the same worker slot to read back
(``keyctl``): a channel between runs, and between students. The filter makes ``add_key``,
``request_key`` and ``keyctl`` fail with ``EPERM``, refuses every system call of a foreign ABI
(i386 on x86-64, x32), and allows the rest. bubblewrap installs it (``--seccomp FD``) after
setting ``no_new_privs``, before it runs anything of the student's.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

# classic BPF, as seccomp runs it (linux/filter.h, linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
#: struct seccomp_data: int nr at offset 0, __u32 arch at offset 4
_NR, _ARCH = 0, 4

#: (AUDIT_ARCH_*, numbers of add_key, request_key, keyctl) per machine.
_TABLES = {
    "x86_64": (0xC000003E, (248, 249, 250)),
    "aarch64": (0xC00000B7, (217, 218, 219)),
}
#: x32 system calls on x86-64 have this bit set: a second table the filter must not let through.
_X32_BIT = 0x40000000


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def keyring_filter(machine: str | None = None) -> bytes | None:
    """The filter program for this machine (None where its system call numbers are not known)."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, numbers = table
    deny = _RET_ERRNO | errno.EPERM
    program = [
        _instruction(_LD_W_ABS, _ARCH),
        _instruction(_JEQ_K, arch, jt=1, jf=0),  # the native ABI: go on; any other: refuse
        _instruction(_RET_K, _RET_ERRNO | errno.ENOSYS),
        _instruction(_LD_W_ABS, _NR),
        _instruction(_JGE_K, _X32_BIT, jt=len(numbers) + 1, jf=0),  # x32 numbers: to the refusal
    ]
    for position, number in enumerate(numbers):
        # on a match jump to the refusal, which sits after the remaining tests and the allow
        program.append(_instruction(_JEQ_K, number, jt=len(numbers) - position, jf=0))
    program += [_instruction(_RET_K, _RET_ALLOW), _instruction(_RET_K, deny)]
    return b"".join(program)


def filter_fd(program: bytes) -> int:
    """A file descriptor holding ``program`` at offset 0, for ``bwrap --seccomp FD`` (close it after)."""
    fd = os.memfd_create("ndcg-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd
