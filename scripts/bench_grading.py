"""Benchmark: the kit's grading pipeline (sandbox on) against plain `nbgrader autograde`.

Builds a throw-away course with N generated submissions (a mix of correct and wrong solutions),
grades them with both tools in the same run, checks that the scores agree, and prints both wall
times and their ratio. The kit is timed through `grade_course`, the function behind
`python -m autograder grade`, in this process (so its ~1 s of interpreter start-up is not
counted); nbgrader is timed as the command a tutor runs.

    .venv/bin/python scripts/bench_grading.py            # N = 100
    .venv/bin/python scripts/bench_grading.py -n 30 --workers 2
    .venv/bin/python scripts/bench_grading.py -n 60 --baseline main --rounds 3 --no-nbgrader

``--baseline REV`` (repeatable) also grades the same course with other commits' code (``git archive``),
each in a child process, in turn (this, REV, …, this, REV, …) after one warm-up run, and prints the
median of each and its ratio to this code: a change's effect measured side by side on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from autograder.course.materials.example_notebooks import fill_solutions  # noqa: E402
from autograder.course.materials.nbgrader_commands import NBGRADER_OWN_EXECUTE, gradebook_scores, run_nbgrader  # noqa: E402
from autograder.exercises.ndcg import EXERCISE  # noqa: E402
from autograder.gradebook.scores import tool_environment  # noqa: E402
from autograder.grading import default_workers  # noqa: E402
from autograder.pipeline import GradeOptions, grade_course  # noqa: E402

LOOP = "import math\n\n\ndef dcg(rels, k):\n    total = 0.0\n    for i in range(min(k, len(rels))):\n        total += rels[i] / math.log2(i + 2)\n    return total"
NUMPY = "import numpy as np\n\n\ndef dcg(rels, k):\n    top = np.asarray(rels[:k], dtype=float)\n    return float(np.sum(top / np.log2(np.arange(2, top.size + 2))))"
NATURAL_LOG = "import math\n\n\ndef dcg(rels, k):\n    return sum(rels[i] / math.log(i + 2) for i in range(min(k, len(rels))))"
RIGHT_NDCG = "def ndcg(rels, k):\n    ideal = dcg(sorted(rels, reverse=True), k)\n    return dcg(rels, k) / ideal if ideal else 0.0"
UNCUT_NDCG = "def ndcg(rels, k):\n    return dcg(rels, k) / dcg(sorted(rels, reverse=True), len(rels))"
SORTS_NDCG = "def ndcg(rels, k):\n    actual = dcg(rels, k)\n    rels.sort(reverse=True)\n    ideal = dcg(rels, k)\n    return actual / ideal if ideal else 0.0"

MIX = [
    {"dcg": LOOP, "ndcg": RIGHT_NDCG},
    {"dcg": NUMPY, "ndcg": RIGHT_NDCG},
    {"dcg": NATURAL_LOG, "ndcg": RIGHT_NDCG},
    {"dcg": LOOP, "ndcg": UNCUT_NDCG},
    {"dcg": NUMPY, "ndcg": SORTS_NDCG},
    {},  # the released stubs, unchanged
]


def build_course(folder: Path, count: int) -> None:
    # the baseline is nbgrader's own Execute (the course's config swaps in the kit's sandbox instead)
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    (folder / "nbgrader_config.py").write_text(config + NBGRADER_OWN_EXECUTE, encoding="utf-8")
    shutil.copytree(ROOT / "source", folder / "source")
    run_nbgrader(folder, "generate_assignment", "ndcg", "--force")
    # the kit records into its own copy of the course's gradebook, so that both tools start from the
    # same state: an existing gradebook (creating one runs alembic, a one-off 4 s neither should pay)
    shutil.copy(folder / "gradebook.db", folder / "ours.db")
    release = nbformat.read(folder / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
    for number in range(count):
        notebook = fill_solutions(release, MIX[number % len(MIX)])
        target = folder / "submitted" / f"student{number:03d}" / "ndcg" / "ndcg.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=tool_environment(), capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} failed:\n{done.stderr[-3000:]}")
    return elapsed


#: Run in a child with ``PYTHONPATH`` (and the working directory) at the code to time: grade, print seconds.
CHILD = """
import sys, time
from pathlib import Path
from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course
course, workers = Path(sys.argv[1]), int(sys.argv[2])
options = GradeOptions(EXERCISE, submitted=course / "submitted", out=course / "graded", workers=workers, force=True,
                       sandbox="required", gradebook=f"sqlite:///{course / 'ours.db'}", progress=False,
                       course_root=course)
