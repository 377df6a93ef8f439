"""One cgroup per sandboxed run: memory, processes and CPU limited for the sandbox as a whole.

Resource limits (``prlimit``) hold per process: forked children, and files in shared memory
(``memfd``, ``/dev/shm``, a tmpfs) escape them. A kernel control group holds every process a run
starts, wherever it moves its session or process group, so that

- its memory, *including* shared memory and tmpfs pages, has one limit (and no swap, where the
  kernel accounts it), with the kernel's OOM killer acting inside the group only;
- its number of tasks (processes and threads) has one limit;
- it gets at most ``Limits.cpu_cores`` of CPU (the CFS quota), so one sandbox cannot starve
  another worker's, and its own CPU time can be read (so that a student is judged on the time
  their code used, not on the machine's load: :mod:`~autograder.sandbox.runs.deadline`);
- every process in it is killed at the end of the run, also those that escaped the process group.

Where cgroups come from: the grader's own cgroup in each hierarchy, from ``/proc/self/cgroup``
and ``/proc/self/mountinfo``. Under it the grader makes ``autograder-<pid>/`` and, per run,
``autograder-<pid>/run-<n>/``.

- **cgroup v1** (separate ``memory``, ``pids``, ``cpu`` and ``cpuacct`` hierarchies, writable as
  root on many servers and CI machines): the same folders in each hierarchy.
- **cgroup v2** (unified): where the grader's cgroup offers the ``memory``, ``pids`` and ``cpu``
  controllers and is writable: the root cgroup (as root), or a delegated cgroup the grader has to
  itself (``systemd-run --user --scope -p Delegate=yes python -m autograder grade ...``); the
  grader then moves itself into a leaf ``grader-<pid>/`` (the kernel lets a cgroup with processes
  hand no controllers to its children).

Elsewhere :func:`detect` says why not, and the caller falls back to the per-process limits with a
warning. A process joins its run's cgroup before anything else runs: the launch command starts
with ``/bin/sh -c 'echo $$ > .../cgroup.procs; ...; exec "$@"'`` (no ``preexec_fn``, which is not
safe with the grader's worker threads); if that write fails the shell exits with 126 and nothing
else starts.
"""

from __future__ import annotations

import atexit
import errno
import itertools
import os
import shlex
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .limits import Limits
from .teardown import kill, open_pidfds, wait_exits, wait_unpopulated

#: Controllers a cgroup must have for the limits; ``cpuacct`` (v1) only adds the CPU-time clock.
REQUIRED = ("memory", "pids", "cpu")
#: Tasks of the launch chain in the group on top of the sandbox's own: sh/prlimit/bwrap, bwrap's init.
EXTRA_TASKS = 8
CPU_PERIOD_US = 100_000
#: Exit code of the launch shell when a process could not join its cgroup.
JOIN_FAILED = 126


_NUMBERS = itertools.count()
_NUMBERS_LOCK = threading.Lock()


def read_cpu_seconds(usage: Path) -> float | None:
    """CPU seconds charged to a cgroup and its children, from its ``cpuacct.usage`` (v1, nanoseconds)
    or its ``cpu.stat`` (v2, ``usage_usec``); None if the file cannot be read."""
    try:
        text = usage.read_text()
        if usage.name == "cpuacct.usage":
            return int(text) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    except (OSError, ValueError):
        pass
    return None

class CgroupsUnavailable(RuntimeError):
    """No writable cgroup with the needed controllers here (the text says why)."""


@dataclass(frozen=True)
class _Mount:
    fstype: str
    root: str
    point: Path
    controllers: frozenset[str]


def _mounts(proc_self: Path) -> list[_Mount]:
    """The cgroup file systems mounted here (from ``mountinfo``)."""
    found = []
    for line in (proc_self / "mountinfo").read_text().splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        fstype, options = fields[dash + 1], fields[dash + 3] if len(fields) > dash + 3 else ""
        if fstype not in ("cgroup", "cgroup2"):
            continue
        point = fields[4].replace("\\040", " ")
        found.append(_Mount(fstype, fields[3], Path(point), frozenset(options.split(","))))
    return found


