"""Where the test suite's time goes: CPU time per test file, sandboxes included, on a loaded machine.

Usage (as root, from the project root)::

    nice .venv/bin/python scripts/profile_tests.py --out /tmp/times.tsv -- tests/sandbox -m slow
    .venv/bin/python scripts/profile_tests.py --out /tmp/times.tsv --summary-only

Runs pytest with the ``tests/livetimes.py`` plugin in a cgroup of its own (``pytest-profile-<pid>``,
cgroup v1 ``cpuacct`` or v2), so that the CPU time of every process the tests start is counted,
also a sandbox killed with its cgroup, which no ``getrusage`` sees. Wall time on a machine other
people load says little; CPU time is what the same work costs anywhere. Then prints, per test file,
wall time, both CPU clocks and ``wait`` = wall − cgroup CPU: time spent sleeping, polling or waiting
for a CPU (on an idle core, the first two only).

Without root or a cgroup hierarchy it still runs pytest and reports the ``getrusage`` clock only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.sandbox.resources.cgroups import read_cpu_seconds  # noqa: E402


@dataclass
class FileCost:
    """The summed phases of one test file."""

    tests: set[str] = field(default_factory=set)
    wall: float = 0.0
    rusage_cpu: float = 0.0
    cgroup_cpu: float | None = None


def _new_cgroup() -> Path | None:
    """A fresh cgroup beside this process's own, for the CPU-time clock; None if none can be made."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            base = Path("/sys/fs/cgroup") / controllers / path.lstrip("/")
        elif controllers == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
            base = Path("/sys/fs/cgroup") / path.lstrip("/")
        else:
            continue
        folder = base / f"pytest-profile-{os.getpid()}"
        try:
            folder.mkdir()
        except OSError as error:
            print(f"profile_tests: no cgroup ({error}); CPU time of killed sandboxes is not counted", file=sys.stderr)
            return None
        return folder
    print("profile_tests: no cpuacct or cgroup v2 hierarchy; CPU time of killed sandboxes is not counted", file=sys.stderr)
    return None


def _group_seconds(group: Path) -> float | None:
    """CPU time charged to a cgroup and below (v1 ``cpuacct.usage``, v2 ``cpu.stat``)."""
    usage = group / "cpuacct.usage"
    return read_cpu_seconds(usage if usage.exists() else group / "cpu.stat")


def run(out: Path, pytest_args: list[str]) -> int:
    """Run pytest with the livetimes plugin, in a cgroup of its own where one can be made."""
    group = _new_cgroup()
    command = [sys.executable, "-m", "pytest", "-p", "livetimes", "-p", "no:cacheprovider", *pytest_args]
    if group is not None:
        # the child joins the cgroup before pytest starts; this process stays outside, so that the
        # group can be removed afterwards (and, on v2, the grader can make it a parent of its own)
        command = ["/bin/sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$@"', "sh", *command]
    env = {**os.environ, "LIVETIMES": str(out), "PYTHONPATH": str(ROOT / "tests")}
    start = time.perf_counter()
    try:
        return subprocess.call(command, cwd=ROOT, env=env)
    finally:
        # the whole run's totals: with pytest -n the phases of two workers overlap, and each phase's
        # cgroup CPU then counts both; this total does not
        used = _group_seconds(group) if group is not None else None
        print(f"profile_tests: whole run: wall {time.perf_counter() - start:.1f} s, CPU "
              + ("unknown (no cgroup)" if used is None else f"{used:.1f} s (cgroup, every process)"), file=sys.stderr)
        if group is not None:
            try:
                group.rmdir()
            except OSError as error:
                print(f"profile_tests: {group} left behind ({error})", file=sys.stderr)


def read(out: Path) -> dict[str, FileCost]:
    """The log's phases summed per test file (a module-scoped fixture is charged to its first test)."""
    files: dict[str, FileCost] = defaultdict(FileCost)
    for line in out.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) == 5:  # logs written before the cgroup column
            fields.insert(4, "-")
        _, _, wall, cpu, group, nodeid = fields
        cost = files[nodeid.split("::")[0]]
        cost.tests.add(nodeid)
        cost.wall += float(wall)
        cost.rusage_cpu += float(cpu)
        if group != "-":
            cost.cgroup_cpu = (cost.cgroup_cpu or 0.0) + float(group)
    return files


def summary(files: dict[str, FileCost]) -> str:
    """A table of the files, dearest CPU time first, with the totals."""

    def cpu(cost: FileCost) -> float:
        return cost.cgroup_cpu if cost.cgroup_cpu is not None else cost.rusage_cpu

    lines = [f"{'file':<70} {'tests':>5} {'wall s':>8} {'rusage s':>9} {'cgroup s':>9} {'wait s':>8}"]
    for name, cost in sorted(files.items(), key=lambda item: -cpu(item[1])):
        group = "-" if cost.cgroup_cpu is None else f"{cost.cgroup_cpu:.1f}"
        lines.append(f"{name:<70} {len(cost.tests):>5} {cost.wall:>8.1f} {cost.rusage_cpu:>9.1f} {group:>9} "
                     f"{cost.wall - cpu(cost):>8.1f}")
    total = FileCost(wall=sum(c.wall for c in files.values()),
                     rusage_cpu=sum(c.rusage_cpu for c in files.values()),
                     cgroup_cpu=sum(cpu(c) for c in files.values()))
    count = sum(len(c.tests) for c in files.values())
    lines.append(f"{'total':<70} {count:>5} {total.wall:>8.1f} {total.rusage_cpu:>9.1f} "
                 f"{total.cgroup_cpu or 0.0:>9.1f} {total.wall - (total.cgroup_cpu or 0.0):>8.1f}")
    return "\n".join(lines)


def main() -> int:
    """Run (unless ``--summary-only``) and print the per-file table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("test-times.tsv"), help="the log (appended to)")
    parser.add_argument("--summary-only", action="store_true", help="only summarise an existing log")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    code = 0 if args.summary_only else run(args.out.resolve(), args.pytest_args)
    if args.out.exists():
        print(summary(read(args.out)))
    return code


if __name__ == "__main__":
    sys.exit(main())
