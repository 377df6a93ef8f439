"""Benchmark: grading on a local Dask cluster of 1, 2 and 4 worker processes against the threaded local run.

Builds N submissions (the mix of ``bench_grading.py``: correct, wrong and untouched) in a throw-away
course from the committed release, and grades them all (``force``) with ``grade_batch``: first with
``--workers`` threads in this process, then on Dask with each number of processes (one submission
at a time per process), each followed by a threaded run again: a Dask run's ratio is against the mean
of the threaded runs before and after it, since the load on a shared machine drifts. The cluster's
start (and each worker's sandbox check) is timed apart, not counted in the throughput. Every run's
results must equal the first's. The load average is printed beside each run: on a shared machine
it says how much the figures are worth.

    .venv/bin/python scripts/bench_dask.py               # N = 40, processes 1 2 4
    .venv/bin/python scripts/bench_dask.py -n 100 --processes 2 4 8
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import nbformat  # noqa: E402
from bench_grading import MIX  # noqa: E402

from autograder.course.materials.example_notebooks import fill_solutions  # noqa: E402
from autograder.course.notebook_cells.generated_cells import skipped_cell_ids  # noqa: E402
from autograder.distributed import dask_executor  # noqa: E402
from autograder.exercises.ndcg import EXERCISE  # noqa: E402
from autograder.grading import GradingSettings, ThreadedExecutor, grade_batch  # noqa: E402
from autograder.sandbox import choose_sandbox  # noqa: E402

RELEASE = ROOT / "release" / "ndcg" / "ndcg.ipynb"


def build(folder: Path, count: int) -> None:
    release = nbformat.read(RELEASE, as_version=4)
    for number in range(count):
        target = folder / f"student{number:03d}" / "ndcg" / "ndcg.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(fill_solutions(release, MIX[number % len(MIX)]), target)


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=40, help="number of submissions (default 40)")
    parser.add_argument("--workers", type=int, default=2, help="threads of the local run (default 2)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4], help="Dask worker processes to try")
    args = parser.parse_args()
    sandbox = choose_sandbox("required")
    settings = GradingSettings(EXERCISE, 10.0, skipped_cell_ids(EXERCISE, RELEASE), draw_key=os.urandom(32))
    rows: list[tuple[str, float, str, str, bool, float | None]] = []
    threaded: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ndcg-bench-dask-") as temporary:
        submitted, out = Path(temporary) / "submitted", Path(temporary) / "out"
        build(submitted, args.n)

        def run(executor: object) -> tuple[float, list[dict[str, object]], str]:
            before = load()
            started = time.perf_counter()
            results = grade_batch(submitted, out, settings, sandbox, workers=args.workers, force=True, progress=False,
                                  executor=executor)  # type: ignore[arg-type]
            return time.perf_counter() - started, [r.to_json() for r in results], f"{before} -> {load()}"

        seconds, reference, loads = run(ThreadedExecutor(sandbox, args.workers))
        threaded.append(seconds)
        rows.append((f"threads ({args.workers})", seconds, "", loads, True, None))
        for processes in args.processes:
            started = time.perf_counter()
            with dask_executor(None, processes, "required", sandbox.name) as executor:
                startup = time.perf_counter() - started
                seconds, results, loads = run(executor)
            dask_row = [f"dask, {processes} process{'es' * (processes > 1)}", seconds, f"{startup:.1f}", loads,
                        results == reference]
            # the threaded run after it: the load drifts, so each Dask run is held against its neighbours
            after, results, after_loads = run(ThreadedExecutor(sandbox, args.workers))
            rows.append((*dask_row, (threaded[-1] + after) / 2 / seconds))
            threaded.append(after)
            rows.append((f"threads ({args.workers})", after, "", after_loads, results == reference, None))
    print(f"submissions: {args.n}; cores: {os.cpu_count()}; sandbox: {sandbox.name}; threaded runs "
          f"{', '.join(f'{t:.1f}' for t in threaded)} s")
    print(f"{'run':<20} {'wall s':>7} {'per sub s':>9} {'threads/dask':>12} {'start s':>7}  "
          f"{'load 1/5/15 before -> after':<34} same")
    for name, seconds, startup, loads, same, ratio in rows:
        shown = f"{ratio:.2f}x" if ratio is not None else ""
        print(f"{name:<20} {seconds:>7.1f} {seconds / args.n:>9.3f} {shown:>12} {startup:>7}  {loads:<34} {same}")
    return 0 if all(row[4] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
