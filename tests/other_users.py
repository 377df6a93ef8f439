"""Let another Unix user reach this checkout and its environment, wherever they live (a 0700 ``mktemp -d`` folder).

Tests that run a kernel or JupyterLab as a second user (``setpriv``) need this environment's
packages, and the editable install points into the checkout. A checkout in a folder other users
cannot enter (``mktemp -d`` makes them mode 0700, as is root's home) was out of their reach. The
command prefix of :func:`reach_for` runs the rest in a mount namespace of its own (as root, with
``unshare``) in which the first such folder is replaced by a tmpfs of mode 0755 on which the
checkout and the environment are bound back at their own paths: the other user sees the same
paths as the tests, and nothing outside that namespace changes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from autograder.sandbox.isolation.preflight import blocked_path

from conftest import ROOT


def reach_for(uid: int, scratch: Path, interpreter: bool = False) -> list[str]:
    """A command prefix after which user ``uid`` may reach the checkout and ``sys.prefix`` ([] if it already can).

    ``scratch`` is a folder of the test's that ``uid`` may enter (each path is held there while
    the tmpfs goes over the folder in its way). ``interpreter``: the venv's own Python too (the
    installation its ``bin/python`` links to, which may live in root's 0700 home, as pyenv's does),
    so that ``uid`` runs the venv's programs themselves (their ``#!`` line names that Python).
    """
    candidates = [ROOT, Path(sys.prefix)]
    if interpreter:
        candidates.append(Path(os.path.realpath(sys.executable)).parent.parent)
    needed = [path for path in dict.fromkeys(candidates)
              if not any(other in path.parents for other in candidates if other != path)]
    held, covered, bound = [], [], []
    for number, path in enumerate(needed):
        blocked = blocked_path(path, uid)
        if blocked is None:
            continue
        if blocked.path == path or not blocked.path.is_dir():
            pytest.skip(f"{path} itself is closed to other users (mode {blocked.mode:04o})")
        aside = shlex.quote(str(scratch / f".reach-{number}"))
        held.append(f"mkdir -p {aside}; mount --bind {shlex.quote(str(path))} {aside}")
        folder = shlex.quote(str(blocked.path))
        covered.append(f"mountpoint -q {folder} || mount -t tmpfs -o mode=0755 other-users {folder}")
        bound.append(f"mkdir -p {shlex.quote(str(path))}; mount --bind {aside} {shlex.quote(str(path))}")
    if not held:
        return []
    if shutil.which("unshare") is None or shutil.which("mountpoint") is None:
        pytest.skip("the checkout is closed to other users, and reaching it needs unshare and mountpoint")
    script = "; ".join([*held, *covered, *bound, 'exec "$@"'])
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", script, "sh"]
