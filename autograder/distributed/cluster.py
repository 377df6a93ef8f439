"""A Dask client: to the course's scheduler (``--scheduler``), or to a local cluster of processes (``--processes``).

The local cluster listens on 127.0.0.1 only, speaks TLS with a throw-away certificate made in
memory (``Security.temporary``), and has no dashboard: Dask runs whatever code a client sends, so
a plain-TCP scheduler on a shared course server would let any local user run code as the grader.
Its workers neither spill to disk nor pause on memory (``memory_limit=0``): a job's notebook and
seed and a result stay in memory. A remote scheduler is reached with the security settings of
Dask's own configuration (``tls://`` with the course's certificates; see the tutor's guide).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from ..errors import UsageError
from .executor import DistributedError

#: Seconds to reach a scheduler, and for the first worker to join it.
CONNECT_TIMEOUT = 30
WORKER_TIMEOUT = 120
INSTALL = "pip install -c constraints.txt -e '.[distributed]' (make venv installs it)"


@contextmanager
def dask_client(scheduler: str | None, processes: int) -> Iterator[Any]:
    """A connected ``distributed.Client`` with at least one worker; closed (with its local cluster) afterwards.

    Raises
    ------
    UsageError
        Without Dask installed.
    DistributedError
        When the scheduler cannot be reached or no worker joins it in time.
    """
    try:
        from distributed import Client, LocalCluster
        from distributed.security import Security
    except ImportError:
        raise UsageError(f"--scheduler and --dask-processes need Dask distributed: {INSTALL}") from None
    # a killed worker is expected (it is restarted, its jobs graded elsewhere): no traceback wall for it
    logging.getLogger("distributed").setLevel(logging.ERROR)
    with ExitStack() as stack:
        if scheduler:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as error:
                raise DistributedError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        else:
            security = Security.temporary()
            cluster = stack.enter_context(LocalCluster(
                n_workers=processes, threads_per_worker=1, processes=True, host="127.0.0.1", protocol="tls://",
                security=security, dashboard_address=None, memory_limit=0,
            ))
            client = Client(cluster, security=security, set_as_default=False)
        stack.callback(client.close)
        try:
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except TimeoutError:
            where = scheduler or "the local cluster"
            raise DistributedError(
                f"no Dask worker joined {where} within {WORKER_TIMEOUT} s (start some: dask worker {where})"
            ) from None
        yield client
