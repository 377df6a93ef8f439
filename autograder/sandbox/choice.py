"""Which sandbox to use here: bubblewrap if it really starts a Python, else a loud fallback.

Modes (``--sandbox``):

- ``auto``: bubblewrap if it works here; else the weak fallback (:mod:`.rlimits`), which as root
  runs student code as an unprivileged user id, and refuses if that cannot work here;
- ``required``: bubblewrap or nothing;
- ``none``: the weak fallback, asked for explicitly; as root it still drops privileges when that
  works, and otherwise (only in this mode) runs student code as root.

Either way each run gets its own cgroup where they are writable (:mod:`.cgroups`); elsewhere
:attr:`Sandbox.resource_warning` says so, for the caller to print once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .base import Limits, Sandbox, SandboxUnavailable
from .bubblewrap import Bubblewrap
from .cgroups import Cgroups, CgroupsUnavailable, detect
from .rlimits import ResourceLimitsOnly

MODES = ("auto", "required", "none")

WEAK_ISOLATION_WARNING = (
    "WARNING: bubblewrap (bwrap) is not available or not wanted, so student code runs WITHOUT isolation: it can "
    "read the course directory and signal the grader's other sandboxes. Install bubblewrap (Debian/Ubuntu: "
    "apt-get install bubblewrap) or pass --sandbox=required to refuse to grade without it."
)
RUNS_AS_ROOT_WARNING = "WARNING: --sandbox none as root: student code runs AS ROOT and can change anything here."
NO_CGROUPS_WARNING = (
    "WARNING: no writable cgroups here ({reason}): memory, processes and CPU are limited per process only "
    "(children and shared memory escape them) and time limits are wall-clock time, so a busy machine or "
    "a hostile neighbour can cost an honest student a timeout."
)


def _probe(sandbox: Sandbox) -> str | None:
    """Run ``python -c pass`` in the sandbox; return an error text, or None if it works."""
    with tempfile.TemporaryDirectory(prefix="ndcg-probe-") as scratch:
        launch = sandbox.launch(Path(scratch), slot=0)
        argv = [*launch.argv[:-1], "-c", "pass"]  # the same sandbox, without the runner
        try:
            done = subprocess.run(
                argv, cwd=launch.cwd, env=launch.env, capture_output=True, text=True, timeout=60,
                pass_fds=launch.pass_fds,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return str(error)
        finally:
            launch.end()
    return None if done.returncode == 0 else (done.stderr.strip()[-500:] or f"exit code {done.returncode}")


def _cgroups(limits: Limits) -> tuple[Cgroups | None, str | None]:
    try:
        return detect(limits), None
    except CgroupsUnavailable as error:
        return None, NO_CGROUPS_WARNING.format(reason=error)


def choose_sandbox(mode: str, limits: Limits = Limits()) -> Sandbox:
    """Return the sandbox for ``mode``.

    Parameters
    ----------
    mode : {"auto", "required", "none"}
        ``auto``: bubblewrap if it works here, else resource limits only (the caller warns), as an
        unprivileged user when run as root; ``required``: bubblewrap or nothing; ``none``: resource
        limits only, asked for (as root, as root only if privileges cannot be dropped here).
    limits : Limits
        Resource limits of each sandbox.

    Returns
    -------
    Sandbox

    Raises
    ------
    SandboxUnavailable
        With ``mode="required"`` when bubblewrap is missing or does not work here; with
        ``mode="auto"`` as root when neither bubblewrap nor an unprivileged Python works.
    ValueError
        For an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(MODES)}, got {mode!r}")
    cgroups, warning = _cgroups(limits)
    problem = "--sandbox none was given"
    if mode != "none":
        bwrap = shutil.which("bwrap")
        problem = "bwrap is not installed"
        if bwrap is not None:
            sandbox = Bubblewrap(bwrap, limits, cgroups, warning)
            problem = _probe(sandbox) or ""
            if not problem:
                return sandbox
            problem = f"bwrap does not work here: {problem}"
        if mode == "required":
            raise SandboxUnavailable(f"--sandbox=required but {problem}; install bubblewrap or use --sandbox=auto")
    if os.geteuid() != 0:
        return ResourceLimitsOnly(limits, cgroups, warning)
    try:
        weak = ResourceLimitsOnly(limits, cgroups, warning)
        drop_problem = _probe(weak)
    except SandboxUnavailable as error:
        drop_problem = str(error)
    if drop_problem is None:
        return weak
    if mode == "none":
        return ResourceLimitsOnly(limits, cgroups, warning, keep_root=True)
    raise SandboxUnavailable(
        f"{problem}, and as root student code would run as root: Python does not start as an unprivileged "
        f"user here ({drop_problem.splitlines()[-1] if drop_problem else '?'}); install bubblewrap, or pass "
        "--sandbox none to run student code as root"
    )
