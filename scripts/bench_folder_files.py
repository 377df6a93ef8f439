"""Benchmark: `nbgrader autograde` (the course's config, the kit's sandbox) of one student with many files.

nbgrader's copy of a submission folder's extra files goes through a filter that is quadratic in their
number; the kit refuses a folder over ``c.SandboxedExecute.max_folder_files`` (default 250) before
anything lists or copies it. This builds a throw-away course (``generate_assignment`` once), an honest
student and, for each N, a student whose folder holds N empty files beside the notebook, and times
``nbgrader autograde ndcg --student <id> --force`` as a tutor runs it, with this code and with each
``--baseline`` revision's (``git archive``, put first on ``PYTHONPATH`` of the nbgrader command).

    .venv/bin/python scripts/bench_folder_files.py                          # N = 3000, this code
    .venv/bin/python scripts/bench_folder_files.py -n 500 -n 3000 --baseline main
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402
from bench_grading import code_at  # noqa: E402

from autograder.course.materials.example_notebooks import fill_solutions  # noqa: E402
from autograder.course.materials.nbgrader_commands import run_nbgrader  # noqa: E402
from autograder.gradebook.scores import tool_environment  # noqa: E402

DCG = "import math\n\n\ndef dcg(rels, k):\n    return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))"
NDCG = "def ndcg(rels, k):\n    ideal = dcg(sorted(rels, reverse=True), k)\n    return dcg(rels, k) / ideal if ideal else 0.0"


def build_course(folder: Path, counts: list[int]) -> None:
    """The course with ``honest`` and, per N in ``counts``, ``files<N>`` whose folder holds N empty files."""
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    shutil.copytree(ROOT / "source", folder / "source")
    run_nbgrader(folder, "generate_assignment", "ndcg", "--force")
    release = nbformat.read(folder / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
    notebook = fill_solutions(release, {"dcg": DCG, "ndcg": NDCG})
    for student, files in [("honest", 0), *((f"files{count}", count) for count in counts)]:
        target = folder / "submitted" / student / "ndcg" / "ndcg.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
        for number in range(files):
            (target.parent / f"empty-{number}.txt").touch()


def autograde_seconds(course: Path, student: str, code: Path) -> tuple[float, str]:
    """Wall time of ``nbgrader autograde`` of ``student`` with the kit in ``code``, and its last log line."""
    env = {**tool_environment(), "PYTHONPATH": str(code)}
    command = [str(Path(sys.executable).parent / "nbgrader"), "autograde", "ndcg", "--student", student, "--force",
               "--SandboxedExecute.timeout=5"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    # the kit's line for the student: refused ("<id>: not graded: ...") or graded ("<id>: graded, 15 of 15 ...")
    lines = [line for line in (done.stdout + done.stderr).splitlines() if f"{student}: " in line and "|" in line]
    return elapsed, (lines[-1].split("] ", 1)[-1] if lines else f"exit {done.returncode}")[:110]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, action="append", help="empty files beside the notebook (repeatable; 3000)")
    parser.add_argument("--baseline", action="append", default=[], help="also time git revision REV's kit")
    args = parser.parse_args()
    counts = args.n or [3000]
    with tempfile.TemporaryDirectory(prefix="bench-folder-files-") as scratch:
        course = Path(scratch) / "course"
        course.mkdir()
        build_course(course, counts)
        codes = {"this": ROOT, **{rev: code_at(rev, Path(scratch) / f"code-{i}") for i, rev in enumerate(args.baseline)}}
        print(f"{os.cpu_count()} cores; nbgrader autograde of one student, wall seconds")
        for label, code in codes.items():
            for student in ["honest", *(f"files{count}" for count in counts)]:
                seconds, line = autograde_seconds(course, student, code)
                print(f"{label:<8} {student:<10} {seconds:7.1f} s   {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
