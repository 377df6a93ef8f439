"""What sandboxed code may ask of the kernel: an allowlist of system calls, some with checked arguments.

Everything not listed here is refused with ``EPERM`` (a library that tries something unusual gets
an error it can handle, not a killed process). The list is what CPython, numpy, matplotlib (Agg),
IPython (for ``%magic`` cells and ``!cmd``), scikit-learn/scipy, the runner and the launch
wrappers (``setpriv``, bubblewrap's own init process) were seen to make under ``strace``
(``scripts/trace_sandbox_syscalls.py``), with margin for what glibc does in ordinary programs
(threads, fork and exec, pipes, polling, timers, signals, System V IPC in the sandbox's own IPC
namespace, Unix and loopback sockets in its own network namespace).

What is refused, and why it matters here (docs/security.md, "Channels between runs"):

- shared state that outlives a run or is seen by concurrent sandboxes: file locks (``flock``,
  ``fcntl`` locks and leases), directory and file watches (``fcntl(F_NOTIFY)``, inotify,
  fanotify), kernel keyrings, signal ownership of files (``F_SETOWN``, ``F_SETSIG``), POSIX
  message queues, memory deduplication (``MADV_MERGEABLE``);
- probing or steering the page cache: ``mincore``, ``posix_fadvise``, ``readahead``,
  ``cachestat``, ``preadv2``'s ``RWF_NOWAIT``, ``madvise`` advice that reads ahead or evicts
  (``MADV_WILLNEED``, ``MADV_COLD``, ``MADV_PAGEOUT``, the populate advice), ``mlock``;
- new namespaces and mounts: ``unshare``, ``setns``, ``clone`` with a namespace flag, ``mount``
  and the new mount API, ``chroot``, ``pivot_root``;
- kernel attack surface no honest notebook needs: ``io_uring``, ``userfaultfd``, ``bpf``,
  ``perf_event_open``, Linux AIO, ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``,
  ``pidfd_getfd``, modules, ``kexec``, ``splice``/``vmsplice``/``tee``, ``seccomp`` itself,
  sockets other than Unix, IPv4 and IPv6 (netlink, packet, vsock, ``AF_ALG``), terminal input
  injection (``TIOCSTI``), clock and host settings.

A few calls get ``ENOSYS`` instead (:data:`FALL_BACK`): glibc tries ``clone3`` first and falls
back to ``clone`` (whose flags a filter can read; ``clone3`` passes them in memory) only when the
kernel says it does not know ``clone3``; likewise ``preadv2``/``pwritev2`` (glibc then does a plain
``preadv`` for the flag-less case and refuses ``RWF_NOWAIT``, a page-cache probe). System call
numbers newer than the table (:data:`.syscalls.KNOWN_UP_TO`) also get ``ENOSYS``, so that a
future libc falls back as it would on an older kernel.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OneOf:
    """Allowed when the low 32 bits of argument ``argument`` (0-based) are one of ``values``.

    The kernel reads every argument checked here as a 32-bit ``int``/``unsigned int`` (ioctl's and
    fcntl's command, prctl's option, madvise's advice, socket's family), so the upper half of the
    64-bit register cannot smuggle a different command past the check.
    """

    argument: int
    values: frozenset[int]


@dataclass(frozen=True)
class NoBits:
    """Allowed when none of ``mask`` is set in the low 32 bits of argument ``argument``."""

    argument: int
    mask: int


ArgumentRule = OneOf | NoBits

_ALLOWED_NAMES = """
    read write readv writev pread64 pwrite64 preadv pwritev
    open openat openat2 creat close close_range lseek dup dup2 dup3 pipe pipe2
    stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2
    readlink readlinkat getdents getdents64 getcwd chdir fchdir
    mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat
    chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat umask
    truncate ftruncate fallocate fsync fdatasync sync_file_range
    utime utimes utimensat futimesat sendfile copy_file_range mknod mknodat
    getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr
    setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr
    select pselect6 poll ppoll epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
    eventfd eventfd2 timerfd_create timerfd_settime timerfd_gettime signalfd signalfd4
    mmap munmap mprotect mremap brk msync membarrier mbind get_mempolicy set_mempolicy memfd_create
    pkey_alloc pkey_free pkey_mprotect map_shadow_stack mseal
    fork vfork execve execveat exit exit_group wait4 waitid kill tkill tgkill
    pidfd_open pidfd_send_signal restart_syscall
    getpid getppid gettid getpgid getpgrp setpgid getsid setsid
    getuid geteuid getgid getegid getresuid getresgid getgroups
    setuid setgid setreuid setregid setresuid setresgid setgroups capget capset
    arch_prctl set_tid_address set_robust_list rseq
    futex futex_waitv futex_wake futex_wait futex_requeue
    sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_getscheduler
    sched_get_priority_max sched_get_priority_min sched_rr_get_interval getpriority setpriority
    getrlimit setrlimit prlimit64 getrusage times sysinfo uname getcpu
    clock_gettime clock_getres clock_nanosleep nanosleep gettimeofday time alarm getitimer setitimer
    timer_create timer_settime timer_gettime timer_getoverrun timer_delete
    rt_sigaction rt_sigprocmask rt_sigreturn rt_sigsuspend rt_sigpending rt_sigtimedwait
    rt_sigqueueinfo rt_tgsigqueueinfo sigaltstack pause
    getrandom
    socketpair connect bind listen accept accept4 sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg
    shutdown getsockname getpeername setsockopt getsockopt
    shmget shmat shmdt shmctl semget semop semtimedop semctl msgget msgsnd msgrcv msgctl
