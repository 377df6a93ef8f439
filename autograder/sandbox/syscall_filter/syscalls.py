"""System call numbers of the machines the seccomp filter knows: x86-64 and aarch64 (64-bit Arm).

Only the calls :mod:`.seccomp_policy` names. ``NUMBERS[name] = (x86-64, aarch64)``, ``None`` where
the architecture has no such call (aarch64 has only the ``*at`` forms of the old file calls, no
``fork``, ``pipe`` or ``poll``). Taken from the kernel's headers (``asm/unistd_64.h`` and
``asm-generic/unistd.h`` of Linux 6.1; numbers from 424 on are the same on every architecture,
451-462 from the kernel's own table); ``tests/sandbox/test_seccomp_filter.py`` compares them with
the headers installed on the machine where they exist.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    """One architecture as seccomp sees it."""

    #: ``platform.machine()``
    name: str
    #: ``AUDIT_ARCH_*``: what ``seccomp_data.arch`` holds for a system call of this ABI.
    audit_arch: int
    #: Position in the pairs of :data:`NUMBERS`.
    column: int
    #: Numbers with this bit set are another ABI sharing the architecture (x32 on x86-64), refused.
    foreign_bit: int | None
    #: The highest system call number the running kernels we know have (Linux 6.18: 469).
    known_up_to: int = 469


MACHINES = {
    "x86_64": Machine("x86_64", 0xC000003E, 0, foreign_bit=0x40000000),
    "aarch64": Machine("aarch64", 0xC00000B7, 1, foreign_bit=None),
}

NUMBERS: dict[str, tuple[int | None, int | None]] = {
    "accept": (43, 202), "accept4": (288, 242), "access": (21, None), "add_key": (248, 217), "alarm": (37, None),
    "arch_prctl": (158, None), "bind": (49, 200), "bpf": (321, 280), "brk": (12, 214), "cachestat": (451, 451),
    "capget": (125, 90), "capset": (126, 91), "chdir": (80, 49), "chmod": (90, None), "chown": (92, None),
    "clock_getres": (229, 114), "clock_gettime": (228, 113), "clock_nanosleep": (230, 115), "clone": (56, 220),
    "clone3": (435, 435), "close": (3, 57), "close_range": (436, 436), "connect": (42, 203),
    "copy_file_range": (326, 285), "creat": (85, None), "dup": (32, 23), "dup2": (33, None), "dup3": (292, 24),
    "epoll_create": (213, None), "epoll_create1": (291, 20), "epoll_ctl": (233, 21), "epoll_pwait": (281, 22),
    "epoll_pwait2": (441, 441), "epoll_wait": (232, None), "eventfd": (284, None), "eventfd2": (290, 19),
    "execve": (59, 221), "execveat": (322, 281), "exit": (60, 93), "exit_group": (231, 94), "faccessat": (269, 48),
    "faccessat2": (439, 439), "fadvise64": (221, 223), "fallocate": (285, 47), "fanotify_init": (300, 262),
    "fchdir": (81, 50), "fchmod": (91, 52), "fchmodat": (268, 53), "fchmodat2": (452, 452), "fchown": (93, 55),
    "fchownat": (260, 54), "fcntl": (72, 25), "fdatasync": (75, 83), "fgetxattr": (193, 10), "flistxattr": (196, 13),
    "flock": (73, 32), "fork": (57, None), "fremovexattr": (199, 16), "fsetxattr": (190, 7), "fstat": (5, 80),
    "fstatfs": (138, 44), "fsync": (74, 82), "ftruncate": (77, 46), "futex": (202, 98), "futex_requeue": (456, 456),
    "futex_wait": (455, 455), "futex_waitv": (449, 449), "futex_wake": (454, 454), "futimesat": (261, None),
    "get_mempolicy": (239, 236), "getcpu": (309, 168), "getcwd": (79, 17), "getdents": (78, None),
    "getdents64": (217, 61), "getegid": (108, 177), "geteuid": (107, 175), "getgid": (104, 176),
    "getgroups": (115, 158), "getitimer": (36, 102), "getpeername": (52, 205), "getpgid": (121, 155),
    "getpgrp": (111, None), "getpid": (39, 172), "getppid": (110, 173), "getpriority": (140, 141),
    "getrandom": (318, 278), "getresgid": (120, 150), "getresuid": (118, 148), "getrlimit": (97, 163),
    "getrusage": (98, 165), "getsid": (124, 156), "getsockname": (51, 204), "getsockopt": (55, 209),
    "gettid": (186, 178), "gettimeofday": (96, 169), "getuid": (102, 174), "getxattr": (191, 8),
    "inotify_init1": (294, 26), "io_setup": (206, 0), "io_uring_setup": (425, 425), "ioctl": (16, 29),
    "kcmp": (312, 272), "kexec_load": (246, 104), "keyctl": (250, 219), "kill": (62, 129), "lchown": (94, None),
    "lgetxattr": (192, 9), "link": (86, None), "linkat": (265, 37), "listen": (50, 201), "listxattr": (194, 11),
    "llistxattr": (195, 12), "lremovexattr": (198, 15), "lseek": (8, 62), "lsetxattr": (189, 6), "lstat": (6, None),
    "madvise": (28, 233), "map_shadow_stack": (453, 453), "mbind": (237, 235), "membarrier": (324, 283),
    "memfd_create": (319, 279), "mincore": (27, 232), "mkdir": (83, None), "mkdirat": (258, 34), "mknod": (133, None),
    "mknodat": (259, 33), "mlock": (149, 228), "mmap": (9, 222), "mount": (165, 40), "mprotect": (10, 226),
    "mremap": (25, 216), "mseal": (462, 462), "msgctl": (71, 187), "msgget": (68, 186), "msgrcv": (70, 188),
    "msgsnd": (69, 189), "msync": (26, 227), "munmap": (11, 215), "nanosleep": (35, 101), "newfstatat": (262, 79),
    "open": (2, None), "openat": (257, 56), "openat2": (437, 437), "pause": (34, None), "perf_event_open": (298, 241),
    "pidfd_getfd": (438, 438), "pidfd_open": (434, 434), "pidfd_send_signal": (424, 424), "pipe": (22, None),
    "pipe2": (293, 59), "pkey_alloc": (330, 289), "pkey_free": (331, 290), "pkey_mprotect": (329, 288),
    "poll": (7, None), "ppoll": (271, 73), "prctl": (157, 167), "pread64": (17, 67), "preadv": (295, 69),
    "preadv2": (327, 286), "prlimit64": (302, 261), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pselect6": (270, 72), "ptrace": (101, 117), "pwrite64": (18, 68), "pwritev": (296, 70), "pwritev2": (328, 287),
    "read": (0, 63), "readahead": (187, 213), "readlink": (89, None), "readlinkat": (267, 78), "readv": (19, 65),
    "recvfrom": (45, 207), "recvmmsg": (299, 243), "recvmsg": (47, 212), "removexattr": (197, 14),
    "rename": (82, None), "renameat": (264, 38), "renameat2": (316, 276), "request_key": (249, 218),
    "restart_syscall": (219, 128), "rmdir": (84, None), "rseq": (334, 293), "rt_sigaction": (13, 134),
    "rt_sigpending": (127, 136), "rt_sigprocmask": (14, 135), "rt_sigqueueinfo": (129, 138),
    "rt_sigreturn": (15, 139), "rt_sigsuspend": (130, 133), "rt_sigtimedwait": (128, 137),
    "rt_tgsigqueueinfo": (297, 240), "sched_get_priority_max": (146, 125), "sched_get_priority_min": (147, 126),
    "sched_getaffinity": (204, 123), "sched_getparam": (143, 121), "sched_getscheduler": (145, 120),
    "sched_rr_get_interval": (148, 127), "sched_setaffinity": (203, 122), "sched_yield": (24, 124),
    "seccomp": (317, 277), "select": (23, None), "semctl": (66, 191), "semget": (64, 190), "semop": (65, 193),
    "semtimedop": (220, 192), "sendfile": (40, 71), "sendmmsg": (307, 269), "sendmsg": (46, 211), "sendto": (44, 206),
    "set_mempolicy": (238, 237), "set_robust_list": (273, 99), "set_tid_address": (218, 96), "setgid": (106, 144),
    "setgroups": (116, 159), "setitimer": (38, 103), "setns": (308, 268), "setpgid": (109, 154),
    "setpriority": (141, 140), "setregid": (114, 143), "setresgid": (119, 149), "setresuid": (117, 147),
    "setreuid": (113, 145), "setrlimit": (160, 164), "setsid": (112, 157), "setsockopt": (54, 208),
    "setuid": (105, 146), "setxattr": (188, 5), "shmat": (30, 196), "shmctl": (31, 195), "shmdt": (67, 197),
    "shmget": (29, 194), "shutdown": (48, 210), "sigaltstack": (131, 132), "signalfd": (282, None),
    "signalfd4": (289, 74), "socket": (41, 198), "socketpair": (53, 199), "splice": (275, 76), "stat": (4, None),
    "statfs": (137, 43), "statx": (332, 291), "symlink": (88, None), "symlinkat": (266, 36),
    "sync_file_range": (277, 84), "sysinfo": (99, 179), "tgkill": (234, 131), "time": (201, None),
    "timer_create": (222, 107), "timer_delete": (226, 111), "timer_getoverrun": (225, 109),
    "timer_gettime": (224, 108), "timer_settime": (223, 110), "timerfd_create": (283, 85),
    "timerfd_gettime": (287, 87), "timerfd_settime": (286, 86), "times": (100, 153), "tkill": (200, 130),
    "truncate": (76, 45), "umask": (95, 166), "uname": (63, 160), "unlink": (87, None), "unlinkat": (263, 35),
    "unshare": (272, 97), "userfaultfd": (323, 282), "utime": (132, None), "utimensat": (280, 88),
    "utimes": (235, None), "vfork": (58, None), "wait4": (61, 260), "waitid": (247, 95), "write": (1, 64),
    "writev": (20, 66),
}
