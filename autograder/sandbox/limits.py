"""What a sandbox is given and what it may refuse with: its resource limits, its user ids, its error.

Its own module so that the launch (:mod:`.launch`), the cgroups (:mod:`.cgroups`) and the id leases
(:mod:`.uids`) all import it and none of them imports another for these names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import KitError

#: First user id used for sandboxed processes when the grader runs as root (leased per run: :mod:`.uids`).
FIRST_SANDBOX_UID = 61000


class SandboxUnavailable(KitError):
    """The requested isolation cannot be had on this machine (exit code 2: the tool cannot do its job as asked)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox.

    With cgroups (:mod:`.cgroups`) ``memory_bytes`` (shared memory and tmpfs files included),
    ``processes`` (tasks: processes and threads) and ``cpu_cores`` hold for the sandbox as a whole;
    ``memory_bytes`` (as address space), ``cpu_seconds``, ``file_bytes``, ``open_files`` and
    ``processes`` are also set per process with ``prlimit``. With bubblewrap the writable home and
    ``/tmp`` are each a tmpfs of ``scratch_bytes``.
    """

    memory_bytes: int = 2 * 1024**3
    cpu_seconds: int = 600
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256
    cpu_cores: float = 1.0
    scratch_bytes: int = 64 * 1024**2
