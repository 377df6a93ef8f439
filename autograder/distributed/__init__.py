"""Grading beyond one machine, and beyond one interpreter lock: the per-student work on Dask distributed.

``python -m autograder grade --scheduler tls://host:8786`` (the course's cluster) or ``--dask-processes N``
(a local cluster of N worker processes). This process stays the coordinator (:mod:`.executor`);
the workers grade in their own sandboxes (:mod:`.worker`). Dask is an optional extra
(``ndcg-kit[distributed]``), imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .cluster import dask_client
from .executor import DaskExecutor, DistributedError

__all__ = ["DaskExecutor", "DistributedError", "dask_executor"]


@contextmanager
def dask_executor(
    scheduler: str | None, processes: int, sandbox_mode: str, sandbox_name: str
) -> Iterator[DaskExecutor]:
    """A :class:`DaskExecutor` on the scheduler at ``scheduler``, or on ``processes`` local worker processes."""
    with dask_client(scheduler, processes) as client:
        yield DaskExecutor(client, sandbox_mode, sandbox_name)