started = time.perf_counter()
grade_course(options)
print(time.perf_counter() - started)
"""


def child_seconds(code: Path, course: Path, workers: int) -> float:
    """Grade ``course`` with the package in ``code`` and that code's ``nbgrader_config.py``, in a child process.

    Returns its wall time. A course's config imports the kit's classes: another revision's code runs with its own.
    """
    config = (code / "nbgrader_config.py").read_text(encoding="utf-8")
    (course / "nbgrader_config.py").write_text(config + NBGRADER_OWN_EXECUTE, encoding="utf-8")
    env = {**tool_environment(), "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(course), str(workers)], cwd=code, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"grading with {code} failed:\n{done.stderr[-3000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def code_at(revision: str, folder: Path) -> Path:
    """``folder`` (made here) holding the grader's packages as they are at git ``revision``: a baseline to time."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "autograder", "ndcg_ref", "nbgrader_config.py"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def side_by_side(course: Path, baselines: list[str], rounds: int, workers: int, scratch: Path) -> None:
    """This code and each of ``baselines``' (git revisions), alternating after a warm-up; medians and ratios."""
    codes = {"this": ROOT}
    for baseline in baselines:
        codes[baseline] = code_at(baseline, scratch / f"code-{len(codes)}")
    child_seconds(ROOT, course, workers)  # warm-up: the gradebook's first record, the page cache
    times: dict[str, list[float]] = {label: [] for label in codes}
    for _ in range(rounds):
        for label, code in codes.items():
            times[label].append(child_seconds(code, course, workers))
    child_seconds(ROOT, course, workers)  # the course's config is this code's again for what follows (not timed)
    ours = statistics.median(times["this"])
    for label, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{label:<12} runs {', '.join(f'{s:.2f}' for s in seconds)} s; median {median:.2f} s; "
              f"{label} / this: {median / ours:.3f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=100, help="number of submissions (default 100)")
    parser.add_argument("--workers", type=int, default=default_workers(), help="grader workers (default: cores)")
    parser.add_argument("--baseline", metavar="REV", action="append",
                        help="time this code against REV's, side by side (repeatable)")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each (default 3)")
    parser.add_argument("--no-nbgrader", action="store_true", help="with --baseline: skip plain nbgrader")
    parser.add_argument("--pair-rounds", type=int, default=1,
                        help="times the kit and plain nbgrader are run one right after the other (default 1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ndcg-bench-") as temporary:
        course = Path(temporary) / "course"
        course.mkdir()
        build_course(course, args.n)
        if args.baseline:
            print(f"submissions: {args.n}; workers: {args.workers}; load {os.getloadavg()[0]:.1f}")
            side_by_side(course, args.baseline, args.rounds, args.workers, Path(temporary))
            if args.no_nbgrader:
                return 0
        options = GradeOptions(
            EXERCISE, submitted=course / "submitted", out=course / "graded", workers=args.workers, force=True,
            sandbox="required", gradebook=f"sqlite:///{course / 'ours.db'}", progress=False, course_root=course,
        )
        # pairs, one tool right after the other: a shared machine's load changes from minute to minute
        pairs = []
        for _ in range(args.pair_rounds):
            started = time.perf_counter()
            run = grade_course(options)
            ours = time.perf_counter() - started
            theirs = timed([str(Path(sys.executable).parent / "nbgrader"), "autograde", "ndcg", "--force"], course)
            pairs.append((ours, theirs))
        our_scores = {s.student_id: s.score for s in run.batch.students}
        their_scores = {student: score for student, (score, _) in gradebook_scores(course).items()}
        agree = our_scores == their_scores
    print(f"submissions: {args.n} ({len(MIX)} kinds, correct and wrong); cores: {os.cpu_count()}; workers: {args.workers}")
    print(f"{'tool':<44} {'wall s (each pair)':>30}")
    print(f"{'grade_course (' + run.batch.sandbox + ')':<44} {', '.join(f'{o:.2f}' for o, _ in pairs):>30}")
    print(f"{'nbgrader autograde':<44} {', '.join(f'{t:.2f}' for _, t in pairs):>30}")
    ratios = [theirs / ours for ours, theirs in pairs]
    print(f"ratio (nbgrader / autograder) per pair: {', '.join(f'{r:.1f}x' for r in ratios)}; "
          f"median {statistics.median(ratios):.1f}x; scores agree: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
