"""Benchmark: the grader's peak memory for one 7.2 MB by-hand answer (issue 31, item 6), this code against a baseline.

Builds a throw-away course with two submissions whose code is right: ``honest`` answers Task 1.2 with
numbers, ``bomb`` writes ``DCG_AT_K = 1+1+…+1`` (3.6 million terms, 7.2 MB, under the 8 MiB notebook
limit). Then runs, for this code and for each ``--baseline REV`` (``git archive`` of that commit), the
commands a tutor runs, under ``/usr/bin/time -v``, and prints each one's maximum resident set size,
CPU time and what it gave the bomb:

- ``python -m autograder grade --sandbox required --gradebook none --force`` (the batch path; the
  by-hand answers are read in this process, the code is run in the sandbox);
- ``nbgrader autograde ndcg --force`` (nbgrader's path: the course's SandboxedExecute reads the
  answers in nbgrader's process);
- ``python -m autograder copying`` (reads every student's answers).

    .venv/bin/python scripts/bench_byhand_answer.py --baseline main
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402
from bench_grading import code_at  # noqa: E402

from autograder.course.materials.example_notebooks import fill_solutions  # noqa: E402
from autograder.course.materials.nbgrader_commands import run_nbgrader  # noqa: E402
from autograder.gradebook.scores import tool_environment  # noqa: E402

LOOP = ("import math\n\n\ndef dcg(rels, k):\n    total = 0.0\n    for i in range(min(k, len(rels))):\n"
        "        total += rels[i] / math.log2(i + 2)\n    return total")
RIGHT_NDCG = "def ndcg(rels, k):\n    ideal = dcg(sorted(rels, reverse=True), k)\n    return dcg(rels, k) / ideal if ideal else 0.0"
BOMB = "DCG_AT_K = " + "+".join(["1"] * 3_600_000)
HONEST = "IDEAL_RANKING = [3, 2, 1]\nDCG_AT_K = 4.12\nIDCG_AT_K = 5.2\nNDCG_AT_K = 4.12 / 5.2"


def build_course(folder: Path) -> None:
    """The course's config, source and release (generated: nbgrader's gradebook too), and the two submissions."""
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    shutil.copytree(ROOT / "source", folder / "source")
    run_nbgrader(folder, "generate_assignment", "ndcg", "--force")
    release = nbformat.read(folder / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
    for student, answers in (("honest", HONEST), ("bomb", BOMB)):
        notebook = fill_solutions(release, {"dcg": LOOP, "ndcg": RIGHT_NDCG})
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "byhand_answers":
                cell.source = answers
        target = folder / "submitted" / student / "ndcg" / "ndcg.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)


def measured(code: Path, course: Path, *command: str) -> tuple[float, float, str]:
    """Run ``COMMAND`` (``python -m autograder …`` or ``nbgrader …``) in ``course`` with the kit in ``code``.

    Returns the maximum resident set size (MB), the CPU time (s) and the command's last line.
    """
    env = {**tool_environment(), "PYTHONPATH": str(code)}
    program = [str(Path(sys.executable).parent / "nbgrader")] if command[0] == "nbgrader" else [
        sys.executable, "-m", "autograder"]
    arguments = command[1:] if command[0] == "nbgrader" else command
    done = subprocess.run(["/usr/bin/time", "-v", *program, *arguments], cwd=course,
                          env=env, capture_output=True, text=True, check=False)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", done.stderr)
    system = re.search(r"System time \(seconds\): ([\d.]+)", done.stderr)
    if rss is None or user is None or system is None:
        sys.exit(f"/usr/bin/time gave no figures:\n{done.stderr[-2000:]}")
    own = done.stdout + done.stderr.split("\tCommand being timed:")[0]  # the command's words, not time's
    lines = [line for line in own.strip().splitlines() if not line.startswith("Command exited")]
    said = lines[-1] if lines else ""
    return int(rss.group(1)) / 1024, float(user.group(1)) + float(system.group(1)), f"exit {done.returncode}: {said}"


def bomb_result(course: Path) -> str:
    students = {s["student_id"]: s for s in json.loads((course / "graded" / "results.json").read_text())["students"]}
    bomb = students["bomb"]
    return f"bomb {bomb['status']}, {bomb['score']:g} of {bomb['max_score']:g}: {bomb.get('message') or ''}"[:160]


def gradebook_bomb(course: Path) -> str:
    """The bomb's total in nbgrader's gradebook, and the code's part of it."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="ir-ranking-evaluation") as gradebook:
        submission = gradebook.find_submission("ndcg", "bomb")
        return f"bomb in nbgrader's gradebook: {submission.score:g} of {submission.max_score:g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="append", default=[], help="also measure this git revision's code")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        codes = {"this": ROOT}
        for number, revision in enumerate(args.baseline):
            codes[revision] = code_at(revision, Path(scratch) / f"code-{number}")
        for label, code in codes.items():
            course = Path(scratch) / f"course-{label.replace('/', '-')}"
            course.mkdir()
            build_course(course)
            rss, cpu, said = measured(code, course, "grade", "--quiet", "--sandbox", "required", "--gradebook", "none",
                                      "--force")
            print(f"{label:<8} grade:   max RSS {rss:7.0f} MB, CPU {cpu:5.1f} s; {said[:100]}")
            print(f"{'':<8}          {bomb_result(course)}")
            rss, cpu, said = measured(code, course, "nbgrader", "autograde", "ndcg", "--force")
            print(f"{label:<8} nbgrader autograde: max RSS {rss:7.0f} MB, CPU {cpu:5.1f} s; {said[:100]}")
            print(f"{'':<8}          {gradebook_bomb(course)}")
            rss, cpu, said = measured(code, course, "copying")
            print(f"{label:<8} copying: max RSS {rss:7.0f} MB, CPU {cpu:5.1f} s; {said[:150]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