"""
#: Allowed whatever their arguments (names as in the x86-64 table; those an architecture lacks are skipped).
ALLOWED: frozenset[str] = frozenset(_ALLOWED_NAMES.split())

# fcntl: descriptor flags, status flags, duplicating, pipe sizes, memfd seals. Not the record
# locks (F_GETLK 5 .. F_SETLKW 7, F_OFD_* 36..38), F_SETOWN/F_GETOWN/F_SETSIG/F_GETSIG (8..11,
# 15..17), leases (1024, 1025), F_NOTIFY (1026) or F_CANCELLK (1029).
_FCNTL = frozenset({0, 1, 2, 3, 4, 1030, 1031, 1032, 1033, 1034})

# ioctl: the terminal requests isatty, termios and pseudo-terminals use (IPython's `!cmd` runs
# through a pty of the sandbox's own /dev/pts), FIONREAD, FIONBIO, FIOCLEX/FIONCLEX.
_IOCTL = frozenset({
    0x5401, 0x5402, 0x5403, 0x5404,  # TCGETS, TCSETS, TCSETSW, TCSETSF
    0x802C542A, 0x402C542B, 0x402C542C, 0x402C542D,  # TCGETS2, TCSETS2, TCSETSW2, TCSETSF2
    0x540B, 0x540E, 0x540F, 0x5410,  # TCFLSH, TIOCSCTTY, TIOCGPGRP, TIOCSPGRP
    0x5413, 0x5414, 0x541B, 0x5421,  # TIOCGWINSZ, TIOCSWINSZ, FIONREAD, FIONBIO
    0x80045430, 0x40045431, 0x5441,  # TIOCGPTN, TIOCSPTLCK, TIOCGPTPEER
    0x5450, 0x5451,  # FIONCLEX, FIOCLEX
})

# prctl: what setpriv does to drop privileges, thread names, and harmless queries.
_PRCTL = frozenset({
    1, 2, 3, 7, 8,  # PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_GET_KEEPCAPS, PR_SET_KEEPCAPS
    15, 16, 21, 23, 24,  # PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP, PR_CAPBSET_READ, PR_CAPBSET_DROP
    27, 28, 30, 38, 39,  # PR_GET/SET_SECUREBITS, PR_GET_TIMERSLACK, PR_SET/GET_NO_NEW_PRIVS
    42, 47, 0x53564D41,  # PR_GET_THP_DISABLE, PR_CAP_AMBIENT, PR_SET_VMA (glibc names its mappings)
})

# madvise: what allocators and numpy use (MADV_DONTNEED, MADV_FREE, MADV_HUGEPAGE, ...). Not
# MADV_WILLNEED (3: reads a file into the page cache), MADV_MERGEABLE (12: memory deduplication
# across processes), MADV_COLD/MADV_PAGEOUT (20, 21: evict), MADV_POPULATE_* (22, 23),
# MADV_COLLAPSE (25), MADV_HWPOISON/MADV_SOFT_OFFLINE (100, 101).
_MADVISE = frozenset({0, 1, 2, 4, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 102, 103})

#: clone flags that make a namespace: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

#: Allowed only with these arguments.
CHECKED: dict[str, ArgumentRule] = {
    "fcntl": OneOf(1, _FCNTL),
    "ioctl": OneOf(1, _IOCTL),
    "prctl": OneOf(0, _PRCTL),
    "madvise": OneOf(2, _MADVISE),
    "clone": NoBits(0, NAMESPACE_FLAGS),  # threads and fork, never a new namespace
    "socket": OneOf(0, frozenset({1, 2, 10})),  # AF_UNIX, AF_INET, AF_INET6 (in the sandbox's own network)
}

#: Answered with ENOSYS, so that glibc falls back to a call the filter can check (see the module's docstring).
FALL_BACK: frozenset[str] = frozenset({"clone3", "preadv2", "pwritev2"})

#: Refused families the hostile suite probes from inside the sandbox (each must fail with EPERM).
REFUSED: tuple[str, ...] = (
    "flock", "inotify_init1", "fanotify_init", "unshare", "setns", "mount", "io_uring_setup",
    "userfaultfd", "mincore", "fadvise64", "readahead", "keyctl", "add_key", "request_key", "bpf",
    "perf_event_open", "ptrace", "process_vm_readv", "process_vm_writev", "kexec_load", "mlock",
    "io_setup", "splice", "seccomp", "cachestat", "pidfd_getfd", "kcmp",
)
