"""Grading in worker processes of this machine: an interpreter lock per worker, not one for the batch.

With ``--workers N`` threads, every thread's own work (the protocol with its sandbox, scoring, the
diagnosis: about 45 ms of Python per submission) takes turns under this process's one lock, and
a class of a hundred waits for it more than for the sandboxes. From :data:`PROCESS_CLASS` students on,
the batch is graded by ``N`` worker processes instead, each grading one submission at a time in a
sandbox of its own, as a Dask worker does (:func:`.worker.grade_remote`: the same job, the same
answer, checked the same way). This process stays the coordinator: it alone reads the notebooks,
keeps the resume cache and writes every output. No Dask is needed.

The workers are forked from this process when grading starts (no second start of Python and the
kit: they have everything loaded), and die with it: a grader killed with ``kill -9`` leaves no
worker, nor any of their sandboxes, behind.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from ..grading.batch import Graded, Job
from ..grading.model import Status, StudentResult
from ..grading.submission import GradingSettings
from .executor import read_answer, take_jobs
from .worker import RemoteJob, code_digest, forget_inherited, grade_remote

#: Students from which ``python -m autograder grade`` grades in worker processes (with two workers or more).
PROCESS_CLASS = 60
#: Jobs kept in flight per worker: one being graded, one waiting, so that no worker idles.
IN_FLIGHT_PER_WORKER = 2
#: ``prctl`` option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


#: In a worker: the batch's settings, inherited when it was forked (they hold functions pickle cannot send).
_settings: GradingSettings | None = None


def _start_worker(settings: GradingSettings) -> None:
    """In a new worker: keep the batch's settings; end when the coordinator ends, however it ends."""
    global _settings
    _settings = settings
    forget_inherited()  # this process may have graded before (a test, a notebook): its sandboxes are its own
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # its sandboxes end with it in turn
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle


def _grade_here(job: Job, submitted: str, sandbox_mode: str, code: str) -> str:
    """In a worker: :func:`.worker.grade_remote` of ``job`` with the inherited settings."""
    if _settings is None:
        raise RuntimeError("a worker process without the batch's settings")  # a bug: _start_worker did not run
    return grade_remote(RemoteJob(job, _settings, submitted, sandbox_mode, code))


@dataclass
class ProcessExecutor:
    """Grade in ``workers`` forked worker processes, in sandboxes chosen there with ``sandbox_mode``."""

    workers: int
    sandbox_mode: str
    #: The coordinator's sandbox (``bubblewrap``): the workers choose theirs the same way on the same machine.
    sandbox_name: str
    #: What the workers said about their sandboxes (no cgroups, say), each once.
    warnings: list[str] = field(default_factory=list)

    # why nested: the coordinator's one loop (fill the workers, hand back what is ready, collect what is
    # done) keeps its jobs in this generator, inside the pool's block, so that leaving it ends the workers
    def run(
        self, students: Sequence[str], prepare: Callable[[str], StudentResult | Job], settings: GradingSettings,
        submitted: Path,
    ) -> Iterator[Graded]:
        """See :meth:`autograder.grading.batch.Executor.run`."""
        code = code_digest()
        waiting = iter(students)
        jobs: dict[Future[str], Job] = {}
        # fork: the workers start with the kit loaded (spawn would start Python and import it again, per worker)
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(self.workers, context, _start_worker, (settings,)) as pool:
            try:
                while True:
                    ready, new = take_jobs(waiting, prepare, IN_FLIGHT_PER_WORKER * self.workers - len(jobs))
                    for job in new:
                        try:
                            jobs[pool.submit(_grade_here, job, str(submitted), self.sandbox_mode, code)] = job
                        except BrokenProcessPool:  # a worker died earlier: the pool takes no more
                            ready.append(_not_graded(job, settings.exercise.max_score))
                    yield from ready
                    if not jobs:
                        if not ready:
                            return
                        continue
                    done, _ = wait(jobs, return_when=FIRST_COMPLETED)
                    for future in done:
                        yield self._collect(future, jobs.pop(future), code, settings.exercise.max_score)
            finally:  # stopped early (the disk is full): nothing more starts
                for future in jobs:
                    future.cancel()

    def _collect(self, future: Future[str], job: Job, code: str, max_score: float) -> Graded:
        try:
            text = future.result()
        except BrokenProcessPool:  # a worker died (the kernel's OOM killer): not saved, the next run grades it
            return _not_graded(job, max_score)
        return read_answer(text, job, code, self.sandbox_name, self.warnings)


def _not_graded(job: Job, max_score: float) -> Graded:
    """``job``'s result when a worker process died: not graded, not saved, so the next run grades it."""
    message = "not graded: a worker process died while grading; the next run grades this submission again"
    return Graded(StudentResult.without_grading(job.student_id, Status.NOT_GRADED, message, max_score))

