"""A probe run as a script inside the sandbox: each family of system calls the allowlist refuses,
tried with arguments for which the kernel itself would answer something other than EPERM, and a
few basics that must keep working. Prints one JSON object: family -> errno (0: it worked).

It runs only as a script in the sandbox (its main() checks that it is in the scratch home) and
touches only that home (a canary folder and file it makes), its own memory and its
own child processes: nothing outside the sandbox, whatever the filter lets through.
"""

import ctypes
import fcntl
import json
import mmap
import os
import platform
import signal
import socket
import struct
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def main():
    # only inside the sandbox: its own UTS namespace names the host "sandbox" (bubblewrap's --hostname)
    # and it starts in its scratch home; never anywhere else
    if socket.gethostname() != "sandbox" or os.getcwd() != os.environ.get("HOME"):
        raise SystemExit("kernel_probe.py runs only inside the grader's sandbox, in its scratch home")
    results = {}
    home = os.getcwd()
    canary_dir = os.path.join(home, "canary")
    os.makedirs(canary_dir, exist_ok=True)
    canary = os.path.join(canary_dir, "file")
    with open(canary, "wb") as handle:
        handle.write(b"x" * 65536)
    fd = os.open(canary, os.O_RDWR)
    dir_fd = os.open(canary_dir, os.O_RDONLY)

    #: x86-64 numbers of calls glibc has no wrapper for (written here, apart from the filter's own table)
    X86_64 = {
        "io_uring_setup": 425, "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249,
        "bpf": 321, "perf_event_open": 298, "kexec_load": 246, "pidfd_getfd": 438, "kcmp": 312,
        "seccomp": 317, "cachestat": 451, "readahead": 187, "io_setup": 206, "clone": 56, "clone3": 435,
    }

    def outcome(value):
        """errno of a libc call that returns -1 and sets errno (0 when it worked)."""
        return ctypes.get_errno() if value == -1 else 0

    def attempt(name, call):
        try:
            results[name] = call() or 0  # Python's wrappers return None when the call worked
        except OSError as error:
            results[name] = error.errno

    def raw(name, *args):
        ctypes.set_errno(0)
        return outcome(libc.syscall(ctypes.c_long(X86_64[name]), *[ctypes.c_long(a) for a in args]))

    def in_child(body):
        """Run body() in a forked child (namespaces, tracing); its exit code is the errno."""
        pid = os.fork()
        if pid == 0:
            try:
                code = body()
            except OSError as error:
                code = error.errno
            except BaseException:
                code = 255
            os._exit(code)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    # file locks, leases, watches (a channel between concurrent sandboxes); a watch that works signals SIGIO
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    attempt("fcntl F_NOTIFY", lambda: fcntl.fcntl(dir_fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT) and 0)
    attempt("fcntl F_SETLK", lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB) and 0)
    attempt("fcntl F_OFD_SETLK", lambda: fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)) and 0)
    attempt("fcntl F_SETLEASE", lambda: fcntl.fcntl(os.open(canary, os.O_RDONLY), fcntl.F_SETLEASE, fcntl.F_RDLCK) and 0)
    attempt("fcntl F_SETOWN", lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid()) and 0)
    attempt("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
    attempt("inotify_init1", lambda: outcome(libc.inotify_init1(0)))
    attempt("fanotify_init", lambda: outcome(libc.fanotify_init(0x200, 0)))  # FAN_REPORT_FID: unprivileged since 5.13

    # new namespaces and mounts
    CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000

    def userns_and_tmpfs():
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1:
            return ctypes.get_errno()
        target = os.path.join(home, "mnt")
        os.makedirs(target, exist_ok=True)
        return outcome(libc.mount(b"none", target.encode(), b"tmpfs", 0, None))

    attempt("unshare CLONE_NEWUSER + mount tmpfs", lambda: in_child(userns_and_tmpfs))
    attempt("setns", lambda: outcome(libc.setns(os.open("/proc/self/ns/user", os.O_RDONLY), 0)))
    attempt("clone CLONE_NEWUSER", lambda: in_child(lambda: 0 if raw("clone", CLONE_NEWUSER | 17, 0, 0, 0, 0) == 0 else
                                                     ctypes.get_errno()))
    attempt("clone3", lambda: raw("clone3", 0, 0))  # ENOSYS: glibc then uses clone, whose flags are checked

    # the page cache: probing and steering it
    view = mmap.mmap(fd, 65536, prot=mmap.PROT_READ)
    anonymous = mmap.mmap(-1, 4096)
    page = ctypes.addressof(ctypes.c_char.from_buffer(anonymous))  # page-aligned: mmap's own
    residency = ctypes.create_string_buffer(16)
    attempt("mincore", lambda: outcome(libc.mincore(ctypes.c_void_p(page), ctypes.c_size_t(4096), residency)))
    attempt("posix_fadvise", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
    attempt("readahead", lambda: raw("readahead", fd, 0, 4096))
    attempt("cachestat", lambda: raw("cachestat", fd, 0, 0, 0))
    attempt("madvise MADV_WILLNEED", lambda: view.madvise(mmap.MADV_WILLNEED))
    attempt("madvise MADV_PAGEOUT", lambda: view.madvise(21))
    attempt("preadv2 RWF_NOWAIT", lambda: os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT) and 0)
    attempt("mlock", lambda: outcome(libc.mlock(ctypes.c_void_p(page), ctypes.c_size_t(4096))))

    # kernel surface no notebook needs
    # buffers the kernel writes into, kept alive while it may (a freed one would corrupt the heap)
    uring_params, aio_context = ctypes.create_string_buffer(120), ctypes.c_ulong(0)
    attempt("io_uring_setup", lambda: raw("io_uring_setup", 1, ctypes.addressof(uring_params)))
    attempt("io_setup", lambda: raw("io_setup", 1, ctypes.addressof(aio_context)))
    attempt("userfaultfd", lambda: raw("userfaultfd", 1))  # UFFD_USER_MODE_ONLY
    attempt("keyctl", lambda: raw("keyctl", 0, -4, 0))  # KEYCTL_GET_KEYRING_ID of the user keyring
    attempt("add_key", lambda: raw("add_key", 0, 0, 0, 0, 0))  # NULL type: EFAULT if it got that far
    attempt("request_key", lambda: raw("request_key", 0, 0, 0, 0))
    attempt("bpf", lambda: raw("bpf", 9999, 0, 0))  # an unknown command: EINVAL if it got that far
    attempt("perf_event_open", lambda: raw("perf_event_open", 0, 0, -1, -1, 0))  # NULL attr: EFAULT

    def trace_own_child():
        child = os.fork()
        if child == 0:
            time.sleep(30)
            os._exit(0)
        try:
            return outcome(libc.ptrace(16, child, None, None))  # PTRACE_ATTACH to our own child
        finally:
            os.kill(child, 9)
            os.waitpid(child, 0)

    attempt("ptrace", trace_own_child)

    class IoVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    local = ctypes.create_string_buffer(8)
    local_iov, remote_iov = IoVec(ctypes.addressof(local), 8), IoVec(4096, 8)  # the remote page is never mapped: EFAULT
    for function in (libc.process_vm_readv, libc.process_vm_writev):
        function.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
        function.restype = ctypes.c_ssize_t
    attempt("process_vm_readv", lambda: outcome(libc.process_vm_readv(
        os.getpid(), ctypes.addressof(local_iov), 1, ctypes.addressof(remote_iov), 1, 0)))
    attempt("process_vm_writev", lambda: outcome(libc.process_vm_writev(
        os.getpid(), ctypes.addressof(local_iov), 1, ctypes.addressof(remote_iov), 1, 0)))
    attempt("kcmp", lambda: raw("kcmp", os.getpid(), os.getpid(), 0, 0, 0))
    attempt("pidfd_getfd", lambda: raw("pidfd_getfd", -1, 0, 0))  # EBADF if it got that far
    attempt("kexec_load", lambda: raw("kexec_load", 0, 0, 0, 0))
    attempt("seccomp", lambda: raw("seccomp", 99, 0, 0))  # an unknown operation: EINVAL if it got that far
    attempt("splice", lambda: outcome(libc.splice(fd, None, -1, None, 1, 0)))  # EBADF if it got that far
    attempt("socket AF_NETLINK", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close())
    attempt("socket AF_VSOCK", lambda: socket.socket(40, socket.SOCK_STREAM, 0).close())
    attempt("ioctl TIOCSTI", lambda: fcntl.ioctl(fd, 0x5412, b"x") and 0)  # ENOTTY on a file if it got that far

    # the basics
    pair = socket.socketpair()
    attempt("basics", lambda: 0 if (
        fcntl.fcntl(fd, fcntl.F_GETFL) >= 0 and fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) >= 10
        and os.pread(fd, 4, 0) == b"xxxx" and os.preadv(fd, [bytearray(4)], 0) == 4
        and len(os.getrandom(8)) == 8 and in_child(lambda: 0) == 0
        and pair[0].send(b"x") == 1 and pair[1].recv(1) == b"x" and not os.isatty(fd)
        and platform.machine() != ""
    ) else 1)
    print(json.dumps(results))


if __name__ == "__main__":  # pytest's --doctest-modules imports every .py file: importing runs nothing
    main()
