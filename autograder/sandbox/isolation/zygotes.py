"""Warm starts: each run forked from a sandboxed process that has already imported what students import.

Starting a run from scratch costs bubblewrap's mounts, a Python start and, for a notebook that
imports numpy, 100 ms of CPU for that import: in each of a submission's two or three runs. A
*zygote* (:mod:`~autograder.sandbox.inside.zygote`, the script inside) pays that once per worker: it is started in the
same bubblewrap sandbox as a run, imports the runner and :data:`PRELOAD`, and then only forks.
Each forked run gets a mount, IPC, network, PID and cgroup namespace of its own with a fresh
``/tmp``, ``/dev/shm`` and home, the same per-process limits, user id, seccomp filter and
cgroup as a cold-started run, and its own seeds (docs/security.md, "Warm starts").

The zygote never runs student code and never sees a hidden input: it receives only a run's
three pipe ends and numbers, from the grader, on a socket no run can reach. It is used only
where each run has a cgroup (moving the run there, and the teardown, need one) and a seccomp
filter; anywhere else, and whenever a zygote fails, runs start cold (:meth:`.launch.Launch.start`).
"""

from __future__ import annotations

import atexit
import os
import re
import select
import signal
import socket
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO

from ..inside import zygote as inside
from ..resources.limits import Limits
from ..resources.processes import RunProcess
from .launch import Launch

#: What the zygote imports before it forks: what the exercise's students import.
PRELOAD = ("numpy",)
#: Seconds a zygote may take to import :data:`PRELOAD`; to fork a run or report its end.
START_SECONDS, ANSWER_SECONDS = 60.0, 10.0
#: Seconds a zygote whose socket was closed may take to end before it is killed.
CLOSE_SECONDS = 2.0
#: Zygotes started at the same time at most (each by a thread that lives as long as its pool).
STARTERS = 8
#: Set to any value, runs always start cold (to compare, or to rule warm starts out).
COLD_VARIABLE = "NDCG_KIT_COLD_START"

_PID = re.compile(rb"^Pid:\s*(-?\d+)", re.MULTILINE)


class ZygoteFailed(Exception):
    """A zygote did not start, answer or fork in time: it is discarded and the run starts cold."""


class Zygote:
    """One running zygote and its control socket; used by one run at a time."""

    def __init__(self, command: Callable[[int], tuple[list[str], tuple[int, ...]]]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._control = ours
        try:
            argv, pass_fds = command(theirs.fileno())
            try:
                self._process = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    start_new_session=True, pass_fds=(theirs.fileno(), *pass_fds),
                )
            finally:
                for fd in pass_fds:
                    os.close(fd)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        try:
            if self._receive(START_SECONDS)[0] != inside.READY:
                raise ZygoteFailed("the zygote did not say it is ready")
        except ZygoteFailed as error:
            said = self.close()
            raise ZygoteFailed(f"{error}: {said}" if said else str(error)) from None

    def hang_up(self) -> None:
        """Close the control socket: an idle zygote ends (and bubblewrap with it); :meth:`close` reaps it."""
        self._control.close()

    @property
    def alive(self) -> bool:
        """Whether the zygote process still runs."""
        return self._process.poll() is None

    def _receive(self, seconds: float, fds: int = 0) -> tuple[bytes, list[int]]:
        """One message from the zygote (and the descriptors it carries); :class:`ZygoteFailed` if none in time."""
        ready, _, _ = select.select([self._control], [], [], seconds)
        if not ready:
            raise ZygoteFailed("the zygote did not answer in time")
        try:
            message, received, _flags, _address = socket.recv_fds(self._control, 64, max(fds, 1))
        except OSError as error:
            raise ZygoteFailed(f"the zygote's socket failed: {error}") from error
        if not message:
            raise ZygoteFailed("the zygote has ended")
        return message, received

    def fork(self, pipe_ends: tuple[int, int, int], request: bytes) -> int:
        """Have a run forked with ``pipe_ends`` as its standard streams; a pidfd of it."""
        try:
            socket.send_fds(self._control, [request], list(pipe_ends))
        except OSError as error:
            raise ZygoteFailed(f"the zygote's socket failed: {error}") from error
        message, fds = self._receive(ANSWER_SECONDS, fds=1)
        if message != inside.FORKED or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise ZygoteFailed("the zygote did not fork the run")
        return fds[0]

    def fork_with_pipes(self, request: bytes) -> tuple[int, tuple[int, int, int]]:
        """Have a run forked with three new pipes as its standard streams: its pidfd and the grader's ends.

        The run's ends are closed here; the grader's too when the fork fails (:class:`ZygoteFailed`).
        """
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        ours = (stdin_w, stdout_r, stderr_r)
        try:
            pidfd = self.fork((stdin_r, stdout_w, stderr_w), request)
        except ZygoteFailed:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w):
                os.close(fd)
        return pidfd, ours

    def trial(self, request: bytes) -> str | None:
        """Fork one run with no cells and no calls (no student code); what went wrong, or None if it ran.

        Where the kernel refuses a run what a zygote does for it (a namespace, a mount, the filter),
        the zygote itself starts but each run would fail: that is found here, before any student's run.
        """
        pidfd, (stdin_w, stdout_r, stderr_r) = self.fork_with_pipes(request)
        os.close(pidfd)
        try:
            try:
                os.write(stdin_w, inside.GO + b"[]\n")
            except BrokenPipeError:
                pass  # the run has ended already: its error output says why
            os.close(stdin_w)
            stdin_w = -1
            said = read_all(stdout_r, ANSWER_SECONDS)
            status = self.ended()
            if said == b'{"ready":true}\n{"done":true}\n' and status == 0:
                return None
            error = read_all(stderr_r, 0.0).decode(errors="replace").strip()
            return f"a warm run did not start (wait status {status}): {error or said[:200]!r}"
        finally:
            for fd in (stdin_w, stdout_r, stderr_r):
                if fd >= 0:
                    os.close(fd)

    def ended(self) -> int:
        """The wait status of the run forked last, once it has ended (killed first if it has to be)."""
        message, _ = self._receive(ANSWER_SECONDS)
        if len(message) != inside.ENDED.size:
            raise ZygoteFailed("the zygote's report of a run's end is malformed")
        word, status = inside.ENDED.unpack(message)
        if word != inside.ENDED_WORD:
            raise ZygoteFailed("the zygote's report of a run's end is malformed")
        return int(status)

    def close(self) -> str:
        """End the zygote (and whatever run it still has) and close its socket; what it wrote to its error output."""
        self.hang_up()
        try:
            self._process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        said = b""
        if self._process.stderr is not None:
            said = self._process.stderr.read(2000)
            self._process.stderr.close()
        return said.decode(errors="replace").strip()


