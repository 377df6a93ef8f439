"""The by-hand copying check that grading runs: its cost for a class of N students, against marking without it.

Marks every student's Task 1.2 answers (nothing runs: :func:`mark_answers`) twice in one process,
in turn: alone (as before the check) and against the whole class's lists (:class:`Classmates`:
answers that fit another student's list). One student in 20 hands in a classmate's numbers. The
class's lists are built once per class and process (:func:`class_lists`), inside the measured
time of the first round. Prints the seconds of each, the ratio, and the extra milliseconds per
student (a grading run then also marks each saved result once more: :func:`answers_current`).

Usage: python scripts/bench_copied_check.py [--students 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.answered_part import NO_CLASSMATES, mark_answers
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, DERIVATION_ID, derivation_source
from autograder.exercises.ndcg.byhand.derive import CUTOFF
from autograder.exercises.ndcg.byhand.notebook_sync import POOL_FILE
from autograder.exercises.ndcg.byhand.other_lists import class_lists
from autograder.exercises.ndcg.byhand.pool import list_for
from autograder.exercises.ndcg.byhand.steps import right_steps
from autograder.grading import Classmates, GradingSettings
from autograder.grading.batch import class_digest


def _cell(student: str, salt: str, pool: str) -> str:
    right = right_steps(list_for(student, salt, pool), CUTOFF)
    return f"DCG_AT_K = {right.dcg:.2f}\nIDCG_AT_K = {right.idcg:.2f}\nNDCG_AT_K = {right.dcg:.2f} / {right.idcg:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    salt, pool = "bench-salt", POOL_FILE.read_text(encoding="ascii").strip()
    ids = [f"s{n:05d}" for n in range(args.students)]
    release = {DERIVATION_ID: derivation_source(salt, pool)}
    # one in 20 hands in the previous student's numbers
    cells = {s: {ANSWERS_ID: _cell(ids[n - 1] if n % 20 == 1 else s, salt, pool)} for n, s in enumerate(ids)}
    classmates = Classmates(frozenset(ids))
    list_for(ids[0], salt, pool)  # the pool decoded once per process, in both rounds alike
    alone, checked, flagged = [], [], 0
    for _ in range(args.rounds):
        class_lists.cache_clear()  # each round builds the class's lists again, as a new grading process does
        start = time.perf_counter()
        for student in ids:
            mark_answers(student, cells[student], release, NO_CLASSMATES)
        alone.append(time.perf_counter() - start)
        start = time.perf_counter()
        flagged = sum(mark_answers(s, cells[s], release, classmates).copied_from is not None for s in ids)
        checked.append(time.perf_counter() - start)
    a, c = statistics.median(alone), statistics.median(checked)
    print(f"{args.students} students, {flagged} flagged (of {len(range(1, args.students, 20))} copied), "
          f"median of {args.rounds} rounds")
    print(f"marking alone:            {a:.3f} s")
    print(f"marking with the check:   {c:.3f} s (the class's lists built once included)")
    print(f"ratio: {c / a:.2f}; extra per student: {1000 * (c - a) / args.students:.3f} ms")
    class_lists.cache_clear()
    start = time.perf_counter()
    class_lists(classmates.ids, salt, pool)
    built = time.perf_counter() - start
    settings = GradingSettings(EXERCISE, 1.0, frozenset(), classmates=classmates)
    start = time.perf_counter()
    class_digest(settings)
    digest = time.perf_counter() - start
    print(f"of which the class's lists, once per grading process: {1000 * built:.1f} ms")
    print(f"a saved result reused in the same class: the class's digest once per run, {1000 * digest:.2f} ms; "
          f"after the class changed, each saved result is marked once more ({1000 * c / args.students:.2f} ms each)")


if __name__ == "__main__":
    main()
