"""The fallback without bubblewrap: resource limits only, in a temporary directory (WEAK)."""

from __future__ import annotations

import sys
from pathlib import Path

from .base import RUNNER, Launch, Limits, own_process_count, prlimit_prefix, sandbox_environment


class ResourceLimitsOnly:
    """No isolation, only resource limits in a temporary directory (when bubblewrap is missing)."""

    name = "resource limits only (WEAK isolation)"
    isolated = False

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The runner under ``prlimit``, with ``scratch`` as home and working directory."""
        env = sandbox_environment(str(scratch), str(Path(sys.executable).parent))
        argv = [sys.executable, "-I", str(RUNNER)]
        processes = own_process_count() + self.limits.processes
        return Launch(prlimit_prefix(self.limits, processes) + argv, cwd=str(scratch), env=env)
