"""The seccomp program decides every system call as the policy says (run here in a small BPF
interpreter, on both machines), and its system call numbers are the kernel's.

The real kernel runs the filter in tests/sandbox/test_threat_kernel_surface.py.
"""

from __future__ import annotations

import errno
import re
import struct
from pathlib import Path

import pytest

from autograder.sandbox.syscall_filter.bpf import JGE_K, Label, assemble, ret, skip_unless
from autograder.sandbox.syscall_filter.seccomp import (
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_ERRNO,
    UnsupportedMachine,
    sandbox_filter,
)
from autograder.sandbox.syscall_filter.seccomp_policy import ALLOWED, CHECKED, FALL_BACK, NAMESPACE_FLAGS, REFUSED
from autograder.sandbox.syscall_filter.syscalls import MACHINES, NUMBERS

ALLOW = SECCOMP_RET_ALLOW
EPERM = SECCOMP_RET_ERRNO | errno.EPERM
ENOSYS = SECCOMP_RET_ERRNO | errno.ENOSYS


def run(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """What the program returns for one system call (classic BPF as the kernel runs it for seccomp)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    code = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif op == 0x06:
            return k
        elif op == 0x05:
            pc += k
        else:
            taken = {0x15: accumulator == k, 0x25: accumulator > k, 0x35: accumulator >= k,
                     0x45: bool(accumulator & k)}[op]
            pc += jt if taken else jf


def expected(name: str | None, args: tuple[int, ...] = ()) -> int:
    """What the policy says, computed from its tables (not from the program)."""
    if name in ALLOWED:
        return ALLOW
    if name in FALL_BACK:
        return ENOSYS
    if name in CHECKED:
        rule = CHECKED[name]
        value = (list(args) + [0] * 6)[rule.argument] & 0xFFFFFFFF
        allowed = value in rule.values if hasattr(rule, "values") else not value & rule.mask
        return ALLOW if allowed else EPERM
    return EPERM


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_number_is_decided_as_the_policy_says(machine):
    known = MACHINES[machine]
    program = sandbox_filter(machine)
    names = {numbers[known.column]: name for name, numbers in NUMBERS.items() if numbers[known.column] is not None}
    for nr in range(known.known_up_to + 1):
        assert run(program, nr, known.audit_arch) == expected(names.get(nr)), (nr, names.get(nr))
    for nr in (known.known_up_to + 1, 1000, 0x3FFFFFFF):
        assert run(program, nr, known.audit_arch) == ENOSYS  # newer than us: libc falls back
    assert run(program, -1, known.audit_arch) in (EPERM, ENOSYS)  # 0xFFFFFFFF: x32's bit, or simply unknown


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_other_abis_are_refused(machine):
    known = MACHINES[machine]
    program = sandbox_filter(machine)
    read = NUMBERS["read"][known.column]
    for other in (0x40000003, 0x40000028, 0xC00000B7 if machine == "x86_64" else 0xC000003E):  # i386, arm, other
        assert run(program, read, other) == EPERM
    if known.foreign_bit is not None:  # x32: the x86-64 numbers with bit 30 set
        assert run(program, read | known.foreign_bit, known.audit_arch) == EPERM


@pytest.mark.parametrize("machine", sorted(MACHINES))
@pytest.mark.parametrize("name", sorted(CHECKED))
def test_checked_arguments(machine, name):
    known = MACHINES[machine]
    program = sandbox_filter(machine)
    number = NUMBERS[name][known.column]
    rule = CHECKED[name]
    probes = set(range(0, 64)) | set(range(1020, 1040)) | {0x5412, 0x53564D41, 0x59616D61} | set(getattr(rule, "values", ()))
    probes |= {1 << bit for bit in range(32)} | {NAMESPACE_FLAGS, 0x003D0F00 | 17}
    for value in probes:
        args = tuple(value if i == rule.argument else 0 for i in range(6))
        assert run(program, number, known.audit_arch, args) == expected(name, args), (name, hex(value))
        # the kernel reads these arguments as 32-bit: the upper half changes nothing
        high = tuple(a | (0xFFFF_FFFF << 32) if i == rule.argument else a for i, a in enumerate(args))
        assert run(program, number, known.audit_arch, high) == expected(name, args), (name, hex(value))


def test_the_families_of_the_threats_are_refused_and_the_basics_allowed():
    for name in REFUSED:
        assert name not in ALLOWED and name not in CHECKED and name not in FALL_BACK, name
    program = sandbox_filter("x86_64")
    arch = MACHINES["x86_64"].audit_arch

    def decide(name: str, *args: int) -> int:
        return run(program, NUMBERS[name][0], arch, args)

    assert decide("fcntl", 3, 1026) == EPERM  # F_NOTIFY
    assert decide("fcntl", 3, 6) == EPERM and decide("fcntl", 3, 37) == EPERM  # F_SETLK, F_OFD_SETLK
    assert decide("fcntl", 3, 1024) == EPERM and decide("fcntl", 3, 8) == EPERM  # F_SETLEASE, F_SETOWN
    assert decide("fcntl", 3, 1) == ALLOW and decide("fcntl", 3, 1030) == ALLOW  # F_GETFD, F_DUPFD_CLOEXEC
    assert decide("clone", 0x10000000 | 17) == EPERM  # CLONE_NEWUSER | SIGCHLD
    assert decide("clone", 0x003D0F00) == ALLOW  # a thread (glibc's pthread_create flags)
    assert decide("clone", 0x01200011) == ALLOW  # fork
    assert decide("clone3") == ENOSYS  # so that glibc uses clone, whose flags are checked
    assert decide("ioctl", 0, 0x5401) == ALLOW and decide("ioctl", 0, 0x5412) == EPERM  # TCGETS; TIOCSTI
    assert decide("socket", 16) == EPERM and decide("socket", 40) == EPERM  # netlink, vsock
    assert decide("madvise", 0, 0, 21) == EPERM and decide("madvise", 0, 0, 4) == ALLOW  # PAGEOUT; DONTNEED
    assert decide("prctl", 0x59616D61) == EPERM and decide("prctl", 15) == ALLOW  # PR_SET_PTRACER; PR_SET_NAME
    for name in ("read", "openat", "mmap", "futex", "getrandom", "rseq", "exit_group", "wait4", "execve"):
        assert decide(name) == ALLOW, name


def test_an_unknown_machine_gets_no_filter_and_a_clear_message():
    with pytest.raises(UnsupportedMachine, match=r"no seccomp system call table for this machine \(armv7l"):
        sandbox_filter("armv7l")


HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_the_numbers_are_the_kernel_headers(machine):
    header = HEADERS[machine]
    if not header.exists():
        pytest.skip(f"{header} is not installed (apt-get install linux-libc-dev)")
    found: dict[str, int] = {}
    for match in re.finditer(r"#define __NR(3264)?_(\w+)\s+(\d+)", header.read_text()):
        name = "newfstatat" if match[1] and match[2] == "fstatat" else match[2]
        if name != "syscalls":  # __NR_syscalls: the count, not a call
            found.setdefault(name, int(match[3]))
    column = MACHINES[machine].column
    compared = 0
    for name, numbers in NUMBERS.items():
        if name in found:
            assert numbers[column] == found[name], name
            compared += 1
        else:  # newer than the headers (from 451 on every machine has the same number), or absent here
            assert numbers[column] is None or numbers[column] > max(found.values()), name
    assert compared > 200


def test_the_assembler_refuses_what_the_kernel_would():
    with pytest.raises(ValueError, match="must end with a return"):
        assemble([skip_unless(JGE_K, 1)])
    with pytest.raises(ValueError, match="defined twice"):
        assemble([Label("a"), Label("a"), ret(0)])
