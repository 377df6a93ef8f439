"""What a large class costs after grading: memory, results.json, the report and its open time in Chromium.

Grades the bundled example submissions once (or reads ``--source``, a graded ``results.json``), then
synthesises classes of 10,000 and 50,000 students by replicating those records under new ids, and
writes ``results.json``, ``grades.csv`` and the report for each in a fresh child process. Printed per
run: peak RSS of the child (``resource.getrusage``), the writing time, the sizes, and the time
headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright) takes to open the report.

Modes (each a child process of its own):

- ``stream``: the records come one at a time (from disk, as a grader reading per-student results
  would give them); the writers hold one record at a time;
- ``list``: the whole class is in memory first (as ``grade_batch`` returned it before its ResultStore);
- ``store``: the records are put one at a time into a ``ResultStore`` (as ``grade_batch`` now returns
  them: a file on disk, a record read back at a time), then written from there;
- ``baseline``: ``list`` run on another commit's code (``--baseline REV``, e.g. the commit before
  the streaming writers), for a before/after in the same run.

``--pipeline N`` also times the steps after grading for N students with their notebooks on disk
(autograded notebooks, feedback pages, results, report; no gradebook): one after another, then
side by side as ``python -m autograder grade`` runs them.

    python scripts/bench_outputs.py --source demo/graded/results.json --baseline 19a6ca2 --pipeline 2000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


class SyntheticClass:
    """``n`` students replicated from ``templates`` (JSON records) under new ids, built one at a time."""

    def __init__(self, templates: list[dict[str, Any]], n: int) -> None:
        self.templates, self.n = templates, n

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[Any]:
        from autograder.grading import StudentResult

        for i in range(self.n):
            # a fresh record per student, parsed as from a per-student file: nothing shared but the text
            yield StudentResult.from_json({**json.loads(self.templates[i % len(self.templates)]),
                                           "student_id": f"s{i:06d}"})


def _templates(source: Path) -> tuple[dict[str, Any], list[str]]:
    document = json.loads(source.read_text(encoding="utf-8"))
    return document, [json.dumps(student) for student in document["students"]]


def child(source: Path, n: int, mode: str, out: Path) -> None:
    """Write results and report for ``n`` synthetic students; print one JSON line of measurements."""
    from autograder.exercises.ndcg import EXERCISE
    from autograder.grading import BatchResult, GroupInfo
    from autograder.output.report import write_report
    from autograder.output.results import write_results

    document, templates = _templates(source)
    synthetic = SyntheticClass(templates, n)
    if mode == "store":  # as grade_batch leaves them: put in a ResultStore one at a time as they come
        from autograder.grading.store import ResultStore

        students: Any = ResultStore.of(out / ".state", synthetic)
    else:
        students = synthetic if mode == "stream" else list(synthetic)
    batch = BatchResult(document["assignment"], EXERCISE.notebook, EXERCISE.title, document["max_score"],
                        document["sandbox"], [GroupInfo(**g) for g in document["tests"]], students)
    start = time.perf_counter()
    write_results(out, batch)
    written = time.perf_counter()
    write_report(out, EXERCISE, batch)
    done = time.perf_counter()
    print(json.dumps({
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "results_s": written - start, "report_s": done - written,
    }))


def open_time(page_path: Path, repeats: int = 3) -> float:
    """The median seconds headless Chromium takes to load ``page_path`` (the ``load`` event), a fresh page each time."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            for _ in range(repeats):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=120_000)
                page.evaluate("() => document.body.offsetHeight")  # layout done, not just parsed
                times.append(time.perf_counter() - start)
                page.close()
        finally:
            browser.close()
    return statistics.median(times)


