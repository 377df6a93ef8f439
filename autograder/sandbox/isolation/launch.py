"""What every sandbox shares: the launch command's shape, the sandbox interface.

A sandbox is anything with ``name``, ``isolated`` and ``launch(scratch, slot) -> Launch``: the
grader starts the returned command and talks to the runner through its standard input and
output. :mod:`.bubblewrap` isolates; :mod:`.rlimits` only limits (a loud fallback).
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..resources.limits import Limits
from ..resources.processes import RunProcess, StartedProcess

if TYPE_CHECKING:
    from ..resources.cgroups import Cgroups, RunGroup
    from ..resources.uids import UidLease

#: The mode line's second half without cgroups (choice.NO_CGROUPS_WARNING says why and what it costs).
PER_PROCESS_LIMITS = "limits per process only and wall-clock time limits (no writable cgroup: see the warning)"


def limits_mode(cgroups: Cgroups | None) -> str:
    """Where a sandbox's limits hold: its cgroups' description, or :data:`PER_PROCESS_LIMITS`."""
    return cgroups.describe() if cgroups is not None else PER_PROCESS_LIMITS


#: The script the sandboxed Python runs (standard library only; see its docstring).
RUNNER = Path(__file__).parents[1] / "inside" / "runner.py"  # the script the sandbox runs


#: The sandbox's environment variable that names the site-packages folders (the runner reads and removes it).
SITE_PACKAGES_VARIABLE = "NDCG_SITE_PACKAGES"
#: ... and the one that names the grader's ``sys.prefix`` (a venv's: without ``site`` Python 3.11 sees the base).
PREFIX_VARIABLE = "NDCG_PREFIX"


def runner_command(python: str, runner: str) -> list[str]:
    """The command that starts the runner: isolated (``-I``) and without the ``site`` module (``-S``).

    ``site`` costs about 17 ms per process (three per submission): it reads every ``.pth`` file of
    the environment, and an editable install's runs an import hook. The runner needs only the
    site-packages folders (IPython, numpy and what the students import): they come in
    :data:`SITE_PACKAGES_VARIABLE` (:func:`site_directories`), and the runner adds them to
    ``sys.path``, sets ``sys.prefix`` as ``site`` does for a venv (:data:`PREFIX_VARIABLE`), and
    removes both variables before any student code runs. What ``.pth`` files add (an
    editable install of the kit, pointing at folders the sandbox does not mount) is left out.
    """
    return [python, "-I", "-S", runner]


@functools.cache
def site_directories() -> tuple[str, ...]:
    """The site-packages folders ``site`` gave this Python (the grader's), in its order.

    The sandbox runs the same Python: in a venv, the venv's own (and the system's when the venv
    includes them), as the ``site`` module of a sandboxed ``python -I`` would find them.
    """
    return tuple(folder for folder in site.getsitepackages() if os.path.isdir(folder))


class Forker(Protocol):
    """Starts a run by forking a warm process (:mod:`.zygotes`) instead of starting a command."""

    def fork(self, launch: Launch) -> RunProcess | None:
        """The run, forked into ``launch``'s cgroup; None if it cannot be forked (start ``argv`` instead)."""
        ...


@dataclass(frozen=True)
class Launch:
    """What to run for one sandboxed process."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    #: The run's cgroup, already made: whoever starts ``argv`` removes it when the run is over.
    group: RunGroup | None = None
    #: Descriptors ``argv`` names (the seccomp filter): pass them to the process, then :meth:`close_fds`.
    pass_fds: tuple[int, ...] = ()
    #: The user id the sandbox runs as (as root), held until :meth:`end`.
    uid_lease: UidLease | None = None
    #: Forks the run from a warm process instead of starting ``argv`` (:mod:`.zygotes`), where it can.
    forker: Forker | None = None

    #: Whether :meth:`close_fds` ran: a descriptor number closed twice may by then be another file's
    #: (e.g. the gradebook's database, when nbgrader grades through this sandbox in its own process).
    _closed: list[bool] = field(default_factory=lambda: [False], compare=False, repr=False)

    def start(self) -> RunProcess:
        """Start the run: forked by :attr:`forker` where it can, else ``argv`` in a session of its own.

        Raises
        ------
        OSError
            When ``argv`` cannot be started.
        """
        if self.forker is not None:
            forked = self.forker.fork(self)
            if forked is not None:
                return forked
        process = subprocess.Popen(
            self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=self.pass_fds,
        )
        return StartedProcess(process)

    def close_fds(self) -> None:
        """Close the parent's copies of :attr:`pass_fds` (once the process has started, or failed to); once only."""
        if self._closed[0]:
            return
        self._closed[0] = True
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def end(self) -> None:
        """The run is over: close :attr:`pass_fds`, remove the cgroup (killing what is left), give the id back."""
        self.close_fds()
        if self.group is not None:
            self.group.remove()
        if self.uid_lease is not None:
            self.uid_lease.release()


