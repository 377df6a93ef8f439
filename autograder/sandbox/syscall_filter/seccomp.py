"""The sandbox's seccomp filter: an allowlist of system calls, everything else refused with EPERM.

bubblewrap installs it (``--seccomp FD``) after setting ``no_new_privs``, in its init process and
just before it executes the launch command, so it holds for everything that runs in the sandbox:
``setpriv`` (as root), Python, the student's code and whatever that starts. What is allowed and
why is :mod:`.seccomp_policy`; the numbers are :mod:`.syscalls`; this module compiles them into
classic BPF (:mod:`.bpf`) for x86-64 and aarch64, and refuses to guess on any other machine.

The program:

1. a system call of another ABI (i386 on x86-64, 32-bit Arm on aarch64) is refused, and so is an
   x32 one on x86-64 (its numbers have bit 30 set);
2. a number beyond the newest known to us gets ``ENOSYS`` (a future libc falls back);
3. the number is looked up in a binary search over the allowed calls (a few comparisons per
   call, not hundreds): allowed, ``ENOSYS`` (:data:`.seccomp_policy.FALL_BACK`), or on to the
   check of its arguments;
4. everything else is refused with ``EPERM``.
"""

from __future__ import annotations

import errno
import os
import platform
import sys

from .bpf import JEQ_K, JGE_K, JGT_K, JSET_K, Item, JumpTo, Label, assemble, load, ret, skip_if, skip_unless
from .seccomp_policy import ALLOWED, CHECKED, FALL_BACK, NoBits
from .syscalls import MACHINES, NUMBERS, Machine

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
ALLOW = ret(SECCOMP_RET_ALLOW)
REFUSE = ret(SECCOMP_RET_ERRNO | errno.EPERM)
UNKNOWN = ret(SECCOMP_RET_ERRNO | errno.ENOSYS)

# struct seccomp_data (linux/seccomp.h): int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH, _ARGS = 0, 4, 16
#: Comparisons at the bottom of the search, before it is cheaper to branch again.
_LEAF = 4


class UnsupportedMachine(RuntimeError):
    """No system call table for this machine: the filter cannot be built."""


def _low_word(argument: int) -> int:
    """Offset of the low 32 bits of ``args[argument]`` (the machines here are little-endian)."""
    return _ARGS + 8 * argument


def _check(name: str) -> list[Item]:
    """The block that decides one call by its argument (the accumulator is loaded here)."""
    rule = CHECKED[name]
    items: list[Item] = [Label(f"check {name}"), load(_low_word(rule.argument))]
    if isinstance(rule, NoBits):
        return [*items, skip_if(JSET_K, rule.mask), ALLOW, REFUSE]
    for value in sorted(rule.values):
        items += [skip_unless(JEQ_K, value), ALLOW]
    return [*items, REFUSE]


def _search(entries: list[tuple[int, Item]]) -> list[Item]:
    """Binary search over ``(number, action)`` sorted by number; a number not among them is refused."""
    if len(entries) <= _LEAF:
        items: list[Item] = []
        for number, action in entries:
            items += [skip_unless(JEQ_K, number), action]
        return [*items, REFUSE]
    middle = len(entries) // 2
    upper = f"from {entries[middle][0]}"
    # number >= middle: jump to the upper half; else fall through into the lower half
    return [
        skip_unless(JGE_K, entries[middle][0]), JumpTo(upper),
        *_search(entries[:middle]),
        Label(upper), *_search(entries[middle:]),
    ]


def _actions(machine: Machine) -> list[tuple[int, Item]]:
    actions: dict[str, Item] = {name: ALLOW for name in ALLOWED}
    actions.update({name: UNKNOWN for name in FALL_BACK})
    actions.update({name: JumpTo(f"check {name}") for name in CHECKED})
    numbered = []
    for name, action in actions.items():
        number = NUMBERS[name][machine.column]
        if number is not None:
            numbered.append((number, action))
    return sorted(numbered, key=lambda entry: entry[0])


def sandbox_filter(machine: str | None = None) -> bytes:
    """The filter program for ``machine`` (default: this one), for ``bwrap --seccomp``.

    Raises
    ------
    UnsupportedMachine
        On a machine other than x86-64 and aarch64 (little-endian), with a message saying so.
    """
    name = machine or platform.machine()
    known = MACHINES.get(name)
    if known is None or sys.byteorder != "little":
        supported = " and ".join(MACHINES)
        raise UnsupportedMachine(
            f"no seccomp system call table for this machine ({name}, {sys.byteorder}-endian; known: {supported}): "
            "the bubblewrap sandbox runs without its system call allowlist"
        )
    actions = _actions(known)
    items: list[Item] = [
        load(_ARCH), skip_if(JEQ_K, known.audit_arch), REFUSE,  # another ABI
        load(_NR),
    ]
    if known.foreign_bit is not None:
        items += [skip_unless(JSET_K, known.foreign_bit), REFUSE]  # x32
    items += [skip_unless(JGT_K, known.known_up_to), UNKNOWN]
    items += _search(actions)
    for checked in sorted(CHECKED):
        if NUMBERS[checked][known.column] is not None:
            items += _check(checked)
    return assemble(items)


def filter_fd(program: bytes) -> int:
    """A file descriptor holding ``program`` at offset 0, for ``bwrap --seccomp FD`` (close it after)."""
    fd = os.memfd_create("ndcg-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd
