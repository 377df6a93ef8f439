"""The coordinator's memory after grading, by class size: the gradebook step and the outputs, and a re-run.

Synthetic classes (the graded examples' records replicated under new ids, as
``bench_outputs.SyntheticClass``; each synthetic student's submitted notebook a hard link to the
notebook of the student they copy) go through what ``python -m autograder grade`` does after
grading, in a fresh child process per size: the results put in a ``ResultStore`` as
``grade_batch`` leaves them, the collected files read, then ``_after_grading`` with the course's
SQLite gradebook (record, late penalties, marks read back; autograded notebooks, feedback pages
and their course copies, ``results.json``, ``grades.csv``, report). Then the same again on the same
course: a re-run that graded nothing (every result reused) and changed nothing. ``--light``: the
class's steps only (gradebook, ``results.json``, ``grades.csv``, report), once, for sizes where
writing every student's files twice would take an hour.

Printed per size: the RSS when the store is built, the peak RSS of the child (``ru_maxrss``), the
growth per student between the two, the seconds of the first pass and of the re-run, the size of
``results.json``, and how many output files the re-run rewrote (mtime changed). ``--baseline REV``
runs the same children on another commit's code, in the same run. ``--due DATE`` gives the
assignment that due date in each course's gradebook, every other student a submission time a day
after it (the rest an hour before) and nbgrader's ``penalty_method = "zero"``, so the late-penalty
step has work (without a due date nobody can be late and it is one statement); then the seconds of
that step, in the first pass and in the re-run, are printed too.

``--trace N``: for N students, tracemalloc's peak (Python allocations only) in each gradebook
step alone.

    .venv/bin/python scripts/bench_memory.py --sizes 200,1000,5000 --baseline main
    .venv/bin/python scripts/bench_memory.py --sizes 5000,50000 --light --source /tmp/graded/results.json
    .venv/bin/python scripts/bench_memory.py --trace 2000
    .venv/bin/python scripts/bench_memory.py --sizes 1000 --due "2026-12-01 17:00:00 UTC"
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "scripts")]

from bench_outputs import SyntheticClass, _templates, grade_examples  # noqa: E402


def rss_mb() -> float:
    """This process's resident memory now (``VmRSS``), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_course(source: Path, n: int, course: Path, due: str | None = None) -> None:
    """A course of ``n`` synthetic students beside the graded examples' course of ``source``.

    ``due``: the assignment's due date in the gradebook; every other student handed in a day late, the
    rest an hour early (``timestamp.txt``, as ``nbgrader collect`` leaves it).
    """
    from autograder.exercises.ndcg import EXERCISE
    from autograder.nbgrader_adapter import parse_utc

    due_at = parse_utc(due) if due else None
    examples = source.parents[1]
    course.mkdir()
    for name in ("nbgrader_config.py", "gradebook.db"):  # a gradebook already made: alembic's 4 s once
        if (examples / name).is_file():
            shutil.copy(examples / name, course / name)
    for name in ("source", "release"):
        shutil.copytree(examples / name, course / name)
    document = json.loads(source.read_text(encoding="utf-8"))
    templates = [student["student_id"] for student in document["students"]]
    for i in range(n):
        template = examples / "submitted" / templates[i % len(templates)] / EXERCISE.assignment
        target = course / "submitted" / f"s{i:06d}" / EXERCISE.assignment
        target.mkdir(parents=True)
        if template.is_dir():
            for file in template.iterdir():
                if file.is_file() and not (due and file.name == "timestamp.txt"):
                    os.link(file, target / file.name)
        if due_at is not None:  # an hour early, or a day late
            handed_in = due_at + (timedelta(days=1) if i % 2 else timedelta(hours=-1))
            (target / "timestamp.txt").write_text(f"{handed_in:%Y-%m-%d %H:%M:%S.%f} UTC\n")
    if due_at is not None:  # nbgrader's "zero": a late student's penalty is the score (the default, "none", gives none)
        with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
            config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
        from autograder.gradebook.database import open_gradebook

        with open_gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            gradebook.update_or_create_assignment(EXERCISE.assignment, duedate=due_at)


def _options(course: Path) -> Any:
    from autograder.exercises.ndcg import EXERCISE
    from autograder.pipeline import GradeOptions

    return GradeOptions(EXERCISE, submitted=course / "submitted", out=course / "graded", course_root=course,
                        gradebook=f"sqlite:///{course / 'gradebook.db'}", progress=False)


