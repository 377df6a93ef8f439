"""What one sandboxed run's start costs, link by link of its launch chain.

The chain is ``sh`` (joins the run's cgroup) → ``prlimit`` → ``bwrap`` → ``setpriv`` → ``python -I -S``.
Each variant below starts a suffix of the real chain (as ``Bubblewrap.launch`` builds it) with
``python -c pass``, the real runner with one cell, or ``import numpy`` as a student's cell; the
variants take turns, and the medians of wall time and of the run cgroup's CPU time are printed
(the CPU time only where the chain joins the cgroup).

    .venv/bin/python scripts/bench_sandbox_start.py --rounds 12
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.sandbox import choose_sandbox  # noqa: E402
from autograder.sandbox.isolation.launch import Sandbox  # noqa: E402

ONE_CELL = b'["import math\\ndef dcg(rels, k):\\n    return 1.0"]\n'
NUMPY_CELL = b'["import numpy as np"]\n'


def _run(sandbox: Sandbox, scratch: Path, link: str | None, pass_only: bool, orders: bytes) -> tuple[float, float | None]:
    """Wall seconds and cgroup CPU seconds of one start from ``link`` (None: the whole chain)."""
    launch = sandbox.launch(scratch, 0)
    argv = launch.argv if link is None else launch.argv[next(i for i, a in enumerate(launch.argv) if Path(a).name == link):]
    if pass_only:
        argv = [*argv[:-1], "-c", "pass"]  # the runner's script replaced
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=launch.cwd, env=launch.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, pass_fds=launch.pass_fds)
    launch.close_fds()
    process.communicate(b"" if pass_only else orders)
    wall = time.perf_counter() - started
    cpu = launch.group.cpu_seconds() if launch.group is not None and link is None else None
    launch.end()
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=12, help="starts of each variant (default 12)")
    args = parser.parse_args()
    sandbox = choose_sandbox("required")
    variants = {
        "whole chain, runner, one cell": (None, False, ONE_CELL),
        "whole chain, runner, import numpy": (None, False, NUMPY_CELL),
        "whole chain, python -c pass": (None, True, b""),
        "from prlimit, python -c pass": ("prlimit", True, b""),
        "from bwrap, python -c pass": ("bwrap", True, b""),
        "from setpriv, python -c pass": ("setpriv", True, b""),
        "python -c pass alone": ("python", True, b""),
    }
    measured: dict[str, list[tuple[float, float | None]]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="bench-start-") as scratch:
        for _ in range(args.rounds):
            for name, (link, pass_only, orders) in variants.items():
                measured[name].append(_run(sandbox, Path(scratch), link, pass_only, orders))
    print(f"median of {args.rounds} starts each:")
    for name, runs in measured.items():
        cpu = [c for _, c in runs if c is not None]
        shown = f"{statistics.median(cpu) * 1000:6.1f} ms CPU" if cpu else "             "
        print(f"{name:<36} {statistics.median(w for w, _ in runs) * 1000:6.1f} ms wall  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
