"""Grading on Dask distributed: a real scheduler and two worker processes on 127.0.0.1, one killed mid-run.

The results must equal a local run's, student for student, with the course's secret in play (so the
seed the coordinator draws is the one a local run draws), and the secret must never leave this process.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

pytest.importorskip("distributed")

import cloudpickle

from autograder.distributed import DaskExecutor, dask_executor
from autograder.distributed.cluster import dask_client
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import Status, grade_batch
from autograder.grading.batch import STATE
from autograder.sandbox import choose_sandbox

from grading_run import CORRECT_DCG, CORRECT_NDCG, add_student, new_course, release_settings

pytestmark = pytest.mark.slow

SECRET = bytes(range(32))
#: Each job takes a while (three sandboxes, each sleeping), so that a worker is killed with one in hand.
SLOW = "import time; time.sleep(0.4)"


def _course(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "ann", extra=(SLOW,))
    add_student(course, "bo", dcg=CORRECT_DCG.replace("i + 2", "i + 1"), extra=(SLOW,))  # log2(i + 1): a mistake
    add_student(course, "cy", extra=(SLOW, "import os; os._exit(3)"))  # a cell that ends its process
    add_student(course, "di", ndcg=CORRECT_NDCG.replace("if ideal else 0.0", ""), extra=(SLOW,))
    add_student(course, "ed", dcg="def dcg(rels, k):\n    raise ValueError('todo')", extra=(SLOW,))
    add_student(course, "fay", extra=(SLOW,))
    (course / "submitted" / "gus").mkdir()  # no notebook: a result without any grading
    return course


def test_dask_grades_as_a_local_run_does_with_a_worker_killed_mid_run(tmp_path):
    course = _course(tmp_path)
    settings = release_settings(10.0, draw_key=SECRET)
    sandbox = choose_sandbox("auto")
    local = grade_batch(course / "submitted", tmp_path / "local", settings, sandbox, workers=2, progress=False)

    out = tmp_path / "dask"
    killed: list[tuple[int, tuple[str, ...]]] = []
    sent: list[bytes] = []
    with dask_client(None, 2) as client:
        pids = client.run(os.getpid)
        assert len(pids) == 2 and os.getpid() not in pids.values()  # two real worker processes
        submit = client.submit

        def recording_submit(function, remote, **kwargs):
            sent.append(cloudpickle.dumps(remote))
            return submit(function, remote, **kwargs)

        client.submit = recording_submit
        stop = threading.Event()

        def kill_a_busy_worker() -> None:
            while not stop.is_set() and not list((out / STATE).glob("*.json")):
                time.sleep(0.05)
            while not stop.is_set():
                busy = {address: keys for address, keys in client.processing().items() if keys and address in pids}
                if busy:
                    address, keys = next(iter(busy.items()))
                    os.kill(pids[address], signal.SIGKILL)
                    killed.append((pids[address], tuple(keys)))
                    return
                time.sleep(0.02)

        killer = threading.Thread(target=kill_a_busy_worker)
        killer.start()
        try:
            executor = DaskExecutor(client, "auto", sandbox.name)
            remote = grade_batch(course / "submitted", out, settings, sandbox, workers=2, progress=False,
                                 executor=executor)
        finally:
            stop.set()
            killer.join()

    assert killed, "no worker was busy after the first result: nothing was killed mid-run"
    pid, keys = killed[0]
    assert keys and all(key.startswith("grade-") for key in keys)  # it held jobs, none named by a student
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert [r.to_json() for r in remote] == [r.to_json() for r in local]  # identical, student for student
    assert {r.student_id: r.status for r in remote}["gus"] is Status.MISSING
    assert Status.NOT_GRADED not in {r.status for r in remote}
    assert [r.score for r in remote if r.student_id in ("ann", "fay")] == [EXERCISE.max_score] * 2
    assert {r.student_id: r.score for r in remote}["bo"] < EXERCISE.max_score  # the mistake is seen
    # the course's secret never left this process: only each submission's seed did
    assert len(sent) >= 6 and not any(SECRET in payload for payload in sent)


def test_a_submission_whose_workers_all_died_is_not_graded_and_graded_next_run(tmp_path):
    import dask

    course = new_course(tmp_path / "course")
    for student in ("ann", "bo", "cy"):
        add_student(course, student, extra=(SLOW,))
    settings = release_settings(10.0, draw_key=SECRET)
    sandbox = choose_sandbox("auto")
    out = tmp_path / "out"
    victims: list[str] = []
    # no second worker for a job whose worker died: the scheduler gives it up at once (the default is 3)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), dask_client(None, 2) as client:
        pids = client.run(os.getpid)
        stop = threading.Event()

        def kill_a_busy_worker() -> None:
            while not stop.is_set():
                busy = [address for address, keys in client.processing().items() if keys and address in pids]
                if busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    victims.append(busy[0])
                    return
                time.sleep(0.02)

        killer = threading.Thread(target=kill_a_busy_worker)
        killer.start()
        try:
            first = grade_batch(course / "submitted", out, settings, sandbox, workers=2, progress=False,
                                executor=DaskExecutor(client, "auto", sandbox.name))
        finally:
            stop.set()
            killer.join()
        lost = [r for r in first if r.status is Status.NOT_GRADED]
        assert victims and lost, "the killed worker's jobs were graded elsewhere: nothing to check"
        assert all("every Dask worker that took this submission died" in r.message for r in lost)
        assert len(list((out / STATE).glob("*.json"))) == 3 - len(lost)  # the lost ones are not saved
        again = grade_batch(course / "submitted", out, settings, sandbox, workers=2, progress=False,
                            executor=DaskExecutor(client, "auto", sandbox.name))
    assert [r.score for r in again] == [EXERCISE.max_score] * 3


def test_a_dask_run_resumes_from_the_saved_results(tmp_path):
    course = new_course(tmp_path / "course")
    for student in ("ann", "bo"):
        add_student(course, student)
    settings = release_settings(10.0, draw_key=SECRET)
    sandbox = choose_sandbox("auto")
    out = tmp_path / "out"
    with dask_executor(None, 1, "auto", sandbox.name) as executor:
        first = grade_batch(course / "submitted", out, settings, sandbox, workers=1, progress=False,
                            executor=executor)
        saved = {path.name: path.stat().st_mtime_ns for path in (out / STATE).glob("*.json")}
        assert len(saved) == 2
        again = grade_batch(course / "submitted", out, settings, sandbox, workers=1, progress=False,
                            executor=executor)
    assert [r.to_json() for r in again] == [r.to_json() for r in first]
    assert {path.name: path.stat().st_mtime_ns for path in (out / STATE).glob("*.json")} == saved  # nothing re-graded
