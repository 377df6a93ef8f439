"""Where a graded submission's CPU time goes: the grader's own process against its sandboxed runs.

Builds the course of ``bench_grading.py`` (N submissions of six kinds), grades it once to warm up,
then again, and prints per submission the grader's own CPU time (its process, all threads), the
sandboxed runs' (each run's cgroup, read as the run ends), with the number of runs, and the CPU
time of the launch outside the runs' cgroups (the child processes' time less the runs': warm
zygotes, their imports and forks; a cold launch joins its cgroup first). CPU time
depends much less on the machine's load than wall time does, so the figures of two commits can
be compared across runs; ``--baseline REV`` measures another commit's code the same way, in turn.

    .venv/bin/python scripts/bench_cpu.py -n 60
    .venv/bin/python scripts/bench_cpu.py -n 60 --baseline eac95b5 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from autograder.gradebook.scores import tool_environment  # noqa: E402

#: Run in a child with ``PYTHONPATH`` at the code to measure: grade twice, print the second run's CPU split as JSON.
CHILD = """
import json, resource, sys, time
from pathlib import Path
from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course
import autograder.sandbox.isolation.launch as launch
runs = []
end = launch.Launch.end
def measured_end(self):
    if self.group is not None:
        used = self.group.cpu_seconds()
        if used is not None:
            runs.append(used)
    end(self)
launch.Launch.end = measured_end
course, workers = Path(sys.argv[1]), int(sys.argv[2])
options = GradeOptions(EXERCISE, submitted=course / "submitted", out=course / "graded", workers=workers, force=True,
                       sandbox="required", gradebook=f"sqlite:///{course / 'ours.db'}", progress=False,
                       course_root=course)
grade_course(options)
runs.clear()
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
before, children, started = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
grade_course(options)  # ends its warm zygotes: their CPU time and their runs' is then the children's
wall, grader = time.perf_counter() - started, cpu(resource.RUSAGE_SELF) - before
children = cpu(resource.RUSAGE_CHILDREN) - children
print(json.dumps({"wall": wall, "runs": len(runs), "sandbox": sum(runs), "grader": grader,
                  "outside": max(0.0, children - sum(runs))}))
"""


def measure(code: Path, course: Path, workers: int) -> dict[str, float]:
    """The CPU split of grading ``course`` with the package in ``code``, in a child process."""
    env = {**tool_environment(), "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(course), str(workers)], cwd=code, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"grading with {code} failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=60, help="number of submissions (default 60)")
    parser.add_argument("--workers", type=int, default=2, help="grader workers (default 2)")
    parser.add_argument("--baseline", metavar="REV", action="append", default=[], help="also measure this commit")
    parser.add_argument("--rounds", type=int, default=1, help="measurements of each (default 1)")
    args = parser.parse_args()
    from bench_grading import build_course, code_at

    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as scratch:
        course = Path(scratch) / "course"
        course.mkdir()
        build_course(course, args.n)
        codes = {"this": ROOT}
        for number, baseline in enumerate(args.baseline):
            codes[baseline] = code_at(baseline, Path(scratch) / f"code-{number}")
        measured: dict[str, list[dict[str, float]]] = {label: [] for label in codes}
        for _ in range(args.rounds):
            for label, code in codes.items():
                measured[label].append(measure(code, course, args.workers))
    print(f"{args.n} submissions, {args.workers} workers; per submission, median of {args.rounds} run(s):")
    for label, results in measured.items():
        grader = statistics.median(r["grader"] for r in results) / args.n
        sandbox = statistics.median(r["sandbox"] for r in results) / args.n
        runs = statistics.median(r["runs"] for r in results) / args.n
        wall = statistics.median(r["wall"] for r in results) / args.n
        outside = statistics.median(r.get("outside", 0.0) for r in results) / args.n
        total = grader + sandbox + outside
        print(f"{label:<10} grader {grader * 1000:6.1f} ms CPU   sandboxed runs {sandbox * 1000:6.1f} ms CPU "
              f"({runs:.2f} runs, {sandbox / runs * 1000:.1f} ms each)   launch outside the runs' cgroups "
              f"{outside * 1000:5.1f} ms   total {total * 1000:6.1f} ms CPU   wall {wall * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