def run_child(source: Path, n: int, mode: str, out: Path, pythonpath: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "MPLBACKEND": "Agg"}
    command = [sys.executable, __file__, "--child", str(n), mode, str(out), "--source", str(source)]
    done = subprocess.run(command, env=env, cwd=pythonpath, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{mode} {n}: the child failed:\n{done.stderr[-3000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    report = out / "report.html"
    roster = sorted((out / "roster").glob("*.html")) if (out / "roster").is_dir() else []
    measured |= {
        "results_mb": (out / "results.json").stat().st_size / 1024**2,
        "report_mb": report.stat().st_size / 1024**2,
        "report_rows": report.read_text(encoding="utf-8").count("<tr"),
        "report_open_s": open_time(report),
        "roster_pages": len(roster),
        "roster_page_open_s": open_time(roster[0]) if roster else None,
    }
    return measured


def grade_examples(scratch: Path) -> Path:
    """Grade the bundled examples once in a scratch course; return its ``results.json``."""
    from autograder.course.materials.demo_course import stage_examples
    from autograder.course.materials.nbgrader_commands import generate_release
    from autograder.exercises.ndcg import EXERCISE
    from autograder.pipeline import GradeOptions, grade_course
    from autograder.sandbox import choose_sandbox

    course = scratch / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "source", course / "source")
    generate_release(course)
    stage_examples(course, course / "submitted", hostile=choose_sandbox("auto").isolated,
                   examples=ROOT / "examples" / "submissions")
    grade_course(GradeOptions(EXERCISE, submitted=course / "submitted", out=course / "graded", timeout=3,
                              force=True, course_root=course, gradebook="none", progress=False))
    return course / "graded" / "results.json"


def pipeline(source: Path, n: int, scratch: Path) -> dict[str, float]:
    """Seconds for the steps after grading for ``n`` students: one after another, and as the pipeline runs them."""
    from autograder.course.autograde.autograded import write_autograded
    from autograder.course.materials.nbgrader_commands import generate_release
    from autograder.exercises.ndcg import EXERCISE
    from autograder.grading import BatchResult, GroupInfo
    from autograder.grading.store import ResultStore
    from autograder.output.report import write_report
    from autograder.output.results import write_results
    from autograder.pipeline import GradeOptions, _after_grading, _feedback_pages

    course = source.parents[1]
    if not (course / "release").is_dir():
        raise SystemExit(f"--pipeline needs the graded course of {source} (its release/ and submitted/)")
    document, templates = _templates(source)
    submitted = scratch / "submitted"
    for i in range(n):  # each synthetic student hands in the notebook of the student they copy
        template = document["students"][i % len(templates)]
        notebook = course / "submitted" / template["student_id"] / EXERCISE.assignment / EXERCISE.notebook
        target = submitted / f"s{i:06d}" / EXERCISE.assignment / EXERCISE.notebook
        target.parent.mkdir(parents=True)
        if notebook.is_file():
            shutil.copyfile(notebook, target)
    students = list(SyntheticClass(templates, n))
    batch = BatchResult(document["assignment"], EXERCISE.notebook, EXERCISE.title, document["max_score"],
                        document["sandbox"], [GroupInfo(**g) for g in document["tests"]], students)
    files: dict[str, dict[str, bytes]] = {s.student_id: {} for s in students}
    timings = {}
    for label in ("one after another", "side by side"):
        root = scratch / label.replace(" ", "-")
        root.mkdir()
        shutil.copy(course / "nbgrader_config.py", root)
        shutil.copytree(course / "source", root / "source")
        generate_release(root)
        options = GradeOptions(EXERCISE, submitted=submitted, out=root / "graded", gradebook="none",
                               course_root=root, progress=False)
        start = time.perf_counter()
        if label == "one after another":
            write_autograded(root, submitted, EXERCISE, batch, options.timeout, files, 8 * 1024**2)
            _feedback_pages(options, root, batch, files)
            write_results(options.out, batch)
            write_report(options.out, EXERCISE, batch)
        else:
            store = ResultStore.of(scratch / "store", batch.students)
            _after_grading(options, root, replace(batch, students=store), store, {}, files, 8 * 1024**2)
        timings[label] = time.perf_counter() - start
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help="a graded results.json to replicate (default: grade examples/)")
    parser.add_argument("--sizes", default="10000,50000", help="class sizes (default: 10000,50000)")
    parser.add_argument("--modes", default="stream,list", help="stream, list, store (default: stream,list)")
    parser.add_argument("--baseline", metavar="REV", help="also run `list` on this commit's code (git archive)")
    parser.add_argument("--pipeline", type=int, metavar="N", help="time the steps after grading for N students")
    parser.add_argument("--child", nargs=3, metavar=("N", "MODE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.source, int(args.child[0]), args.child[1], Path(args.child[2]))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-outputs-") as temporary:
        scratch = Path(temporary)
        source = (args.source or grade_examples(scratch)).resolve()
        runs = [(mode, ROOT) for mode in args.modes.split(",")]
        if args.baseline:
            from bench_grading import code_at

            runs.append(("baseline", code_at(args.baseline, scratch / "baseline")))
        print(f"{'students':>8} {'mode':<9} {'peak RSS MB':>11} {'results s':>9} {'results MB':>10} "
              f"{'report s':>8} {'report MB':>9} {'rows':>6} {'open s':>6} {'pages':>5} {'page open s':>11}")
        for n in (int(size) for size in args.sizes.split(",") if size):
            for mode, code in runs:
                out = scratch / f"out-{mode}-{n}"
                m = run_child(source, n, "list" if mode == "baseline" else mode, out, code)
                page = "" if m["roster_page_open_s"] is None else f"{m['roster_page_open_s']:.2f}"
                print(f"{n:>8} {mode:<9} {m['peak_rss_mb']:>11.0f} {m['results_s']:>9.1f} {m['results_mb']:>10.1f} "
                      f"{m['report_s']:>8.1f} {m['report_mb']:>9.2f} {m['report_rows']:>6} "
                      f"{m['report_open_s']:>6.2f} {m['roster_pages']:>5} {page:>11}", flush=True)
                shutil.rmtree(out)
        if args.pipeline:
            timings = pipeline(source, args.pipeline, scratch / "pipeline")
            print(f"steps after grading, {args.pipeline} students (autograded, feedback, results, report; "
                  "no gradebook): " + ", ".join(f"{label} {s:.1f} s" for label, s in timings.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
