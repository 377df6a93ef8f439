"""A sandboxed process that has imported what students import, and forks each run from there.

Started once per worker inside bubblewrap (``python -I -S zygote.py``), with the capabilities it
needs to give each run namespaces of its own (``CAP_SYS_ADMIN``; as root also ``CAP_SETUID``,
``CAP_SETGID``; ``CAP_SETPCAP`` to empty the bounding set). It never runs student code and never
sees a hidden input: the grader sends it, on its control socket (descriptor 3), only a run's
three pipe ends and numbers (user id, limits). For each such request it forks a run:

1. the run (``C``) takes the pipes as its standard streams, closes everything else, starts a
   session, and unshares a mount, IPC and network namespace: fresh tmpfs ``/tmp``,
   ``/dev/shm`` and home, so nothing a previous run wrote is there (with the read-only binds
   below them, a venv there, bound back);
2. the zygote sends the grader a pidfd of ``C``; the grader moves ``C`` into the run's cgroup
   and then writes one byte on its standard input (``C`` waits for it before anything else);
3. ``C`` unshares a PID and cgroup namespace and forks the run's init process (``I``, PID 1 of
   its namespace: the run sees no process but its own, not the zygote);
4. ``I`` mounts its own ``/proc``, sets the per-process limits, drops to the run's user id (as
   root), drops every capability (bounding set too) and every signal handler, and forks ``R``;
   each sets ``no_new_privs`` and loads the seccomp filter (``R`` first becomes dumpable, as a
   process that has just started a program is). ``R`` reseeds the random number generators the
   zygote imported and runs the runner (:mod:`runner`) exactly as a freshly started one would.

``I`` waits for ``R`` and tells ``C`` how it ended; ``C`` ends the same way, and the zygote waits
for ``C`` and reports how it ended.
Standard library only (and ``ctypes`` for the system calls Python has no function for).
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import socket
import struct
import sys

TYPE_CHECKING = False  # typing costs start-up time: for mypy only
if TYPE_CHECKING:
    from types import ModuleType

#: The request: user id (-1: keep), process limit, address space, CPU seconds, file size, open files, scratch bytes.
REQUEST = struct.Struct("=iqqqqqq")
#: The reports to the grader: "ready" once, then per run "forked" (with the run's pidfd), "ended" and its wait status.
READY, FORKED = b"ready", b"forked"
ENDED, ENDED_WORD = struct.Struct("=5si"), b"ended"
#: The environment variables that name the control socket, the seccomp program and what to import first.
CONTROL_VARIABLE, SECCOMP_VARIABLE, PRELOAD_VARIABLE = "NDCG_CONTROL_FD", "NDCG_SECCOMP_FD", "NDCG_PRELOAD"
#: The byte a run waits for: the grader has moved it into its cgroup.
GO = b"g"

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = (
    0x00020000, 0x02000000, 0x08000000, 0x40000000, 0x20000000,
)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    2, 4, 8, 1, 32, 4096, 16384, 1 << 18,
)
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = (
    1, 4, 24, 38, 22, 47,
)
PR_CAP_AMBIENT_CLEAR_ALL, SECCOMP_MODE_FILTER = 4, 2
#: The flags a read-only remount keeps (``statvfs`` reports them with the values ``mount`` takes).
_KEPT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | 1024 | 2048 | 4096  # and MS_NOATIME, NODIRATIME, RELATIME
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
HOME = "/home/student"
#: Where the sandbox mounts the runner (``bubblewrap.SANDBOX_RUNNER``).
_RUNNER_PATH = "/opt/grader/runner.py"

_libc = ctypes.CDLL(None, use_errno=True)
#: The runner module (imported by :func:`main`, from beside this file as the sandbox mounts it).
_runner: ModuleType | None = None
#: Whether this process is a run's runner (``R``), whose exceptions end it as they end a cold one.
_is_runner = False


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                    data.encode() if data else None),
        f"mount {target}",
    )


def _hold_mounts_below(top: str) -> list[tuple[str, int]]:
    """The outermost mounts below ``top``, each with an ``O_PATH`` descriptor that keeps it reachable.

    A tmpfs over ``top`` hides them: a venv bubblewrap bound under ``/tmp`` (a kit cloned into a
    ``mktemp -d`` folder) was gone from every run. :func:`_bind_back` binds them back on it."""
    with open("/proc/self/mountinfo", "rb") as info:  # the kernel writes a space in a path as "\\040" there
        fields = [line.split(b" ")[4].split(b"\\") for line in info]
    points = {(head + b"".join(bytes([int(rest[:3], 8)]) + rest[3:] for rest in escaped)).decode(
        errors="surrogateescape") for head, *escaped in fields}
    prefix = top.rstrip("/") + "/"
    outermost: list[str] = []
    for point in sorted(points):
        if point.startswith(prefix) and not any(point.startswith(outer + "/") for outer in outermost):
            outermost.append(point)
    return [(point, os.open(point, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)) for point in outermost]


def _bind_back(top: str, held: list[tuple[str, int]], maker: int) -> None:
    """Bind each held mount (and those below it) back at its path below ``top``, read-only, nosuid, nodev.

    Its parents go on a tmpfs of their own at the first folder below ``top``, read-only once made: a
    mount point cannot be renamed or removed, a read-only folder not changed, so no run moves or replaces
    the venv. With ``maker`` (the run's user, whose 0700 home this process cannot enter) as her."""
    if held and maker >= 0:
        _libc.setfsuid(maker)
        _libc.setfsgid(maker)
    anchors: list[str] = []
    try:
        for point, fd in held:
            try:
                _bind_one(top, point, fd, anchors, f",uid={maker},gid={maker}" if maker >= 0 else "")
            finally:
                os.close(fd)
        for anchor in anchors:
            _mount("none", anchor, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        if held and maker >= 0:  # back to this process's own ids (root's)
            _libc.setfsuid(0)
            _libc.setfsgid(0)


def _bind_one(top: str, point: str, fd: int, anchors: list[str], owner: str) -> None:
    """Bind ``fd``'s mount at ``point``, its parents made on the tmpfs at the first folder below ``top``."""
    anchor = top + "/" + point[len(top) + 1:].split("/")[0]
    if anchor != point and anchor not in anchors:
        os.mkdir(anchor)
        _mount("tmpfs", anchor, "tmpfs", MS_NOSUID | MS_NODEV, f"size=1m,mode=0755{owner}")
        anchors.append(anchor)
    parts = point[len(anchor) + 1:].split("/")[:-1] if anchor != point else []
    for depth in range(1, len(parts) + 1):
        if not os.path.isdir(folder := "/".join([anchor, *parts[:depth]])):
            os.mkdir(folder)
            os.chmod(folder, 0o755)  # not the umask's
    os.mkdir(point)  # bubblewrap binds only folders there (the Python's)
    _mount(f"/proc/self/fd/{fd}", point, None, MS_BIND | MS_REC)
    kept = os.statvfs(point).f_flag & _KEPT_FLAGS
    _mount("none", point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)


def _prctl(option: int, argument: int | ctypes.c_void_p = 0) -> None:
    _check(_libc.prctl(option, argument, 0, 0, 0), f"prctl {option}")


def _drop_bounding_set() -> None:
    """Empty the bounding set (needs ``CAP_SETPCAP``: before the user id changes)."""
    with open("/proc/sys/kernel/cap_last_cap") as last:
        highest = int(last.read())
    for capability in range(highest + 1):
        _prctl(PR_CAPBSET_DROP, capability)


def _drop_capabilities() -> None:
    """No capability left: the ambient set, then effective, permitted and inheritable."""
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def _load_filter(program: bytes) -> None:
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def _confine(program: bytes | None) -> None:
    """``no_new_privs`` and the seccomp filter (just ``no_new_privs`` without one)."""
    if program is not None:
        _load_filter(program)
    else:
        _prctl(PR_SET_NO_NEW_PRIVS, 1)


def _reseed() -> None:
    """New seeds for what the zygote imported: each run draws its own numbers, as a fresh Python would."""
    modules = sys.modules
    if "random" in modules:
        modules["random"].seed()
    numpy_random = modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def _die_with_c(status_pipe: int) -> None:
    """End this process (``I``) with ``C``, at once if ``C`` is gone (its end of the status pipe is closed).

    An ``I`` that outlived ``C`` would run the runner with nobody to report to (:func:`_reap_orphans`)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    poll = select.poll()
    poll.register(status_pipe, 0)  # POLLERR: no reader left
    if poll.poll(0):
        os._exit(1)


def _init(request: tuple[int, ...], program: bytes | None, status_pipe: int) -> None:
    """``I``, PID 1 of the run: its own ``/proc``, limits, no privileges, the filter; forks ``R``. Never returns.

    Like bubblewrap's own init process: the runner is not PID 1, whose signals to itself the kernel
    ignores (a notebook that kills its own process must end, as it would anywhere else).
    """
    uid, processes, address_space, cpu, file_size, open_files, _scratch = request
    _die_with_c(status_pipe)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount("/proc/sys", "/proc/sys", None, MS_BIND | MS_REC)
    _mount("/proc/sys", "/proc/sys", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for limit, value in (
        (resource.RLIMIT_AS, address_space), (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, file_size),
        # this process is one of the user id's too
        (resource.RLIMIT_NOFILE, open_files), (resource.RLIMIT_NPROC, processes + 1), (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(limit, (value, value))
    _drop_bounding_set()
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _die_with_c(status_pipe)  # again: the id change clears it
    _drop_capabilities()
    # Python's own handlers (SIGINT's): the run's user id may signal this process, which as PID 1
    # gets only the signals it handles; none, so that a notebook cannot end its run through it
    handlers = {number: handler for number in signal.valid_signals() if callable(handler := signal.getsignal(number))}
    for number in handlers:
        signal.signal(number, signal.SIG_DFL)
    runner_pid = os.fork()
    if runner_pid == 0:
        os.close(status_pipe)
        for number, handler in handlers.items():  # the runner's are a fresh Python's
            signal.signal(number, handler)
        # dumpable, as a process that has just started a program is (the zygote is not, nor is this
        # one): its /proc entries are its user's, so it reads its own /proc/self/environ and fd as
        # a cold runner does; before the filter, which refuses this prctl
        _prctl(PR_SET_DUMPABLE, 1)
        _confine(program)
        _runner_process()
    _confine(program)
    # this process keeps the run's streams, as bubblewrap does in a cold run: the grader sees their
    # end once the runner has ended, not when a notebook closes its own copies and goes on running
    while True:  # reap orphans too, as an init must, until the runner has ended
        pid, status = os.waitpid(-1, 0)
        if pid == runner_pid:
            os.write(status_pipe, struct.pack("=i", status))
            os._exit(0)  # the kernel kills what is left in the namespace


def _runner_process() -> None:
    """``R``: the runner, with seeds of its own, in the home folder. Never returns.

    What the runner raises (it fails to write to the grader, say) reaches the interpreter's top
    level, as in a cold runner: printed, then ``atexit``, then exit status 1 (or ``SystemExit``'s).
    """
    global _is_runner
    _is_runner = True
    _reseed()
    os.chdir(HOME)
    sys.argv[0] = _RUNNER_PATH
    if _runner is None:  # main() imports it before any fork
        raise RuntimeError("the zygote forked before importing the runner")
    # a cold runner is __main__, which it replaces by the student's module: no module names it here either
    del sys.modules["runner"]
    _runner.main()  # ends the process itself (os._exit), or raises to the top level


def _run(fds: list[int], request: tuple[int, ...], program: bytes | None) -> None:
    """``C``: the run's own streams, namespaces and scratch space; waits for the cgroup, forks ``I``. Never returns."""
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 65536)
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET), "unshare")
        _mount("none", "/", None, MS_REC | MS_PRIVATE)
        uid, scratch = request[0], request[6]
        owner = f",uid={uid},gid={uid}" if uid >= 0 else ""  # the home is the run's user's alone
        for path, options, maker in (("/tmp", "mode=1777", -1), ("/dev/shm", "mode=1777", -1),
                                     (HOME, f"mode=0700{owner}", uid)):
            held = _hold_mounts_below(path)
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch},{options}")
            _bind_back(path, held, maker)
        for path in ("/", "/dev"):  # the zygote's own tmpfs, shared by every run it forks: read-only in a run
            kept = os.statvfs(path).f_flag & _KEPT_FLAGS
            _mount("none", path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept)
        if os.read(0, 1) != GO:  # the grader has moved this process into the run's cgroup
            os._exit(125)
        _check(_libc.unshare(CLONE_NEWPID | CLONE_NEWCGROUP), "unshare")
        status_read, status_write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(status_read)
            _init(request, program, status_write)
        os.close(status_write)
        for fd in (0, 1, 2):
            os.close(fd)
        word = os.read(status_read, 4)
        os.waitpid(child, 0)
        status = struct.unpack("=i", word)[0] if len(word) == 4 else signal.SIGKILL  # I was killed
    except BaseException as error:  # a run that could not be set up says so and ends
        if _is_runner:
            raise
        try:
            os.write(2, f"the run could not be set up: {error}".encode(errors="replace")[:500])
        finally:
            os._exit(124)
    if os.WIFSIGNALED(status):  # end as the runner ended: the grader reads the signal from this process
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _reap_orphans() -> None:
    """Reap every process this one inherited (PID 1 of bubblewrap's namespace), once ``C`` is reaped.

    A killed ``C``'s init ``I`` becomes this process's child: a zombie, it would count against its
    user id's process limit after the lease, until no later run with that id could fork."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def serve(control: socket.socket, program: bytes | None) -> None:
    """Fork one run per request on ``control`` until the grader closes it."""
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(control, REQUEST.size, 3)
        except InterruptedError:
            continue
        if not message:
            return
        if len(fds) != 3 or len(message) != REQUEST.size:  # not the grader's request: no run, no answer
            for fd in fds:
                os.close(fd)
            continue
        request = REQUEST.unpack(message)
        child = os.fork()
        if child == 0:
            control.close()
            _run(list(fds), request, program)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(child)
        socket.send_fds(control, [FORKED], [pidfd])
        os.close(pidfd)
        _, status = os.waitpid(child, 0)
        _reap_orphans()
        control.send(ENDED.pack(ENDED_WORD, status))


def main() -> None:
    """Import the runner and what students import, then serve runs on the control socket."""
    global _runner
    _prctl(PR_SET_DUMPABLE, 0)  # no same-user process may read or write this one's memory
    sys.path.insert(0, os.path.dirname(_RUNNER_PATH))
    import runner  # type: ignore[import-not-found]  # beside this file, as the sandbox mounts it

    _runner = runner
    runner._site()
    for name in os.environ.pop(PRELOAD_VARIABLE, "").split(","):
        if name:
            __import__(name)
    sys.path.pop(0)  # the runner's folder is no folder of the student's
    program = None
    if os.environ.get(SECCOMP_VARIABLE):
        with os.fdopen(int(os.environ.pop(SECCOMP_VARIABLE)), "rb") as file:
            program = file.read()
    control = socket.socket(fileno=int(os.environ.pop(CONTROL_VARIABLE)))
    control.send(READY)
    serve(control, program)


if __name__ == "__main__":
    main()
