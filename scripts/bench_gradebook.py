"""How long recording a class in nbgrader's gradebook takes, on SQLite and on PostgreSQL.

Synthetic students (every test group scored, as a graded batch leaves them) are recorded with
``record_scores`` the first time, then again with nothing changed, then once more with one student
in ten scored differently; then the marks and lateness are read back for every student as every
output does (``read_gradebook_views``). PostgreSQL is a throw-away Debian cluster with fsync on.

    .venv/bin/python scripts/bench_gradebook.py            # 2,000 / 10,000 / 50,000 students
    .venv/bin/python scripts/bench_gradebook.py 2000       # one size
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from autograder.exercises.ndcg import EXERCISE  # noqa: E402
from autograder.gradebook.database import DEFAULT_COURSE, open_gradebook  # noqa: E402
from autograder.gradebook.read_back import read_gradebook_views  # noqa: E402
from autograder.gradebook.scores import record_scores  # noqa: E402
from autograder.grading import BatchResult  # noqa: E402

from pg_cluster import start_cluster  # noqa: E402
from records import batch_of, graded_result  # noqa: E402

SIZES = (2_000, 10_000, 50_000)


def _batch(count: int, shift: int = 0) -> BatchResult:
    """``count`` graded students; student i passes the first (i + shift) % (groups + 1) groups."""
    groups = len(EXERCISE.groups) + 1
    return batch_of([graded_result(f"s{i:06d}", (i + shift) % groups) for i in range(count)])


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


#: The read-back (marks.py, one query set per student) is measured up to this many students only.
READ_BACK_UP_TO = 2_000


def _schema(url: str) -> None:
    with open_gradebook(url, DEFAULT_COURSE):
        pass


def measure(url: str, count: int, *, read_back: bool = True) -> tuple[float, float, float, float, float]:
    """Seconds: empty schema (nbgrader's, once per gradebook), first record, unchanged re-record,
    re-record with a tenth changed, marks read-back (NaN above :data:`READ_BACK_UP_TO` or without ``read_back``)."""
    schema = _timed(lambda: _schema(url))
    batch = _batch(count)
    first = _timed(lambda: record_scores(url, EXERCISE, batch))
    again = _timed(lambda: record_scores(url, EXERCISE, batch))
    changed = _batch(count)
    for student in changed.students[::10]:
        student.tests[0] = replace(student.tests[0], points=0.5)
    tenth = _timed(lambda: record_scores(url, EXERCISE, changed))
    ids = [s.student_id for s in batch.students]
    views = float("nan") if count > READ_BACK_UP_TO or not read_back else _timed(
        lambda: read_gradebook_views(url, EXERCISE.assignment, Path(EXERCISE.notebook).stem, ids))
    return schema, first, again, tenth, views


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or list(SIZES)
    print(f"{'database':<11}{'students':>9}{'schema s':>9}{'first s':>9}{'unchanged s':>13}{'1/10 changed s':>16}{'read-back s':>13}")
    cluster = start_cluster(durable=True)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-gradebook-") as scratch:
            for count in sizes:
                for name, url in (("sqlite", f"sqlite:///{Path(scratch) / f'g{count}.db'}"),
                                  ("postgresql", cluster.create_database(f"g{count}"))):
                    schema, first, again, tenth, views = measure(url, count)
                    print(f"{name:<11}{count:>9,}{schema:>9.1f}{first:>9.1f}{again:>13.1f}{tenth:>16.1f}{views:>13.1f}", flush=True)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
