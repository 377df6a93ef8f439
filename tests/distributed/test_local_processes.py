"""A large class is graded by forked worker processes (:mod:`autograder.distributed.local`), as threads grade it.

The results must equal the threads' student for student (the course's secret in play), and a grader
killed with ``kill -9`` must leave neither a worker nor a sandbox behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course

from grading_run import CORRECT_DCG, CORRECT_NDCG, ROOT, add_student, new_course, results

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers")]


def _course(tmp_path: Path) -> Path:
    course = new_course(tmp_path / "course")
    add_student(course, "ann")
    add_student(course, "bo", dcg=CORRECT_DCG.replace("i + 2", "i + 1"))  # log2(i + 1): a mistake
    add_student(course, "cy", extra=("import os; os._exit(3)",))  # a cell that ends its process
    add_student(course, "di", ndcg=CORRECT_NDCG.replace("if ideal else 0.0", ""))
    add_student(course, "ed", dcg="def dcg(rels, k):\n    raise ValueError('todo')")
    (course / "submitted" / "gus").mkdir()  # no notebook: a result without any grading
    return course


def _graded_through_the_worker_function_here(tmp_path: Path) -> None:
    """What a Dask-less test or notebook may do before: grade a job in this process with the worker's
    function, which keeps its sandbox (and that sandbox's zygote) in the worker module."""
    import json

    from autograder.distributed.worker import RemoteJob, code_digest, grade_remote
    from autograder.grading import GradingSettings
    from autograder.grading.batch import Job
    from autograder.grading.reading.notebook import NotebookFile

    job = Job("zed", NotebookFile("ndcg.ipynb", b"{}", "0" * 64, (1, 2)), seed=b"s" * 32)
    settings = GradingSettings(EXERCISE, 5.0, frozenset(), limits=EXERCISE.limits)
    answer = json.loads(grade_remote(RemoteJob(job, settings, str(tmp_path), "auto", code_digest())))
    assert answer["problem"] is None


def test_worker_processes_grade_as_threads_do(tmp_path):
    course = _course(tmp_path)
    # the forked workers inherit this process's state: they must choose their own sandboxes all the same
    # (they graded everyone as a grader error once, after another test had done this in the same process)
    _graded_through_the_worker_function_here(tmp_path)
    runs = {}
    for label, process_class in (("threads", 10**9), ("processes", 1)):
        options = GradeOptions(EXERCISE, submitted=course / "submitted", out=course / label, workers=2,
                               progress=False, gradebook="none", course_root=course, process_class=process_class)
        runs[label] = grade_course(options)
    threads, processes = results(course, "threads"), results(course, "processes")
    assert processes == threads, {s: (r["status"], r["message"]) for s, r in processes.items()}
    assert {s.student_id for s in runs["processes"].batch.students} == {"ann", "bo", "cy", "di", "ed", "gus"}


def _with_marker(marker: str) -> list[int]:
    """Processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue  # ended meanwhile
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc")
def test_a_killed_grader_leaves_no_worker_behind(tmp_path):
    course = new_course(tmp_path / "course")
    for number in range(8):  # each a while in its sandboxes, so that the kill lands mid-batch
        add_student(course, f"s{number}", extra=("import time\ntime.sleep(1)",))
    marker = f"marker-{uuid.uuid4().hex}"  # in the coordinator's command line, so in its forked workers' too
    code = (f"# {marker}\nfrom pathlib import Path\nfrom autograder.exercises.ndcg import EXERCISE\n"
            "from autograder.pipeline import GradeOptions, grade_course\n"
            "grade_course(GradeOptions(EXERCISE, submitted=Path('submitted'), out=Path('graded'), workers=2,\n"
            "    progress=False, gradebook='none', course_root=Path('.'), process_class=1))\n")
    grader = subprocess.Popen([sys.executable, "-c", code], cwd=course, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 120
        while len(_with_marker(marker)) < 3:  # the coordinator and its two workers
            assert grader.poll() is None and time.monotonic() < deadline, "no worker processes started"
            time.sleep(0.05)
        time.sleep(1.5)  # the workers are in their sandboxes now
        grader.send_signal(signal.SIGKILL)
        grader.wait()
        deadline = time.monotonic() + 10
        while _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _with_marker(marker) == [], "worker processes outlived the killed grader"
    finally:
        if grader.poll() is None:
            grader.kill()


def _dies_on_bo(job, *args):
    """A worker's grading function that kills its worker process on bo's submission (the OOM killer, say)."""
    from autograder.distributed import local

    if job.student_id == "bo":
        os._exit(9)
    return local._grade_forked(job, *args)


def test_a_worker_that_dies_costs_no_grade_the_next_run_grades_again(tmp_path, monkeypatch):
    from autograder.distributed import local
    from autograder.grading import Status

    course = _course(tmp_path)
    options = GradeOptions(EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2,
                           progress=False, gradebook="none", course_root=course, process_class=1)
    monkeypatch.setattr(local, "_grade_forked", local._grade_here, raising=False)
    monkeypatch.setattr(local, "_grade_here", _dies_on_bo)  # the workers fork with it in place
    first = {s.student_id: s for s in grade_course(options).batch.students}
    assert first["bo"].status is Status.NOT_GRADED and "worker process died" in (first["bo"].message or "")
    assert first["gus"].status is not Status.NOT_GRADED  # no notebook: never sent to a worker
    monkeypatch.undo()
    second = {s.student_id: s for s in grade_course(options).batch.students}
    assert all(s.status is not Status.NOT_GRADED for s in second.values())
    assert second["ann"].score == EXERCISE.max_score and second["bo"].score < EXERCISE.max_score