def _batch(document: dict[str, Any], students: Any) -> Any:
    from autograder.exercises.ndcg import EXERCISE
    from autograder.grading import BatchResult, GroupInfo

    return BatchResult(document["assignment"], EXERCISE.notebook, EXERCISE.title, document["max_score"],
                       document["sandbox"], [GroupInfo(**g) for g in document["tests"]], students)


def _outputs(course: Path) -> dict[str, int]:
    """Every output file's mtime (ns): autograded/, feedback/, graded/."""
    return {str(path): path.stat().st_mtime_ns for folder in ("autograded", "feedback", "graded")
            for path in (course / folder).rglob("*") if path.is_file() and ".state" not in path.parts}


def child(source: Path, n: int, course: Path, light: bool = False) -> None:
    """After grading for ``n`` synthetic students, twice; print one JSON line of measurements.

    ``light``: once, and only the class's steps (gradebook, ``results.json``, ``grades.csv``,
    report), not the per-student files (each written and forgotten one student at a time).
    """
    from autograder.gradebook import update as gradebook_step
    from autograder.gradebook.update import update_gradebook
    from autograder.grading.store import ResultStore
    from autograder.output.report import write_report
    from autograder.output.results import write_results
    from autograder.pipeline import _after_grading, _collected_files

    options = _options(course)
    document, templates = _templates(source)
    late_seconds: list[float] = []
    apply_late_penalties = gradebook_step.apply_late_penalties

    def timed_late_step(*args: Any, **kwargs: Any) -> None:  # the late-penalty step's own seconds, per pass
        start = time.perf_counter()
        apply_late_penalties(*args, **kwargs)
        late_seconds.append(time.perf_counter() - start)

    gradebook_step.apply_late_penalties = timed_late_step

    def after() -> float:
        store = ResultStore.of(course / "graded" / ".state", SyntheticClass(templates, n))
        collected = _collected_files(options, store, course)
        files = {student: found.files for student, found in collected.items()}
        start = time.perf_counter()
        batch = _batch(document, store)
        if light:
            times = {student: found.timestamp for student, found in collected.items() if found.timestamp is not None}
            note, failed = update_gradebook(course, options.gradebook, options.exercise, store, times)
            write_results(options.out, batch)
            write_report(options.out, options.exercise, batch)
        else:
            note, failed = _after_grading(options, course, batch, store, collected, files, 8 * 1024**2)
        if failed:
            raise SystemExit(note)
        store.close()
        return time.perf_counter() - start

    ResultStore.of(course / "graded" / ".state", SyntheticClass(templates, min(n, 10))).close()
    before = rss_mb()  # the modules imported, one store built: what is there before any class-sized work
    first = after()
    first_peak = peak_mb()
    if light:
        print(json.dumps({"start_mb": before, "peak_mb": first_peak, "rerun_peak_mb": first_peak, "first_s": first,
                          "rerun_s": float("nan"), "outputs": 0, "rewritten": 0,
                          "results_mb": (course / "graded" / "results.json").stat().st_size / 1024**2}))
        return
    time.sleep(1.1)  # a rewritten file gets a later mtime even on a coarse clock
    mtimes = _outputs(course)
    again = after()
    rewritten = sum(os.stat(path).st_mtime_ns != mtime for path, mtime in mtimes.items())
    late_first, late_rerun = (late_seconds + [float("nan")] * 2)[:2]
    print(json.dumps({"start_mb": before, "peak_mb": first_peak, "rerun_peak_mb": peak_mb(), "first_s": first,
                      "rerun_s": again, "outputs": len(mtimes), "rewritten": rewritten,
                      "results_mb": (course / "graded" / "results.json").stat().st_size / 1024**2,
                      "late_first_s": late_first, "late_rerun_s": late_rerun}))


