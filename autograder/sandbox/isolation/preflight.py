"""Before grading: prove that the sandbox's user can start the course's Python and read what it needs.

Without this check a course in a folder the sandbox's user cannot enter (a parent with mode 0700:
root's home, a ``mktemp -d`` folder) graded every honest student 0 with exit code 0: as root, the
fallback without bubblewrap drops to an unprivileged user id, whose Python could not open the
runner, or started but without the course's packages (on some kernels an interpreter below a
folder it cannot enter still starts, then falls back to the system's standard library). So the
check runs a small script in the very sandbox that grades — the same launch command, user id,
scratch folder and environment — and compares what it finds with the grader's own Python: the
same version and prefixes, the runner readable, the course's packages found, the scratch folder
writable. When it fails, :func:`blocked_path` names the folder in the way.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .launch import Sandbox

#: Packages the notebooks and the runner (IPython, for ``%magic`` cells) use, where the grader's Python has them.
COURSE_PACKAGES = ("IPython", "numpy", "matplotlib")
#: Seconds the check may take (a Python start, even on a busy machine).
CHECK_TIMEOUT = 120.0

#: Runs in the sandbox as ``python -I -S -c CHECK <runner> <package>...``; prints one JSON line.
#: It finds the packages as the runner does (``runner._site``): from ``NDCG_SITE_PACKAGES``.
CHECK = r"""
import importlib.util, json, os, sys
if sys.flags.no_site:
    if os.environ.get("NDCG_PREFIX"):
        sys.prefix = sys.exec_prefix = os.environ["NDCG_PREFIX"]
    sys.path.extend(folder for folder in os.environ.get("NDCG_SITE_PACKAGES", "").split(os.pathsep) if folder)
found = {"version": sys.version, "prefix": sys.prefix, "base_prefix": sys.base_prefix}
try:
    with open(sys.argv[1], "rb") as runner:
        runner.read(1)
except OSError as error:
    found["runner"] = f"{type(error).__name__}: {error}"
found["missing"] = [name for name in sys.argv[2:] if importlib.util.find_spec(name) is None]
try:
    with open(".ndcg-preflight", "w") as probe:
        probe.write("x")
    os.remove(".ndcg-preflight")
except OSError as error:
    found["scratch"] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Blocked:
    """A folder the sandbox's user cannot enter, or a file it cannot read, on the way to ``needed``."""

    path: Path
    mode: int
    needed: Path

    def __str__(self) -> str:
        what = "enter" if self.path.is_dir() else "read"
        return f"cannot {what} {self.path} (mode {self.mode:04o}), on the way to {self.needed}"

    @property
    def fix(self) -> str:
        """What a tutor can run so that every user may pass (or read)."""
        return f"chmod o+{'x' if self.path.is_dir() else 'r'} {self.path}"


def _allows(info: os.stat_result, uid: int, bits: int) -> bool:
    """Whether user ``uid`` (group ``uid``, no other groups: see :func:`.launch.drop_privileges`) has ``bits``."""
    if uid == 0:
        return True
    mode = info.st_mode
    shift = 6 if info.st_uid == uid else 3 if info.st_gid == uid else 0
    return (mode >> shift) & bits == bits


def blocked_path(needed: Path, uid: int) -> Blocked | None:
    """The first folder on the way to ``needed`` that ``uid`` cannot enter (or ``needed`` itself if unreadable).

    Both the path as written and the path with its links resolved are walked; ACLs and security
    modules are not looked at (the check in the sandbox is what proves access; this only names
    the folder).
    """
    for path in dict.fromkeys([Path(os.path.abspath(needed)), Path(os.path.realpath(needed))]):
        for folder in [*reversed(path.parents), path]:
            try:
                info = folder.stat()
            except OSError:
                break
            is_dir = stat.S_ISDIR(info.st_mode)
            bits = 0o1 if is_dir and folder != path else 0o5 if is_dir else 0o4
            if not _allows(info, uid, bits):
                return Blocked(folder, stat.S_IMODE(info.st_mode), path)
    return None


