"""Each submission in its own bubblewrap sandbox (strong isolation).

The sandboxed Python sees a read-only Python and ``/usr``, an empty writable home directory and
``/tmp`` and ``/dev/shm``, each a tmpfs of ``Limits.scratch_bytes`` (so it cannot fill the host's
disk), its own PID, network, IPC and UTS namespaces, and nothing of the course directory: not the
instructor's notebook, the test cases, the reference package, the gradebook or other
submissions. Resource limits (address space, CPU time, file size, open files, processes) are set
per process with ``prlimit``; with :mod:`~autograder.sandbox.resources.cgroups` memory, tasks and CPU also for
the sandbox as
a whole.

When the grader runs as root (CI, a course server), the sandboxed process drops to an
unprivileged user id of its own (``setpriv``), so that the process limit is enforced and it
cannot signal anything outside. As a normal user, bubblewrap's user namespace does that job.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..inside.zygote import CONTROL_VARIABLE, PRELOAD_VARIABLE, SECCOMP_VARIABLE
from ..resources.cgroups import Cgroups
from ..resources.limits import Limits
from ..resources.uids import lease_uid
from ..syscall_filter.seccomp import UnsupportedMachine, filter_fd, sandbox_filter
from .launch import (
    RUNNER,
    Launch,
    drop_privileges,
    grouped_launch,
    limits_mode,
    own_process_count,
    prlimit_prefix,
    runner_command,
    sandbox_environment,
)
from .zygotes import COLD_VARIABLE, PRELOAD, ZygotePool

SANDBOX_RUNNER = "/opt/grader/runner.py"
SANDBOX_ZYGOTE = "/opt/grader/zygote.py"
ZYGOTE = Path(__file__).parents[1] / "inside" / "zygote.py"
#: What the zygote needs to give each run its namespaces and user id, and to take every capability away;
#: CAP_KILL: a run's parent-death signal is sent with the dying parent's rights, to a process of the run's
#: user id (without it a killed run's init outlived it, and so did the runner below it).
ZYGOTE_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL")
SANDBOX_HOME = "/home/student"

__all__ = ["SANDBOX_HOME", "SANDBOX_RUNNER", "Bubblewrap"]


def _scratch_anchor(folder: Path) -> Path | None:
    """The first folder below a run's own scratch tmpfs on the way to ``folder`` (None: not below one).

    A Python there (a kit cloned under ``/tmp``) is bound on the run's tmpfs; its parents go on a
    tmpfs of their own at that first folder, read-only once made: a run's user could otherwise
    rename them (in a home it owns) and put a venv of its own in their place. The zygote's warm
    runs do the same (``zygote._bind_back``).
    """
    for top in (Path("/tmp"), Path("/dev/shm"), Path(SANDBOX_HOME)):
        if top in folder.parents:
            anchor = top / folder.relative_to(top).parts[0]
            return anchor if anchor != folder else None
    return None


class Bubblewrap:
    """Each submission in its own bubblewrap sandbox (strong isolation)."""

    name = "bubblewrap"
    isolated = True
    #: Inside bubblewrap student code never runs as the grader's root (a user id of its own, or the grader's).
    runs_as_root = False
    root_reason: str | None = None

    def __init__(
        self, bwrap: str, limits: Limits = Limits(), cgroups: Cgroups | None = None, resource_warning: str | None = None
    ) -> None:
        self.bwrap = bwrap
        self.limits = limits
        self.as_root = os.geteuid() == 0
        #: One cgroup per run where they work here (see :func:`~autograder.sandbox.resources.cgroups.detect`).
        self.cgroups = cgroups
        #: The seccomp allowlist (:mod:`~autograder.sandbox.syscall_filter.seccomp`), built once; None on a
        #: machine it has no table for.
        self.seccomp: bytes | None = None
        try:
            self.seccomp = sandbox_filter()
        except UnsupportedMachine as error:  # bubblewrap's isolation still holds: say what is missing
            resource_warning = "\n".join(line for line in (resource_warning, str(error)) if line)
        self.resource_warning = resource_warning
        self._fixed: tuple[list[str], list[str]] | None = None
        #: Warm starts (:mod:`.zygotes`): only where each run has a cgroup and the seccomp filter.
        self.zygotes: ZygotePool | None = None
        if cgroups is not None and self.seccomp is not None and not os.environ.get(COLD_VARIABLE):
            self.zygotes = ZygotePool(self._zygote_command, limits)

    @property
    def mode(self) -> str:
        """One line for tutors: the isolation, and where the limits hold."""
        return (f"bubblewrap sandbox{'' if self.seccomp is not None else ' without the seccomp filter'}"
                f"{', warm starts' if self.zygotes is not None else ''}; {limits_mode(self.cgroups)}")

    def _tmpfs(self, path: str, perms: str) -> list[str]:
        """A fresh tmpfs at ``path`` that holds at most ``scratch_bytes``."""
        return ["--size", str(self.limits.scratch_bytes), "--perms", perms, "--tmpfs", path]

    def _binds(self) -> list[str]:
        # Fresh /proc, /dev, /tmp, /dev/shm and home first: a later mount hides what was bound below
        # it before (a kit cloned under /tmp, or in the sandbox's home, would lose its venv inside).
        args: list[str] = ["--proc", "/proc", "--dev", "/dev", *self._tmpfs("/tmp", "1777")]
        args += self._tmpfs("/dev/shm", "1777")
        # as root the sandbox runs as an unprivileged user id that does not own the tmpfs; alone in it
        args += ["--perms", "0755", "--dir", "/home", *self._tmpfs(SANDBOX_HOME, "0777" if self.as_root else "0700")]
        for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = Path("/") / top
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        args += ["--ro-bind", "/usr", "/usr"]
        python_dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
        made: set[Path] = set()
        anchors: list[Path] = []
        for folder in sorted(python_dirs):
            if folder == Path("/usr") or Path("/usr") in folder.parents:
                continue
            anchor = _scratch_anchor(folder)
            if anchor is not None and anchor not in made:  # see _scratch_anchor
                args += ["--perms", "0755", "--tmpfs", str(anchor)]
                made.add(anchor)
                anchors.append(anchor)
            for parent in reversed(folder.parents[:-1]):  # create the parents world-traversable
                if parent not in made:
                    args += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            args += ["--ro-bind", str(folder), str(folder)]
        for anchor in anchors:
            args += ["--remount-ro", str(anchor)]
        args += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/opt/grader"]
        args += ["--ro-bind", str(RUNNER), SANDBOX_RUNNER]
        return args

    def _fixed_args(self) -> tuple[list[str], list[str]]:
        """What every launch's bubblewrap arguments share, before and after ``--seccomp FD``; made once.

        The namespaces, the mounts and the environment: the same for every run of this grader.
        """
        if self._fixed is None:
            args = [
                self.bwrap,
                "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session", "--hostname", "sandbox",
            ]
            if not self.as_root:
                args += ["--unshare-user"]
            mounts = [*self._binds(), "--chdir", SANDBOX_HOME, "--clearenv"]
            for key, value in sandbox_environment(SANDBOX_HOME, str(Path(sys.executable).parent)).items():
                mounts += ["--setenv", key, value]
            self._fixed = (args, mounts)
        return self._fixed

    def _zygote_command(self, control_fd: int) -> tuple[list[str], tuple[int, ...]]:
        """The zygote's command (:mod:`~autograder.sandbox.inside.zygote`) in this sandbox, and the descriptor
        of its seccomp program."""
        if self.seccomp is None:
            raise RuntimeError("warm starts need the seccomp filter")  # a grader bug: the pool is made only with it
        head, tail = self._fixed_args()
        program = filter_fd(self.seccomp)
        args = [
            *head, "--as-pid-1", *tail, "--ro-bind", str(ZYGOTE), SANDBOX_ZYGOTE,
            "--setenv", CONTROL_VARIABLE, str(control_fd), "--setenv", SECCOMP_VARIABLE, str(program),
            "--setenv", PRELOAD_VARIABLE, ",".join(PRELOAD),
        ]
        args += ["--cap-drop", "ALL"]  # as root bubblewrap would keep every capability of root
        for capability in ZYGOTE_CAPABILITIES:
            args += ["--cap-add", capability]
        return [*args, "--", *runner_command(sys.executable, SANDBOX_ZYGOTE)], (program,)

    def start_cold(self, reason: str) -> None:
        """Turn warm starts off for good (every run starts cold), and say so once with ``reason``."""
        if self.zygotes is not None:
            self.zygotes.close()
            self.zygotes = None
        line = f"WARNING: warm starts are off, every run starts cold (slower): {reason}"
        self.resource_warning = "\n".join(text for text in (self.resource_warning, line) if text)

    def close(self) -> None:
        """End the idle zygotes (a later run starts a new one)."""
        if self.zygotes is not None:
            self.zygotes.close()

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The command that runs the runner for one submission (``scratch`` is only the launch's directory).

        With cgroups the run's group is made here and returned in :attr:`Launch.group`.
        """
        python = sys.executable
        head, tail = self._fixed_args()
        pass_fds: tuple[int, ...] = ()
        seccomp: list[str] = []
        if self.seccomp is not None:  # the system call allowlist (see .seccomp_policy)
            fd = filter_fd(self.seccomp)
            pass_fds = (fd,)
            seccomp = ["--seccomp", str(fd)]
        args = [*head, *seccomp, *tail]
        inner = runner_command(python, SANDBOX_RUNNER)
        lease = None
        if self.as_root:
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
            lease = lease_uid(slot)
            inner = drop_privileges(lease.uid) + inner
            processes = self.limits.processes
        else:
            args += ["--"]
            processes = own_process_count() + self.limits.processes
        argv = prlimit_prefix(self.limits, processes) + args + inner
        forker = None
        if self.zygotes is not None:
            forker = self.zygotes.request(lease.uid if lease is not None else None, processes)
        return grouped_launch(
            argv, str(scratch), {"PATH": os.environ.get("PATH", "")}, self.cgroups, lease, pass_fds, forker
        )
