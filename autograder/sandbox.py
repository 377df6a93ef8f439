"""How student code is started: inside bubblewrap, or (weakly) under resource limits only.

The grader never runs student code itself. It starts ``runner.py`` in a sandbox that sees a
read-only Python and ``/usr``, an empty writable home directory (the scratch copy), its own PID,
network, IPC and UTS namespaces, and nothing of the course directory: not the instructor's
notebook, the test cases, ``ndcg_ref``, the gradebook or other submissions. Resource limits
(address space, CPU time, file size, open files, processes) are set with ``prlimit``.

When the grader runs as root (CI, a course server), the sandboxed process drops to an
unprivileged user id of its own (``setpriv``), so that the process limit is enforced and it
cannot signal anything outside. As a normal user, bubblewrap's user namespace does that job.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

RUNNER = Path(__file__).with_name("runner.py")
SANDBOX_RUNNER = "/opt/grader/runner.py"
SANDBOX_HOME = "/home/student"
#: First user id used for sandboxed processes when the grader runs as root (one per worker slot).
FIRST_SANDBOX_UID = 61000


class SandboxUnavailable(RuntimeError):
    """The requested isolation cannot be had on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed process."""

    memory_bytes: int = 2 * 1024**3
    cpu_seconds: int = 600
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256


@dataclass(frozen=True)
class Launch:
    """What to run for one sandboxed process."""

    argv: list[str]
    cwd: str
    env: dict[str, str]


def _sandbox_environment(home: str, python_bin: str) -> dict[str, str]:
    return {
        "HOME": home,
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _prlimit(limits: Limits, processes: int) -> list[str]:
    tool = shutil.which("prlimit")
    if tool is None:
        return []
    return [
        tool,
        f"--as={limits.memory_bytes}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        f"--nproc={processes}",
        "--core=0",
        "--",
    ]


def _own_process_count() -> int:
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count


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
        for key, value in _sandbox_environment(SANDBOX_HOME, str(Path(python).parent)).items():
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
            processes = _own_process_count() + self.limits.processes
        return Launch(_prlimit(self.limits, processes) + args + inner, cwd=str(scratch), env={"PATH": os.environ.get("PATH", "")})


class ResourceLimitsOnly:
    """No isolation, only resource limits in a temporary directory (when bubblewrap is missing)."""

    name = "resource limits only (WEAK isolation)"
    isolated = False

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits

    def launch(self, scratch: Path, slot: int) -> Launch:
        env = _sandbox_environment(str(scratch), str(Path(sys.executable).parent))
        argv = [sys.executable, "-I", str(RUNNER)]
        processes = _own_process_count() + self.limits.processes
        return Launch(_prlimit(self.limits, processes) + argv, cwd=str(scratch), env=env)


Sandbox = Bubblewrap | ResourceLimitsOnly

WEAK_ISOLATION_WARNING = (
    "WARNING: bubblewrap (bwrap) is not available, so student code runs WITHOUT isolation: it can "
    "read the course directory and signal the grader. Install bubblewrap (Debian/Ubuntu: "
    "apt-get install bubblewrap) or pass --sandbox=required to refuse to grade without it."
)


def _probe(sandbox: Bubblewrap, scratch: Path) -> str | None:
    """Run ``python -c pass`` in the sandbox; return an error text, or None if it works."""
    launch = sandbox.launch(scratch, slot=0)
    argv = launch.argv[:-1] + ["-c", "pass"]  # the same sandbox, without the runner
    try:
        done = subprocess.run(argv, cwd=launch.cwd, env=launch.env, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit code {done.returncode}")


def choose_sandbox(mode: str, limits: Limits = Limits()) -> Sandbox:
    """Return the sandbox for ``mode``: ``"auto"`` (bubblewrap if it works, else a loud fallback) or ``"required"``.

    Raises
    ------
    SandboxUnavailable
        With ``mode="required"`` when bubblewrap is missing or does not work here.
    ValueError
        For an unknown mode.
    """
    if mode not in ("auto", "required"):
        raise ValueError(f"--sandbox must be 'auto' or 'required', got {mode!r}")
    bwrap = shutil.which("bwrap")
    problem = "bwrap is not installed" if bwrap is None else None
    if bwrap is not None:
        import tempfile

        sandbox = Bubblewrap(bwrap, limits)
        with tempfile.TemporaryDirectory(prefix="ndcg-probe-") as scratch:
            problem = _probe(sandbox, Path(scratch))
        if problem is None:
            return sandbox
        problem = f"bwrap does not work here: {problem}"
    if mode == "required":
        raise SandboxUnavailable(f"--sandbox=required but {problem}; install bubblewrap or use --sandbox=auto")
    return ResourceLimitsOnly(limits)