def read_all(fd: int, seconds: float) -> bytes:
    """What ``fd`` gives until its end, or until ``seconds`` without anything new (at most 64 KiB)."""
    data = b""
    while len(data) < 65536 and select.select([fd], [], [], seconds)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def host_pid(pidfd: int) -> int:
    """The process id, in the grader's PID namespace, of the process ``pidfd`` refers to (-1 once it is gone)."""
    with open(f"/proc/self/fdinfo/{pidfd}", "rb") as info:
        found = _PID.search(info.read())
    if found is None:
        raise ZygoteFailed("this kernel does not say which process a pidfd refers to")
    return int(found.group(1))


class ZygotePool:
    """The zygotes of one sandbox: as many as runs at once, each started on first need, ended at exit."""

    def __init__(self, command: Callable[[int], tuple[list[str], tuple[int, ...]]], limits: Limits) -> None:
        #: Given the zygote's end of the control socket: the command and the descriptors it needs.
        self._command = command
        self.limits = limits
        self._idle: list[Zygote] = []
        #: How many zygotes runs hold now (acquired, not yet released or discarded).
        self._lent = 0
        #: :meth:`close` was asked while runs held zygotes: those are ended when given back.
        self._closing = False
        self._lock = threading.Lock()
        #: Why warm starts are off for this pool (a zygote could not be started), else None.
        self.disabled: str | None = None
        #: How many zygotes this pool has started.
        self.started = 0
        # bubblewrap ends a zygote when the *thread* that started it ends (--die-with-parent): zygotes
        # are started by this pool's own thread, which lives as long as the pool, not by a worker's
        self._starter: ThreadPoolExecutor | None = None
        atexit.register(self.close)

    def acquire(self, trial: bytes) -> Zygote | None:
        """An idle zygote (started now and tried with request ``trial`` if none is); None when warm starts are off."""
        with self._lock:
            self._closing = False  # a run after close() starts what it needs again
            while self._idle:
                zygote = self._idle.pop()
                if zygote.alive:
                    self._lent += 1
                    return zygote
                zygote.close()
            if self.disabled is not None:
                return None
            if self._starter is None:
                # workers that start at once start their zygotes side by side
                self._starter = ThreadPoolExecutor(max_workers=STARTERS, thread_name_prefix="zygote-starter")
            starter = self._starter
            self._lent += 1  # already: a close() meanwhile leaves the starting thread alone
        try:
            zygote = starter.submit(Zygote, self._command).result()
        except (OSError, ZygoteFailed) as error:
            self.disabled = str(error)
            with self._lock:
                self._lent -= 1
                stopped = self._stop_starter()
            if stopped is not None:
                stopped.shutdown(wait=False)
            return None
        try:
            problem = zygote.trial(trial)
        except (OSError, ZygoteFailed) as error:
            problem = str(error)
        if problem is not None:
            self.disabled = problem
            self.discard(zygote)
            return None
        with self._lock:
            self.started += 1
        return zygote

    def release(self, zygote: Zygote) -> None:
        """Give back a zygote whose last run's end has been read."""
        with self._lock:
            if not self._closing:
                self._idle.append(zygote)
                self._lent -= 1
                return
        self.discard(zygote)

    def discard(self, zygote: Zygote) -> None:
        """End a zygote a run held (it failed, or :meth:`close` was asked meanwhile)."""
        zygote.close()
        with self._lock:
            self._lent -= 1
            starter = self._stop_starter()
        if starter is not None:
            starter.shutdown(wait=False)

    def _stop_starter(self) -> ThreadPoolExecutor | None:
        """The starting thread to shut down, once no run holds a zygote (with the lock held).

        bubblewrap ends a zygote when that thread ends: while a run holds one, ending the thread
        would kill the run (another worker's, when one worker's batch is done).
        """
        if not self._closing or self._lent > 0:
            return None
        self._closing = False
        starter, self._starter = self._starter, None
        return starter

    def close(self) -> None:
        """End every idle zygote, and the thread that starts them once no run holds one (a later run starts both again).

        A zygote a run holds now is ended when the run gives it back.
        """
        with self._lock:
            idle, self._idle = self._idle, []
            self._closing = True
            starter = self._stop_starter()
        for zygote in idle:  # all end at once, then each is reaped
            zygote.hang_up()
        for zygote in idle:
            zygote.close()
        if starter is not None:
            starter.shutdown(wait=False)

    def request(self, uid: int | None, processes: int) -> ZygoteRequest:
        """The :class:`.launch.Forker` of one run with user id ``uid`` (None: the grader's) and ``processes``."""
        limits = self.limits
        packed = inside.REQUEST.pack(
            -1 if uid is None else uid, processes, limits.memory_bytes, limits.cpu_seconds, limits.file_bytes,
            limits.open_files, limits.scratch_bytes,
        )
        return ZygoteRequest(self, packed)


