"""A tiny assembler for classic BPF, the language of seccomp filters (linux/filter.h).

Only what a seccomp filter needs: load a 32-bit word of ``struct seccomp_data``, compare it with
a constant, jump, return. Conditional jumps here only ever skip 0 or 1 instructions (the
instruction after a test is either its own action or a jump), so every long distance is an
unconditional ``ja``, whose offset has 32 bits: a program of any size assembles without the
8-bit limit of conditional jumps getting in the way.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# instruction classes and modes (linux/bpf_common.h)
LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
JMP_JA = 0x05 | 0x00  # BPF_JMP | BPF_JA
JEQ_K = 0x05 | 0x10  # BPF_JMP | BPF_JEQ | BPF_K
JGT_K = 0x05 | 0x20
JGE_K = 0x05 | 0x30
JSET_K = 0x05 | 0x40
RET_K = 0x06

#: The kernel refuses longer programs (BPF_MAXINSNS).
MAX_INSTRUCTIONS = 4096


@dataclass(frozen=True)
class Instruction:
    """One ``struct sock_filter``: opcode, jump offsets if true / if false, constant."""

    code: int
    k: int = 0
    jt: int = 0
    jf: int = 0

    def encode(self) -> bytes:
        """The 8 bytes the kernel reads (native byte order)."""
        return struct.pack("=HBBI", self.code, self.jt, self.jf, self.k & 0xFFFFFFFF)


@dataclass(frozen=True)
class Label:
    """A place in the program that a :class:`JumpTo` can name."""

    name: str


@dataclass(frozen=True)
class JumpTo:
    """``ja`` to a :class:`Label` further down (resolved by :func:`assemble`)."""

    label: str


Item = Instruction | Label | JumpTo


def load(offset: int) -> Instruction:
    """Load the 32-bit word at ``offset`` of ``struct seccomp_data`` into the accumulator."""
    return Instruction(LD_W_ABS, offset)


def skip_unless(code: int, k: int) -> Instruction:
    """If the accumulator compares true with ``k``, run the next instruction; else skip it."""
    return Instruction(code, k, jt=0, jf=1)


def skip_if(code: int, k: int) -> Instruction:
    """If the accumulator compares true with ``k``, skip the next instruction; else run it."""
    return Instruction(code, k, jt=1, jf=0)


def ret(value: int) -> Instruction:
    """End the filter with ``value`` (a ``SECCOMP_RET_*`` action)."""
    return Instruction(RET_K, value)


def assemble(items: list[Item]) -> bytes:
    """The program as the kernel reads it, with every :class:`JumpTo` resolved.

    Raises
    ------
    ValueError
        For a jump backwards or to an unknown label, a duplicate label, a program that does not
        end with a return, or one longer than the kernel accepts.
    """
    where: dict[str, int] = {}
    count = 0
    for item in items:
        if isinstance(item, Label):
            if item.name in where:
                raise ValueError(f"label {item.name!r} defined twice")
            where[item.name] = count
        else:
            count += 1
    if count > MAX_INSTRUCTIONS:
        raise ValueError(f"the filter has {count} instructions; the kernel takes at most {MAX_INSTRUCTIONS}")
    program: list[Instruction] = []
    for item in items:
        if isinstance(item, Label):
            continue
        if isinstance(item, JumpTo):
            if item.label not in where:
                raise ValueError(f"jump to unknown label {item.label!r}")
            offset = where[item.label] - len(program) - 1
            if offset < 0:
                raise ValueError(f"jump backwards to {item.label!r}: BPF jumps only forwards")
            item = Instruction(JMP_JA, offset)
        program.append(item)
    if not program or program[-1].code != RET_K:
        raise ValueError("a filter must end with a return")
    return b"".join(instruction.encode() for instruction in program)
