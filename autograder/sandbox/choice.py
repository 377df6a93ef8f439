"""Which sandbox to use here: bubblewrap if it really starts a Python, else a loud fallback."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .base import Limits, Sandbox, SandboxUnavailable
from .bubblewrap import Bubblewrap
from .rlimits import ResourceLimitsOnly

MODES = ("auto", "required")

WEAK_ISOLATION_WARNING = (
    "WARNING: bubblewrap (bwrap) is not available, so student code runs WITHOUT isolation: it can "
    "read the course directory and signal the grader. Install bubblewrap (Debian/Ubuntu: "
    "apt-get install bubblewrap) or pass --sandbox=required to refuse to grade without it."
)


def _probe(sandbox: Bubblewrap, scratch: Path) -> str | None:
    """Run ``python -c pass`` in the sandbox; return an error text, or None if it works."""
    launch = sandbox.launch(scratch, slot=0)
    argv = [*launch.argv[:-1], "-c", "pass"]  # the same sandbox, without the runner
    try:
        done = subprocess.run(argv, cwd=launch.cwd, env=launch.env, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit code {done.returncode}")


def choose_sandbox(mode: str, limits: Limits = Limits()) -> Sandbox:
    """Return the sandbox for ``mode``.

    Parameters
    ----------
    mode : {"auto", "required"}
        ``auto``: bubblewrap if it works here, else resource limits only (the caller warns);
        ``required``: bubblewrap or nothing.
    limits : Limits
        Resource limits of each sandboxed process.

    Returns
    -------
    Sandbox

    Raises
    ------
    SandboxUnavailable
        With ``mode="required"`` when bubblewrap is missing or does not work here.
    ValueError
        For an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"--sandbox must be 'auto' or 'required', got {mode!r}")
    bwrap = shutil.which("bwrap")
    problem = "bwrap is not installed" if bwrap is None else None
    if bwrap is not None:
        sandbox = Bubblewrap(bwrap, limits)
        with tempfile.TemporaryDirectory(prefix="ndcg-probe-") as scratch:
            problem = _probe(sandbox, Path(scratch))
        if problem is None:
            return sandbox
        problem = f"bwrap does not work here: {problem}"
    if mode == "required":
        raise SandboxUnavailable(f"--sandbox=required but {problem}; install bubblewrap or use --sandbox=auto")
    return ResourceLimitsOnly(limits)