@dataclass(frozen=True)
class ZygoteRequest:
    """One run to fork: the pool to fork it from and the request the zygote reads."""

    pool: ZygotePool
    packed: bytes

    def fork(self, launch: Launch) -> RunProcess | None:
        """The run, forked and moved into ``launch``'s cgroup; None if a zygote could not do it."""
        if launch.group is None:
            return None
        zygote = self.pool.acquire(self.packed)
        if zygote is None:
            return None
        try:
            pidfd, ours = zygote.fork_with_pipes(self.packed)
        except ZygoteFailed:
            self.pool.discard(zygote)
            return None
        run = ForkedRun(zygote, self.pool, pidfd, ours)
        stdin_w = ours[0]
        try:
            launch.group.adopt(host_pid(pidfd))
            os.write(stdin_w, inside.GO)  # one byte: a pipe always takes it
        except (OSError, ZygoteFailed):
            run.kill()  # its end is read; the zygote goes back to the pool
            run.close_pipes()
            return None
        return run


class ForkedRun:
    """A run a zygote forked: its pipes, its pidfd, and its end as the zygote reports it."""

    def __init__(self, zygote: Zygote, pool: ZygotePool, pidfd: int, pipe_ends: tuple[int, int, int]) -> None:
        self._zygote: Zygote | None = zygote
        self._pool, self._pidfd = pool, pidfd
        stdin, stdout, stderr = pipe_ends
        self.stdin: IO[bytes] | None = open(stdin, "wb", buffering=0)  # noqa: SIM115 — closed by the driver
        self.stdout: IO[bytes] | None = open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = open(stderr, "rb")  # noqa: SIM115
        self._returncode: int | None = None

    @property
    def returncode(self) -> int | None:
        """See :class:`RunProcess`."""
        return self._returncode

    def wait(self) -> int | None:
        """See :class:`RunProcess`; the zygote goes back to its pool (or is ended, if it failed)."""
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            try:
                self._returncode = os.waitstatus_to_exitcode(zygote.ended())
                self._pool.release(zygote)
            except (ZygoteFailed, ValueError):
                self._pool.discard(zygote)
            os.close(self._pidfd)
        return self._returncode

    def kill(self) -> None:
        """See :class:`RunProcess`: its PID namespace ends with it (the cgroup's removal kills the rest)."""
        if self._zygote is not None:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.wait()

    def close_pipes(self) -> None:
        """Close the grader's ends of the run's pipes."""
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                stream.close()
