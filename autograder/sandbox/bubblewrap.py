"""Each submission in its own bubblewrap sandbox (strong isolation).

The sandboxed Python sees a read-only Python and ``/usr``, an empty writable home directory (the
scratch copy), its own PID, network, IPC and UTS namespaces, and nothing of the course directory:
not the instructor's notebook, the test cases, the reference package, the gradebook or other
submissions. Resource limits (address space, CPU time, file size, open files, processes) are set
with ``prlimit``.

When the grader runs as root (CI, a course server), the sandboxed process drops to an
unprivileged user id of its own (``setpriv``), so that the process limit is enforced and it
cannot signal anything outside. As a normal user, bubblewrap's user namespace does that job.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .base import RUNNER, Launch, Limits, own_process_count, prlimit_prefix, sandbox_environment

SANDBOX_RUNNER = "/opt/grader/runner.py"
SANDBOX_HOME = "/home/student"
#: First user id used for sandboxed processes when the grader runs as root (one per worker slot).
FIRST_SANDBOX_UID = 61000


class Bubblewrap:
    """Each submission in its own bubblewrap sandbox (strong isolation)."""

    name = "bubblewrap"
    isolated = True

    def __init__(self, bwrap: str, limits: Limits = Limits()) -> None:
        self.bwrap = bwrap
        self.limits = limits
        self.as_root = os.geteuid() == 0

    def _binds(self) -> list[str]:
        # Fresh /proc, /dev and /tmp first: a later mount hides what was bound below it before
        # (a course cloned under /tmp would otherwise lose its venv inside the sandbox).
        args: list[str] = ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = Path("/") / top
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        args += ["--ro-bind", "/usr", "/usr"]
        python_dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
        made: set[Path] = set()
        for folder in sorted(python_dirs):
            if folder == Path("/usr") or Path("/usr") in folder.parents:
                continue
            for parent in reversed(folder.parents[:-1]):  # create the parents world-traversable
                if parent not in made:
                    args += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            args += ["--ro-bind", str(folder), str(folder)]
        args += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/opt/grader"]
        args += ["--ro-bind", str(RUNNER), SANDBOX_RUNNER]
        args += ["--perms", "0755", "--dir", "/home", "--bind", "{scratch}", SANDBOX_HOME]
        return args

    def launch(self, scratch: Path, slot: int) -> Launch:
        """The command that runs the runner for one submission with ``scratch`` as its home."""
        python = sys.executable
        args = [
            self.bwrap,
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "sandbox",
        ]
        if not self.as_root:
            args += ["--unshare-user"]
        args += [a.replace("{scratch}", str(scratch)) for a in self._binds()]
        args += ["--chdir", SANDBOX_HOME, "--clearenv"]
        for key, value in sandbox_environment(SANDBOX_HOME, str(Path(python).parent)).items():
            args += ["--setenv", key, value]
        inner = [python, "-I", SANDBOX_RUNNER]
        if self.as_root:
            uid = FIRST_SANDBOX_UID + slot
            os.chown(scratch, uid, uid)
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
            inner = [
                "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", *inner,
            ]
            processes = self.limits.processes
        else:
            args += ["--"]
            processes = own_process_count() + self.limits.processes
        argv = prlimit_prefix(self.limits, processes) + args + inner
        return Launch(argv, cwd=str(scratch), env={"PATH": os.environ.get("PATH", "")})