def _own_paths(proc_self: Path) -> dict[str, str]:
    """The grader's cgroup per v1 controller, and under ``""`` its v2 cgroup."""
    paths: dict[str, str] = {}
    for line in (proc_self / "cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _below(mount: _Mount, path: str) -> Path:
    """The folder of cgroup ``path`` in a mount of its hierarchy (mounted at ``mount.root``)."""
    relative = os.path.relpath(path, mount.root) if mount.root != "/" else path.lstrip("/")
    if relative.startswith(".."):
        raise CgroupsUnavailable(f"the grader's cgroup {path} is outside the mounted {mount.point}")
    return mount.point / relative if relative != "." else mount.point


def _read_small(path: bytes) -> bytes:
    """The first 64 KiB of a small kernel file (one ``open`` and ``read``, nothing else)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(descriptor, 65536)
    finally:
        os.close(descriptor)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _pids(folder: Path) -> list[int]:
    try:
        return [int(word) for word in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


class RunGroup:
    """The cgroup (one folder per hierarchy) of one sandboxed run."""

    def __init__(self, folders: list[Path], version: int, cpu_usage: Path | None) -> None:
        self.folders = folders
        self.version = version
        self._cpu_usage = cpu_usage

    def enter_prefix(self) -> list[str]:
        """``/bin/sh -c`` that puts itself in this cgroup, then ``exec``s the rest of the command."""
        files = " ".join(shlex.quote(str(folder / "cgroup.procs")) for folder in self.folders)
        script = f'for f in {files}; do echo $$ > "$f" || exit {JOIN_FAILED}; done; exec "$@"'
        return ["/bin/sh", "-c", script, "sh"]

    def adopt(self, pid: int) -> None:
        """Move process ``pid`` (of the grader's PID namespace) into this cgroup, in every hierarchy.

        Raises
        ------
        OSError
            When the kernel refuses (the process is gone, or the grader may not move it).
        """
        for folder in self.folders:
            _write(folder / "cgroup.procs", str(pid))

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by every process of the run (None if it cannot be read)."""
        return None if self._cpu_usage is None else read_cpu_seconds(self._cpu_usage)

    def task_delays(self) -> dict[int, float]:
        """Seconds each live task (thread) of the run has waited for a CPU while ready to run.

        The kernel's ``run_delay`` (``/proc/<tid>/schedstat``): time a task spent runnable on a run
        queue, not running. A task that has ended is no longer listed; empty if nothing can be read.
        """
        # read before every item a submission runs (thousands per class): plain reads, no pathlib
        try:
            tasks = _read_small(self._threads_file).split()
        except OSError:
            return {}
        delays: dict[int, float] = {}
        for task in tasks:
            try:
                delays[int(task)] = int(_read_small(b"/proc/" + task + b"/schedstat").split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                pass  # ended meanwhile, or a kernel without schedstat
        return delays

    @property
    def _threads_file(self) -> bytes:
        return os.fsencode(self.folders[0] / ("tasks" if self.version == 1 else "cgroup.threads"))

    def kill(self) -> None:
        """SIGKILL every process in the group until none is left (or give up after a few seconds).

        Waits for the kernel's word that they are gone (:mod:`.teardown`), not in sleeps.
        """
        give_up = time.monotonic() + 5.0
        kill_file = self.folders[0] / "cgroup.kill"
        if self.version == 2 and kill_file.exists():
            try:
                _write(kill_file, "1")
                if wait_unpopulated(self.folders[0] / "cgroup.events", give_up):
                    return
            except OSError:
                pass
        while time.monotonic() < give_up:
            alive = {pid for folder in self.folders for pid in _pids(folder)}
            if not alive:
                return
            handles = open_pidfds(alive)
            kill(alive, handles)
            if not (handles and wait_exits(list(handles.values()), give_up)):
                time.sleep(0.001)  # no pidfds here; or a child forked just before its parent died: look again

    def remove(self) -> None:
        """Kill what is left in the group, then remove its folders."""
        self.kill()
        for folder in self.folders:
            _remove_folder(folder)


def _remove_folder(folder: Path) -> None:
    """``rmdir`` a cgroup, retrying a little while its last (zombie) processes are reaped."""
    for _ in range(1000):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY:
                return
            time.sleep(0.002)


class Cgroups:
    """The grader's cgroups: ``autograder-<pid>/`` in each hierarchy, one ``run-<n>/`` per run."""

    def __init__(self, version: int, parents: dict[str, Path], limits: Limits) -> None:
        #: 1 or 2.
        self.version = version
        #: Per controller (v1) or ``""`` (v2): the folder ``autograder-<pid>``.
        self.parents = parents
        self.limits = limits

    def describe(self) -> str:
        """Where the limits hold, for the mode line: the version and the grader's folder (the delegated cgroup's)."""
        folder = next(iter(self.parents.values()))
        return f"memory, tasks and CPU limited per sandbox by cgroup v{self.version} (under {folder.parent})"

    def new_run(self) -> RunGroup:
        """Create the cgroup of one run, with its limits (call :meth:`RunGroup.remove` when it is over)."""
        with _NUMBERS_LOCK:  # worker threads make runs at the same time, maybe through two Cgroups
            name = f"run-{next(_NUMBERS)}"
        folders: list[Path] = []
        try:
            for parent in dict.fromkeys(self.parents.values()):
                folder = parent / name
                folder.mkdir()
                folders.append(folder)
            group = self._configure(folders)
        except OSError:
            for folder in folders:
                _remove_folder(folder)
            raise
        return group

    def _folder(self, controller: str, folders: list[Path]) -> Path:
        parent = self.parents[controller if self.version == 1 else ""]
        return next(folder for folder in folders if folder.parent == parent)

    def _configure(self, folders: list[Path]) -> RunGroup:
        limits = self.limits
        memory, pids, cpu = (self._folder(c, folders) for c in REQUIRED)
        quota = max(1000, round(limits.cpu_cores * CPU_PERIOD_US))
        if self.version == 1:
            _write(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():  # no escape into swap
                _write(memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            try:
                _write(memory / "memory.oom_control", "0")  # the OOM killer acts inside the group
            except OSError:
                pass
            _write(pids / "pids.max", str(limits.processes + EXTRA_TASKS))
            _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(cpu / "cpu.cfs_quota_us", str(quota))
            usage = self._folder("cpuacct", folders) / "cpuacct.usage" if "cpuacct" in self.parents else None
            return RunGroup(folders, 1, usage)
        folder = folders[0]
        _write(folder / "memory.max", str(limits.memory_bytes))
        if (folder / "memory.swap.max").exists():
            _write(folder / "memory.swap.max", "0")
        _write(folder / "pids.max", str(limits.processes + EXTRA_TASKS))
        _write(folder / "cpu.max", f"{quota} {CPU_PERIOD_US}")
        return RunGroup(folders, 2, folder / "cpu.stat")

    def close(self) -> None:
        """Remove ``autograder-<pid>/`` (after every run's group was removed)."""
        for parent in dict.fromkeys(self.parents.values()):
            _remove_folder(parent)


def _sweep(base: Path) -> None:
    """Remove what a killed grader left: ``autograder-<pid>`` folders of processes that are gone."""
    try:
        stale = [
            p for p in base.glob("autograder-*")
            if p.name[11:].isdigit() and not Path(f"/proc/{p.name[11:]}").exists()
        ]
    except OSError:
        return
    for parent in stale:
        for run in parent.glob("run-*"):
            RunGroup([run], 1, None).remove()
        _remove_folder(parent)


def _detect_v1(mounts: list[_Mount], own: dict[str, str]) -> dict[str, Path]:
    bases: dict[str, Path] = {}
    for controller in (*REQUIRED, "cpuacct"):
        mount = next((m for m in mounts if m.fstype == "cgroup" and controller in m.controllers), None)
        if mount is None or controller not in own:
            if controller == "cpuacct":
                continue
            raise CgroupsUnavailable(f"no cgroup v1 '{controller}' hierarchy is mounted")
        bases[controller] = _below(mount, own[controller])
    return bases


def _detect_v2(mounts: list[_Mount], own: dict[str, str]) -> Path:
    mount = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if mount is None or "" not in own:
        raise CgroupsUnavailable("no cgroup v2 file system is mounted")
    base = _below(mount, own[""])
    offered = set((base / "cgroup.controllers").read_text().split())
    missing = [c for c in REQUIRED if c not in offered]
    if missing:
        raise CgroupsUnavailable(
            f"the grader's cgroup v2 {own['']} offers no {', '.join(missing)} controller (not delegated)"
        )
    if own[""] != "/":
        others = set(_pids(base)) - {os.getpid()}
        if others:
            raise CgroupsUnavailable(
                f"the grader's cgroup v2 {own['']} holds other processes too; run the grader in a cgroup of its own "
                "(systemd-run --scope -p Delegate=yes ...)"
            )
        leaf = base / f"grader-{os.getpid()}"
        leaf.mkdir(exist_ok=True)
        _write(leaf / "cgroup.procs", str(os.getpid()))  # a cgroup with processes hands no controllers down
    _write(base / "cgroup.subtree_control", " ".join(f"+{c}" for c in REQUIRED))
    return base


def _parent_folder(version: int, base: Path, made: dict[str, Path]) -> Path:
    """The grader's folder below ``base``, made (and old ones swept) unless ``made`` has it already."""
    folder = base / f"autograder-{os.getpid()}"
    if folder not in made.values():  # co-mounted controllers share one folder
        _sweep(base)
        folder.mkdir(exist_ok=True)
        if version == 2:
            _write(folder / "cgroup.subtree_control", " ".join(f"+{c}" for c in REQUIRED))
    return folder


def detect(limits: Limits, proc_self: Path = Path("/proc/self")) -> Cgroups:
    """The grader's cgroups for ``limits``, checked by creating and configuring one run's group.

    Raises
    ------
    CgroupsUnavailable
        With one line on why not (v2 and v1 tried in that order).
    """
    try:
        mounts = _mounts(proc_self)
        own = _own_paths(proc_self)
    except (OSError, ValueError) as error:
        raise CgroupsUnavailable(f"cannot read the grader's cgroups: {error}") from error
    reasons = []
    for version in (2, 1):
        parents: dict[str, Path] = {}
        try:
            bases = {"": _detect_v2(mounts, own)} if version == 2 else _detect_v1(mounts, own)
            for key, base in bases.items():
                parents[key] = _parent_folder(version, base, parents)
            cgroups = Cgroups(version, parents, limits)
            cgroups.new_run().remove()
            atexit.register(cgroups.close)
            return cgroups
        except CgroupsUnavailable as error:
            reasons.append(f"v{version}: {error}")
        except OSError as error:
            reasons.append(f"v{version}: {error.strerror or error} ({error.filename or ''})")
        for folder in dict.fromkeys(parents.values()):
            _remove_folder(folder)
    raise CgroupsUnavailable("; ".join(reasons))
