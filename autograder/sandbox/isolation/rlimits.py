"""The fallback without bubblewrap: resource limits only, in a temporary directory (WEAK).

Nothing is hidden: the student's code sees the file system with the rights of the user it runs
as. As root it does not run as root: ``setpriv`` drops it to an unprivileged user id of its own
per worker slot (as bubblewrap does), unless the tutor explicitly asked for ``--sandbox none``
where that cannot work (:mod:`.choice` decides). With :mod:`~autograder.sandbox.resources.cgroups` memory,
tasks and CPU are
limited for the run as a whole, and every process it started is killed at its end.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..resources.cgroups import Cgroups
from ..resources.limits import Limits, SandboxUnavailable
from ..resources.uids import lease_uid
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
    system_tool,
)

#: The runner's copy in the scratch folder of a run under a user id of its own.
RUNNER_COPY = ".ndcg-runner.py"


class ResourceLimitsOnly:
    """No isolation, only resource limits in a temporary directory (when bubblewrap is missing).

    Parameters
    ----------
    limits : Limits
    cgroups : Cgroups or None
        One cgroup per run, where they work.
    resource_warning : str or None
        Shown once per batch (no cgroups here).
    keep_root : bool
        As root, run student code as root (only with an explicit ``--sandbox none``); by default
        it runs as an unprivileged user id.
    root_reason : str or None
        With ``keep_root``: why an unprivileged user cannot run it here (shown in the warning).
    """

    name = "resource limits only (WEAK isolation)"
    isolated = False

    def __init__(
        self, limits: Limits = Limits(), cgroups: Cgroups | None = None, resource_warning: str | None = None,
        *, keep_root: bool = False, root_reason: str | None = None,
    ) -> None:
        self.limits = limits
        #: Why student code runs as root (``--sandbox none`` where an unprivileged user cannot run it), or None.
        self.root_reason = root_reason if keep_root else None
        self.cgroups = cgroups
        self.resource_warning = resource_warning
        self.setpriv: str | None = None
        if os.geteuid() == 0 and not keep_root:
            self.setpriv = system_tool("setpriv")
            if self.setpriv is None:
                raise SandboxUnavailable(
                    "without bubblewrap, as root, student code would run as root: setpriv (util-linux) is missing"
                )

    @property
    def runs_as_root(self) -> bool:
        """True when student code runs with the grader's root rights (explicit ``--sandbox none`` only)."""
        return os.geteuid() == 0 and self.setpriv is None

    @property
    def mode(self) -> str:
        """One line for tutors: no isolation, as whom, and where the limits hold."""
        whom = ", AS ROOT" if self.runs_as_root else ""
        return f"NO isolation (resource limits only{whom}); {limits_mode(self.cgroups)}"

    def close(self) -> None:
        """Nothing is kept between runs here."""

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The runner under ``prlimit``, with ``scratch`` as home and working directory."""
        env = sandbox_environment(str(scratch), str(Path(sys.executable).parent))
        runner = RUNNER
        lease = None
        if self.setpriv is not None:
            lease = lease_uid(slot)
            # a copy the user can read wherever the course lives (a folder only root may enter, say);
            # it is read before any student code runs, and the folder is the run's alone
            runner = scratch / RUNNER_COPY
            shutil.copyfile(RUNNER, runner)
            runner.chmod(0o444)
            os.chown(scratch, lease.uid, lease.uid)
        argv = runner_command(sys.executable, str(runner))
        if lease is not None and self.setpriv is not None:
            argv = drop_privileges(lease.uid, self.setpriv) + argv
            processes = self.limits.processes  # RLIMIT_NPROC counts the processes of that user id only
        else:
            processes = own_process_count() + self.limits.processes
        argv = prlimit_prefix(self.limits, processes) + argv
        return grouped_launch(argv, str(scratch), env, self.cgroups, lease)