def trace(source: Path, n: int, course: Path) -> None:
    """tracemalloc's peak in each gradebook step for ``n`` students."""
    import tracemalloc
    from pathlib import Path as P

    from autograder.exercises.ndcg import EXERCISE
    from autograder.gradebook.late_penalties import apply_late_penalties
    from autograder.gradebook.read_back import read_gradebook_views
    from autograder.gradebook.scores import record_scores
    from autograder.gradebook.update import record_cells
    from autograder.grading.store import ResultStore

    document, templates = _templates(source)
    url = f"sqlite:///{course / 'gradebook.db'}"
    store = ResultStore.of(course / "graded" / ".state", SyntheticClass(templates, n))
    batch = _batch(document, store)
    record_cells(course, url, EXERCISE)
    ids = store.student_ids
    steps = {
        "record_scores": lambda: record_scores(url, EXERCISE, batch),
        "record_scores again": lambda: record_scores(url, EXERCISE, batch),
        "apply_late_penalties": lambda: apply_late_penalties(course, url, EXERCISE.assignment,
                                                             P(EXERCISE.notebook).stem, ids),
        "read_gradebook_views": lambda: read_gradebook_views(url, EXERCISE.assignment, P(EXERCISE.notebook).stem,
                                                             ids),
    }
    tracemalloc.start()
    for label, step in steps.items():
        tracemalloc.reset_peak()
        kept = step()
        peak = tracemalloc.get_traced_memory()[1]
        print(f"{label:<22} peak {peak / 1024**2:7.1f} MB  ({peak / n / 1024:5.1f} KB per student)")
        del kept


def run_child(mode: str, source: Path, n: int, course: Path, code: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code), "MPLBACKEND": "Agg"}
    command = [sys.executable, __file__, "--child", mode, str(n), str(course), "--source", str(source)]
    done = subprocess.run(command, env=env, cwd=code, capture_output=mode != "trace", text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{n}: the child failed:\n{(done.stderr or '')[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]) if mode != "trace" else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help="a graded results.json in its course (default: grade examples/)")
    parser.add_argument("--sizes", default="200,1000,5000", help="class sizes (default: 200,1000,5000)")
    parser.add_argument("--baseline", metavar="REV", help="also run each size on this commit's code (git archive)")
    parser.add_argument("--light", action="store_true",
                        help="only the class's steps (gradebook, results, report), once: for 50,000 students")
    parser.add_argument("--trace", type=int, metavar="N", help="tracemalloc the gradebook steps for N students")
    parser.add_argument("--due", metavar="DATE", help="the assignment's due date (every other student late): the "
                        "late-penalty step then runs for every student, and its seconds are printed")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "N", "COURSE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "trace":
            trace(args.source, int(args.child[1]), Path(args.child[2]))
        else:
            child(args.source, int(args.child[1]), Path(args.child[2]), light=args.child[0] == "light")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as temporary:
        scratch = Path(temporary)
        source = (args.source or grade_examples(scratch)).resolve()
        if args.trace:
            build_course(source, args.trace, scratch / "trace")
            run_child("trace", source, args.trace, scratch / "trace", ROOT)
            return 0
        runs = [("this", ROOT)]
        if args.baseline:
            from bench_grading import code_at

            runs.insert(0, (args.baseline, code_at(args.baseline, scratch / "baseline")))
        print(f"{'students':>8} {'code':<9} {'start MB':>8} {'peak MB':>7} {'KB/student':>10} {'first s':>7} "
              f"{'re-run s':>8} {'results MB':>10} {'rewritten':>15}" + ("  late s (first, re-run)" if args.due else ""))
        for n in (int(size.replace("_", "")) for size in args.sizes.split(",") if size):
            for label, code in runs:
                course = scratch / f"course-{label}-{n}"
                build_course(source, n, course, args.due)
                m = run_child("light" if args.light else "child", source, n, course, code)
                growth = (max(m["peak_mb"], m["rerun_peak_mb"]) - m["start_mb"]) * 1024 / n
                print(f"{n:>8} {label:<9} {m['start_mb']:>8.0f} {m['rerun_peak_mb']:>7.0f} {growth:>10.2f} "
                      f"{m['first_s']:>7.1f} {m['rerun_s']:>8.1f} {m['results_mb']:>10.2f} "
                      f"{m['rewritten']:>7}/{m['outputs']:<7}"
                      + (f"  {m.get('late_first_s', float('nan')):6.1f} {m.get('late_rerun_s', float('nan')):6.1f}"
                         if args.due else ""), flush=True)
                shutil.rmtree(course)
    return 0


if __name__ == "__main__":
    sys.exit(main())
