"""This kit's environment as if installed elsewhere: under /tmp, /var/tmp, /dev/shm, /opt or the sandbox's home.

A copy of the environment with its own venv costs minutes; instead the grader runs in a mount
namespace of its own (``unshare --mount``, as root) in which this environment's folder
(``sys.prefix``) is bound at ``<place>/<private, mode 0700>/the kit/.venv`` and its Python is
started from there: ``sys.prefix`` is then that path, and the sandbox binds the environment
exactly where a kit cloned there would have it — the mount collision itself (the sandbox's own
fresh ``/tmp``, ``/dev/shm`` and home are mounted on those very places). Folders that cannot be
made on the host without touching it (``/opt``, the sandbox's home) are made on a tmpfs mounted,
in that namespace only, over their parent. Nothing outside the namespace changes but a folder
made with :func:`tempfile.mkdtemp` and removed afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.sandbox.isolation.bubblewrap import SANDBOX_HOME

from grading_run import ROOT

#: Where a kit may live, by name: (the folder, and the folder a tmpfs is mounted on in the namespace, if any).
PLACES = {
    "tmp": ("/tmp", None),
    "var-tmp": ("/var/tmp", None),
    "dev-shm": ("/dev/shm", None),
    "opt": ("/opt", "/opt"),
    "sandbox-home": (SANDBOX_HOME, str(Path(SANDBOX_HOME).parent)),
}
#: Binds this environment at ``$2`` (made first; on a tmpfs over ``$3`` if given), makes ``$4`` mode 0700, runs
#: the rest; with a layer ``$5`` an overlay instead, whose changes land in ``$5/upper`` (the hostile suite's canary).
_SETUP = (
    'env=$1 place=$2 shadow=$3 private=$4 layer=$5; shift 5; '
    'if [ -n "$shadow" ]; then mount -t tmpfs -o mode=0755 kit-elsewhere "$shadow"; fi; '
    'mkdir -p "$place"; chmod 0700 "$private"; '
    'if [ -n "$layer" ]; then '
    'mount -t overlay kit-layer -o "lowerdir=$env,upperdir=$layer/upper,workdir=$layer/work" "$place"; '
    'else mount --bind "$env" "$place"; fi; exec "$@"'
)


@dataclass(frozen=True)
class KitElsewhere:
    """A kit's environment at ``venv`` (inside namespace-bound mounts): run commands with :meth:`run`."""

    venv: Path
    private: Path
    _prefix: tuple[str, ...]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """``argv`` (``python`` first: this kit's Python) in the namespace, with the checkout on ``PYTHONPATH``."""
        environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        command = [*self._prefix, *(str(self.python) if word == "python" else word for word in argv)]
        return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout)


def _skip_reason(place: str, shadow: str | None) -> str | None:
    if os.geteuid() != 0:
        return "binding the environment elsewhere needs root (a mount namespace of its own)"
    if shutil.which("unshare") is None or shutil.which("bwrap") is None:
        return "needs unshare (util-linux) and bubblewrap"
    if sys.prefix == sys.base_prefix:
        return "the tests do not run in a virtual environment"
    needed = shadow or place
    return None if Path(needed).is_dir() else f"{needed} does not exist here"


@contextmanager
def kit_elsewhere(name: str, layer: Path | None = None) -> Iterator[KitElsewhere]:
    """This environment as a kit's ``.venv`` under :data:`PLACES` ``[name]``, in a 0700 folder and a name with a space.

    With ``layer`` (an empty folder of the test's) the venv is an overlay of this environment: what
    anything writes into it lands in ``layer/upper`` (made here), never in this environment.
    """
    place, shadow = PLACES[name]
    reason = _skip_reason(place, shadow)
    if reason is not None:
        pytest.skip(reason)
    made: Path | None = None
    if shadow is not None:  # made on the namespace's tmpfs: nothing to remove
        private = Path(place) / "kit.private"
    else:
        made = private = Path(tempfile.mkdtemp(prefix="kit.", dir=place))
    venv = private / "the kit" / ".venv"
    if layer is not None:
        for part in ("upper", "work"):
            (layer / part).mkdir()
    prefix = (
        "unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", _SETUP, "sh",
        sys.prefix, str(venv), shadow or "", str(private), str(layer or ""),
    )
    try:
        yield KitElsewhere(venv, private, prefix)
    finally:
        if made is not None:  # the mount point folders only: the bind was in the namespace
            shutil.rmtree(made)
