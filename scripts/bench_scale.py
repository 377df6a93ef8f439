"""The scale benchmark: the curves of a growing course, in one run.

Grading: N real submissions (built from the release with correct and catalogue-mistake solutions
by ``bench_grading.build_course``) are graded by ``grade_course`` in a fresh child process per size
(so its peak RSS is that size's own), with the course's gradebook (SQLite). Printed per size: wall
time, per-student time, the coordinator's peak RSS, the sizes of ``results.json``, the report (with
its roster pages) and the feedback pages, the report's open time in headless Chromium (Debian's
``/usr/bin/chromium``, ``bench_outputs.open_time``), and — up to ``--nbgrader-up-to`` students —
plain ``nbgrader autograde`` on the same course in the same run, with the ratio and whether the
scores agree (nbgrader takes about 0.7 s per student: at 2,000 that is 25 minutes).

Recording: synthetic graded classes recorded in nbgrader's gradebook on SQLite and on a throw-away
PostgreSQL cluster (``tests/pg_cluster.py``), as ``bench_gradebook.measure`` does: first record,
unchanged re-record, one in ten changed.

    .venv/bin/python scripts/bench_scale.py                                  # everything (about an hour)
    .venv/bin/python scripts/bench_scale.py --grade 200 --record 10000       # the smallest points
    .venv/bin/python scripts/bench_scale.py --grade 200,800 --record ""      # grading only
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "tests")]

from bench_grading import build_course, timed  # noqa: E402
from bench_outputs import open_time  # noqa: E402

from autograder.grading import default_workers  # noqa: E402


def _sizes(text: str) -> list[int]:
    return [int(part.replace("_", "")) for part in text.split(",") if part.strip()]


def _megabytes(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1024**2
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024**2 if path.is_dir() else 0.0


def grade_child(course: Path, workers: int) -> None:
    """In a child process: grade ``course`` as ``python -m autograder grade`` does; print one JSON line."""
    from autograder.exercises.ndcg import EXERCISE
    from autograder.pipeline import GradeOptions, grade_course

    options = GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=workers, force=True,
        sandbox="required", gradebook=f"sqlite:///{course / 'ours.db'}", progress=False, course_root=course,
    )
    started = time.perf_counter()
    run = grade_course(options)
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "scores": {s.student_id: s.score for s in run.batch.students}, "note": run.gradebook_note}))


def grade_point(n: int, workers: int, nbgrader: bool, scratch: Path) -> dict[str, object]:
    """Grade ``n`` generated submissions in a child process; measure the outputs; nbgrader beside it if asked."""
    from autograder.course.materials.nbgrader_commands import gradebook_scores

    course = scratch / f"course-{n}"
    course.mkdir()
    build_course(course, n)
    command = [sys.executable, __file__, "--child-grade", str(course), "--workers", str(workers)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"grading {n}: the child failed:\n{done.stderr[-3000:]}")
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    graded = course / "graded"
    roster = sorted((graded / "roster").glob("*.html")) if (graded / "roster").is_dir() else []
    row: dict[str, object] = {
        "n": n, "seconds": measured["seconds"], "peak_rss_mb": measured["peak_rss_mb"],
        "results_mb": _megabytes(graded / "results.json"),
        "report_mb": _megabytes(graded / "report.html") + sum(_megabytes(page) for page in roster),
        "feedback_mb": _megabytes(course / "feedback"),
        "report_open_s": open_time(graded / "report.html"),
        "nbgrader_s": None, "agree": None,
    }
    if nbgrader:
        row["nbgrader_s"] = timed([str(Path(sys.executable).parent / "nbgrader"), "autograde", "ndcg", "--force"],
                                  course)
        theirs = {student: score for student, (score, _) in gradebook_scores(course).items()}
        row["agree"] = theirs == measured["scores"]
    subprocess.run(["rm", "-rf", str(course)], check=False)  # a 2,000-student course is ~1 GB of files
    return row


def record_points(sizes: list[int], databases: list[str], scratch: Path) -> None:
    """Record synthetic classes in the gradebook on each database; print a row as each is measured."""
    import os

    from bench_gradebook import measure

    from autograder.gradebook.scores import tool_environment

    os.environ["PATH"] = tool_environment()["PATH"]  # nbgrader runs `alembic` to create a gradebook
    print(f"\n{'database':<11}{'students':>9}{'schema s':>9}{'first s':>9}{'unchanged s':>13}{'1/10 changed s':>16}")
    cluster = None
    try:
        for count in sizes:
            for database in databases:
                if database == "postgresql":
                    if cluster is None:
                        from pg_cluster import start_cluster

                        cluster = start_cluster(durable=True)
                    url = cluster.create_database(f"scale{count}")
                else:
                    url = f"sqlite:///{scratch / f'scale{count}.db'}"
                schema, first, again, tenth, _ = measure(url, count, read_back=False)
                print(f"{database:<11}{count:>9,}{schema:>9.1f}{first:>9.1f}{again:>13.1f}{tenth:>16.1f}", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grade", default="200,800,2000", help="class sizes to grade for real ('' for none)")
    parser.add_argument("--nbgrader-up-to", type=int, default=200, metavar="N",
                        help="run plain nbgrader autograde beside the kit up to this size (default 200; 0: never)")
    parser.add_argument("--record", default="10000,50000", help="synthetic class sizes to record ('' for none)")
    parser.add_argument("--databases", default="sqlite,postgresql", help="sqlite, postgresql (default: both)")
    parser.add_argument("--workers", type=int, default=default_workers(), help="grader workers (default: cores)")
    parser.add_argument("--child-grade", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_grade:
        grade_child(args.child_grade, args.workers)
        return 0
    unknown = set(args.databases.split(",")) - {"sqlite", "postgresql"}
    if unknown:
        parser.error(f"--databases: unknown {sorted(unknown)[0]!r} (sqlite, postgresql)")
    agree = True
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as temporary:
        scratch = Path(temporary)
        grade_sizes = _sizes(args.grade)
        if grade_sizes:
            print(f"grading (sandbox required, {args.workers} workers, SQLite gradebook)")
            print(f"{'students':>8} {'kit s':>7} {'per student s':>13} {'peak RSS MB':>11} {'results MB':>10} "
                  f"{'report MB':>9} {'feedback MB':>11} {'open s':>6} {'nbgrader s':>10} {'ratio':>6} agree")
        for n in grade_sizes:
            row = grade_point(n, args.workers, n <= args.nbgrader_up_to, scratch)
            theirs = row["nbgrader_s"]
            ratio = f"{theirs / row['seconds']:.1f}x" if isinstance(theirs, float) else "-"  # type: ignore[operator]
            agree = agree and row["agree"] is not False
            print(f"{n:>8} {row['seconds']:>7.1f} {row['seconds'] / n:>13.3f} "  # type: ignore[operator]
                  f"{row['peak_rss_mb']:>11.0f} {row['results_mb']:>10.1f} {row['report_mb']:>9.2f} "
                  f"{row['feedback_mb']:>11.1f} {row['report_open_s']:>6.2f} "
                  f"{(f'{theirs:.1f}' if isinstance(theirs, float) else '-'):>10} {ratio:>6} "
                  f"{'-' if row['agree'] is None else row['agree']}", flush=True)
        record_sizes = _sizes(args.record)
        if record_sizes:
            record_points(record_sizes, args.databases.split(","), scratch)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