def grouped_launch(
    argv: list[str], cwd: str, env: dict[str, str], cgroups: Cgroups | None, uid_lease: UidLease | None,
    pass_fds: tuple[int, ...] = (), forker: Forker | None = None,
) -> Launch:
    """The :class:`Launch` of ``argv`` in a new run cgroup (if ``cgroups``), holding ``uid_lease``.

    If the cgroup cannot be made, the lease is given back before the error goes on.
    """
    try:
        group = cgroups.new_run() if cgroups is not None else None
    except BaseException:
        if uid_lease is not None:
            uid_lease.release()
        raise
    if group is not None:
        argv = group.enter_prefix() + argv
    return Launch(argv, cwd=cwd, env=env, group=group, pass_fds=pass_fds, uid_lease=uid_lease, forker=forker)


class Sandbox(Protocol):
    """Where student code runs."""

    #: Shown to tutors and written into ``results.json``.
    name: str
    #: False for the fallback that only limits resources.
    isolated: bool
    #: The resource limits each run is given.
    limits: Limits
    #: Lines for tutors when the sandbox is weaker than designed (no cgroups: limits per process only;
    #: no seccomp table for this machine), else None.
    resource_warning: str | None
    #: Why student code runs with the grader's root rights (``--sandbox none`` where an unprivileged
    #: user cannot run it), else None.
    root_reason: str | None

    @property
    def runs_as_root(self) -> bool:
        """True when student code runs with the grader's root rights (never for an isolating sandbox)."""
        ...

    @property
    def mode(self) -> str:
        """One line for tutors: the isolation, and where the limits hold (cgroups, or per process only)."""
        ...

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The command that runs the runner in ``scratch`` (empty); the caller calls its ``end()`` after the run."""
        ...

    def close(self) -> None:
        """End what the sandbox keeps between runs (warm zygotes); it may be used again afterwards."""
        ...


def sandbox_environment(home: str, python_bin: str) -> dict[str, str]:
    """The whole environment of the sandboxed Python (nothing is inherited from the grader)."""
    return {
        "HOME": home,
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        SITE_PACKAGES_VARIABLE: os.pathsep.join(site_directories()),
        PREFIX_VARIABLE: sys.prefix,
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def system_tool(name: str) -> str | None:
    """A util-linux tool (``prlimit``, ``setpriv``) from PATH, else from /usr/bin or /bin."""
    return shutil.which(name) or shutil.which(name, path="/usr/bin:/bin")


def prlimit_prefix(limits: Limits, processes: int) -> list[str]:
    """``prlimit`` with the limits, to put before a command (empty if prlimit is missing)."""
    tool = system_tool("prlimit")
    if tool is None:
        return []
    return [
        tool,
        f"--as={limits.memory_bytes}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        f"--nproc={processes}",
        "--core=0",
        "--",
    ]


def drop_privileges(uid: int, setpriv: str = "setpriv") -> list[str]:
    """``setpriv`` to user and group ``uid`` without groups, capabilities or new privileges."""
    return [
        setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
    ]


def own_process_count() -> int:
    """How many processes this user id runs (RLIMIT_NPROC counts them all, not only the sandbox's)."""
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count