def needed_paths() -> list[Path]:
    """What a sandbox without its own file system needs to reach: the Python (each link), its prefixes, scratch."""
    executable = Path(sys.executable)
    paths = [executable]
    hop = executable
    for _ in range(40):  # each link of a venv's python -> python3 -> /usr/bin/python3.11 chain
        if not hop.is_symlink():
            break
        hop = hop.parent / os.readlink(hop)
        paths.append(hop)
    # not the runner: the fallback hands a user of its own a copy in its scratch folder (see .rlimits)
    return [*paths, Path(sys.prefix), Path(sys.base_prefix), Path(tempfile.gettempdir())]


def _compare(found: dict[str, object]) -> str | None:
    """What differs between the sandbox's Python and the grader's, in a few words; None if nothing."""
    if found.get("version") != sys.version:
        return f"it starts another Python ({str(found.get('version')).split()[0]}, not {sys.version.split()[0]})"
    if (found.get("prefix"), found.get("base_prefix")) != (sys.prefix, sys.base_prefix):
        return f"its Python does not see the course's environment {sys.prefix} (it sees {found.get('prefix')})"
    if "runner" in found:
        return f"it cannot read the grader's runner: {found['runner']}"
    missing = found.get("missing")
    if isinstance(missing, list) and missing:
        return f"its Python does not find {', '.join(str(name) for name in missing)} (installed in {sys.prefix})"
    if "scratch" in found:
        return f"it cannot write in its scratch folder under {tempfile.gettempdir()}: {found['scratch']}"
    return None


def check_cell() -> str:
    """The cell of the warm check (:mod:`.warm_check`): the course's packages (and IPython's inline backend) found.

    Found, not imported: a mount that hides the environment hides it from ``find_spec`` as surely,
    and importing IPython and matplotlib cost the check about a second of CPU time at every
    grading command (numpy, which the zygote has imported, is imported: it costs nothing there).
    """
    packages = [name for name in (*COURSE_PACKAGES, "matplotlib_inline") if importlib.util.find_spec(name) is not None]
    return "\n".join([
        "import importlib.util" + (", numpy" if "numpy" in packages else ""),
        # a folder of the name with nothing in it (a mount over it) is a namespace package without an origin
        f"missing = [name for name in {packages!r} if getattr(importlib.util.find_spec(name), 'origin', None) is None]",
        "if missing:",
        "    raise ModuleNotFoundError(f'No module named {missing[0]!r}')",
    ])


def sandbox_problem(sandbox: Sandbox) -> str | None:
    """Run the check in ``sandbox``; return what is wrong in one line, or None when it can grade.

    The text names the sandbox's user id when it runs as one of its own, and the folder in its
    way when one can be found; the caller adds what the tutor can do instead.
    """
    packages = [name for name in COURSE_PACKAGES if importlib.util.find_spec(name) is not None]
    with tempfile.TemporaryDirectory(prefix="ndcg-preflight-") as scratch:
        launch = sandbox.launch(Path(scratch), slot=0)
        uid = launch.uid_lease.uid if launch.uid_lease is not None else None
        argv = [*launch.argv[:-1], "-c", CHECK, launch.argv[-1], *packages]  # the runner's path as the sandbox sees it
        try:
            done = subprocess.run(
                argv, cwd=launch.cwd, env=launch.env, capture_output=True, text=True, timeout=CHECK_TIMEOUT,
                pass_fds=launch.pass_fds,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"the sandbox does not start a Python here: {error}"
        finally:
            launch.end()
    lines = done.stdout.strip().splitlines()
    try:
        found = json.loads(lines[-1]) if done.returncode == 0 and lines else None
    except ValueError:
        found = None
    problem = _compare(found) if isinstance(found, dict) else (
        f"its Python does not start ({(done.stderr.strip().splitlines() or [f'exit code {done.returncode}'])[-1]})"
    )
    if problem is None:
        return None
    who = f"the sandbox user {uid}" if uid is not None else "the sandbox"
    if uid is not None and uid != os.geteuid() and not sandbox.isolated:  # bubblewrap mounts what it needs
        for needed in needed_paths():
            blocked = blocked_path(needed, uid)
            if blocked is not None:
                return f"{who} {blocked}: grade from a folder all users may enter (e.g. {blocked.fix})"
    return f"{who} cannot use the course's Python {sys.executable}: {problem}"
