"""What runs on a Dask worker: one submission in this machine's sandbox, its result back as JSON text.

Imported by the worker processes when a task arrives (they need the kit installed, the same version
as the coordinator's: the code digest says so). Nothing here imports Dask, and nothing is written
to the worker's disk but the sandbox's own scratch folders: the job arrives in memory (the notebook's
bytes and the submission's seed, never the course's secret) and the result leaves as one string.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from ..files import source_digest
from ..grading.batch import Job, grade_job
from ..grading.submission import GradingSettings
from ..sandbox import Limits, Sandbox, SandboxUnavailable, choose_sandbox

#: The kit's package: workers and coordinator must run the same code, all of it.
PACKAGE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class RemoteJob:
    """A job as the coordinator sends it."""

    job: Job
    #: The batch's settings with ``draw_key`` emptied: the job's seed stands for the secret.
    settings: GradingSettings
    #: The coordinator's submissions folder: only to name the notebook in the result as a local run does.
    submitted: str
    #: ``--sandbox`` as the tutor gave it; the worker chooses its own sandbox with it.
    sandbox_mode: str
    #: The coordinator's :func:`code_digest`: a worker with other grading code refuses.
    code: str


@functools.cache
def code_digest() -> str:
    """A digest of this installation's grading code (the kit's package), computed once per process."""
    return source_digest(PACKAGE)


_sandboxes: dict[tuple[str, Limits], Sandbox] = {}
_sandbox_lock = threading.Lock()
_free_slots: set[int] = set()
_next_slot = 0
_slot_lock = threading.Lock()


def _sandbox(mode: str, limits: Limits) -> Sandbox:
    """This process's sandbox for ``mode`` and ``limits``, chosen (and checked) once for each pair.

    Keyed by the limits too: one worker may serve coordinators that grade with different ones.
    """
    with _sandbox_lock:
        if (mode, limits) not in _sandboxes:
            _sandboxes[mode, limits] = choose_sandbox(mode, limits)
        return _sandboxes[mode, limits]


def forget_inherited() -> None:
    """In a process just forked from one that graded here too: choose sandboxes and slots anew.

    The parent's sandboxes talk to the parent's zygotes through the parent's threads, which a fork
    does not copy; and one of the parent's threads may have held a lock below when it forked. The
    parent's objects are dropped, not closed: closing them would end the parent's zygotes.
    """
    global _sandboxes, _sandbox_lock, _free_slots, _next_slot, _slot_lock
    _sandboxes, _sandbox_lock = {}, threading.Lock()
    _free_slots, _next_slot, _slot_lock = set(), 0, threading.Lock()


def _take_slot() -> int:
    global _next_slot
    with _slot_lock:
        if _free_slots:
            return _free_slots.pop()
        _next_slot += 1
        return _next_slot - 1


def _give_slot(slot: int) -> None:
    with _slot_lock:
        _free_slots.add(slot)


def worker_name() -> str:
    """``host:pid`` of this process, for messages."""
    return f"{socket.gethostname()}:{os.getpid()}"


def grade_remote(remote: RemoteJob) -> str:
    """Grade ``remote`` here; return JSON text (see :func:`autograder.distributed.executor.read_answer`).

    Never raises for what a submission does (:func:`~autograder.grading.batch.grade_job`); a worker
    that cannot grade at all (other code, no sandbox) says so in ``problem``.
    """
    answer: dict[str, object] = {"worker": worker_name(), "code": code_digest(), "problem": None}
    if remote.code != answer["code"]:
        return json.dumps(answer)
    try:
        sandbox = _sandbox(remote.sandbox_mode, remote.settings.sandbox_limits)
    except SandboxUnavailable as error:
        answer["problem"] = f"no sandbox there: {error}"
        return json.dumps(answer)
    slot = _take_slot()  # per process; the sandbox's user id lease keeps processes apart as well
    try:
        graded = grade_job(remote.job, remote.settings, Path(remote.submitted), sandbox, slot)
    finally:
        _give_slot(slot)
    answer.update(
        result=graded.result.to_json(), keep=graded.job is not None, sandbox=sandbox.name,
        warning=sandbox.resource_warning,
    )
    return json.dumps(answer)
