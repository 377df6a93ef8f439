"""The coordinator's side of grading on Dask: send jobs, take results back, lose no student.

:class:`DaskExecutor` is an :class:`~autograder.grading.batch.Executor`: the batch (this process)
reads each notebook, draws its seed and hands a job to the cluster; a worker grades it in its own
sandbox (:mod:`.worker`) and sends back the result as JSON text, which is checked here and
turned into a :class:`~autograder.grading.model.StudentResult` by ``from_json``. Only this process
writes the resume cache, the outputs and the gradebook. A worker that dies mid-job loses nothing:
the scheduler gives its jobs to another worker; a job whose workers died ``distributed.scheduler.
allowed-failures`` times (3) comes back as ``not graded``, and the next run grades it again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import KitError
from ..grading.batch import Graded, Job
from ..grading.model import Status, StudentResult
from ..grading.submission import GradingSettings
from .worker import RemoteJob, code_digest, grade_remote

#: Jobs kept in flight per worker thread: enough to keep every worker busy, few enough that the
#: coordinator's memory does not grow with the class (each job holds one notebook).
IN_FLIGHT_PER_THREAD = 2


class DistributedError(KitError):
    """The cluster cannot grade (unreachable, other code, no sandbox, gone): the results so far are saved."""


@dataclass
class DaskExecutor:
    """Grade on the workers of a Dask ``client``, in sandboxes chosen there with ``sandbox_mode``."""

    client: Any
    sandbox_mode: str
    #: The coordinator's sandbox (``bubblewrap``): every worker must grade in the same kind.
    sandbox_name: str
    #: What the workers said about their sandboxes (no cgroups, say), each once.
    warnings: list[str] = field(default_factory=list)

    # why nested: the coordinator's one loop (fill the cluster, hand back what is ready, collect one) keeps
    # its jobs and live futures in this generator, so that its finally cancels whatever is left running
    def run(
        self, students: Sequence[str], prepare: Callable[[str], StudentResult | Job], settings: GradingSettings,
        submitted: Path,
    ) -> Iterator[Graded]:
        """See :meth:`autograder.grading.batch.Executor.run`."""
        from distributed import as_completed

        remote_settings = replace(settings, draw_key=b"")  # the secret stays here; each job carries its seed
        code = code_digest()
        threads = sum(self.client.nthreads().values()) or 1
        capacity = max(2, IN_FLIGHT_PER_THREAD * threads)
        waiting = iter(students)
        running = as_completed(loop=self.client.loop)
        jobs: dict[str, Job] = {}
        live: dict[str, Any] = {}
        try:
            while True:
                ready, new = take_jobs(waiting, prepare, capacity - running.count())
                for prepared in new:
                    remote = RemoteJob(prepared, remote_settings, str(submitted), self.sandbox_mode, code)
                    # a key that names no student: the scheduler's dashboard shows no one's id
                    future = self.client.submit(grade_remote, remote, key=f"grade-{uuid.uuid4().hex}", pure=False)
                    jobs[future.key], live[future.key] = prepared, future
                    running.add(future)
                yield from ready
                if running.is_empty():
                    if not ready:
                        return
                    continue
                future = next(running)
                del live[future.key]
                yield self._collect(future, jobs.pop(future.key), code, settings.exercise.max_score)
        finally:
            if live:  # stopped early (the disk is full, the cluster is gone): nothing more runs for us
                self.client.cancel(list(live.values()))

    def _collect(self, future: Any, job: Job, code: str, max_score: float) -> Graded:
        from distributed import KilledWorker

        try:
            text = future.result()
        except KilledWorker:  # not saved: the next run grades them (the submission may be what kills workers)
            message = ("not graded: every Dask worker that took this submission died while grading it; the next "
                       "run grades it again")
            return Graded(StudentResult.without_grading(job.student_id, Status.NOT_GRADED, message, max_score))
        except Exception as error:  # the task could not run at all: the cluster, not the submission
            raise DistributedError(
                f"the Dask cluster could not grade ({type(error).__name__}: {error}); the results so far are "
                "saved: run the same command again to go on"
            ) from None
        return read_answer(text, job, code, self.sandbox_name, self.warnings)


def take_jobs(
    waiting: Iterator[str], prepare: Callable[[str], StudentResult | Job], room: int
) -> tuple[list[Graded], list[Job]]:
    """At most ``room`` jobs from the students ``waiting``, and the results of those read on the way that
    need no grading (refused, or reused from the cache). Notebooks are read only as fast as workers grade them."""
    ready: list[Graded] = []
    jobs: list[Job] = []
    while len(jobs) < room:
        student = next(waiting, None)
        if student is None:
            break
        prepared = prepare(student)
        if isinstance(prepared, StudentResult):
            ready.append(Graded(prepared))
        else:
            jobs.append(prepared)
    return ready, jobs


def read_answer(text: str, job: Job, code: str, sandbox_name: str, warnings: list[str]) -> Graded:
    """A worker's answer to ``job`` as a result, checked field by field.

    Raises
    ------
    DistributedError
        When the worker runs other grading code, has no sandbox, or grades in another kind of sandbox.
    """
    answer = json.loads(text)
    worker = answer["worker"]
    if answer["code"] != code:
        raise DistributedError(
            f"the Dask worker {worker} runs other grading code than this grader: install the same version of the "
            "kit on every worker (results must not depend on where a student is graded)"
        )
    if answer["problem"]:
        raise DistributedError(f"the Dask worker {worker} cannot grade: {answer['problem']}")
    if answer["sandbox"] != sandbox_name:
        raise DistributedError(
            f"the Dask worker {worker} grades in {answer['sandbox']}, this grader in {sandbox_name}: give every "
            "machine the same sandbox (install bubblewrap on the workers, or pass the same --sandbox everywhere)"
        )
    if answer["warning"] and answer["warning"] not in warnings:
        warnings.append(answer["warning"])
    result = StudentResult.from_json(answer["result"])
    if result.student_id != job.student_id:
        raise DistributedError(f"the Dask worker {worker} answered for another student than it was asked to grade")
    return Graded(result, job if answer["keep"] else None)
