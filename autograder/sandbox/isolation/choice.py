"""Which sandbox to use here: bubblewrap if it really starts a Python, else a loud fallback.

Modes (``--sandbox``):

- ``auto``: bubblewrap if it works here; else the weak fallback (:mod:`.rlimits`), which as root
  runs student code as an unprivileged user id, and refuses if that cannot work here;
- ``required``: bubblewrap or nothing;
- ``none``: the weak fallback, asked for explicitly; as root it still drops privileges when that
  works, and otherwise (only in this mode) runs student code as root.

Either way each run gets its own cgroup where they are writable (:mod:`~autograder.sandbox.resources.cgroups`);
elsewhere
:attr:`Sandbox.resource_warning` says so, for the caller to print once.
"""

from __future__ import annotations

import os
import shutil

from ..resources.cgroups import Cgroups, CgroupsUnavailable, detect
from ..resources.limits import Limits, SandboxUnavailable
from .bubblewrap import Bubblewrap
from .launch import Sandbox
from .preflight import sandbox_problem
from .rlimits import ResourceLimitsOnly
from .warm_check import warm_problem

MODES = ("auto", "required", "none")
INSTALL_BWRAP = "install bubblewrap (apt-get install bubblewrap)"

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
        ``mode="auto"`` as root when neither bubblewrap nor an unprivileged Python works; in any
        mode when the chosen sandbox cannot start the course's Python and read what it needs
        (:mod:`.preflight`: one line naming the folder in the way and the fix). Where bubblewrap's
        warm runs (:mod:`.warm_check`) cannot import what a notebook imports, runs start cold and
        :attr:`Sandbox.resource_warning` says why.
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
            problem = sandbox_problem(sandbox) or ""
            if not problem:
                return _warm_checked(sandbox)
            problem = f"bwrap does not work here: {problem}"
        if mode == "required":
            raise SandboxUnavailable(f"--sandbox=required but {problem}; {INSTALL_BWRAP} or use --sandbox=auto")
    if os.geteuid() != 0:
        weak = ResourceLimitsOnly(limits, cgroups, warning)
        _check(weak, f"{INSTALL_BWRAP}")
        return weak
    try:
        weak = ResourceLimitsOnly(limits, cgroups, warning)
        drop_problem = sandbox_problem(weak)
    except SandboxUnavailable as error:
        drop_problem = str(error)
    if drop_problem is None:
        return weak
    if mode == "none":
        as_root = ResourceLimitsOnly(limits, cgroups, warning, keep_root=True, root_reason=drop_problem)
        _check(as_root, INSTALL_BWRAP)
        return as_root
    # auto, as root: bwrap is missing or broken and student code would run as root: refuse, in one line
    raise SandboxUnavailable(
        f"{problem}, and without it {drop_problem}; or {INSTALL_BWRAP}, or pass --sandbox none to run student code "
        "as root"
    )


def _warm_checked(sandbox: Bubblewrap) -> Bubblewrap:
    """``sandbox``, with warm starts turned off (and a warning why) when a warm run cannot do what a cold one does.

    The cold check has passed: runs can always start cold.
    """
    problem = warm_problem(sandbox)
    if problem is not None:
        sandbox.start_cold(problem)
    return sandbox


def _check(sandbox: Sandbox, fix: str) -> None:
    """Refuse (one line, exit code 2) when ``sandbox`` cannot start the course's Python."""
    problem = sandbox_problem(sandbox)
    if problem is not None:
        raise SandboxUnavailable(f"{problem}; or {fix}")
