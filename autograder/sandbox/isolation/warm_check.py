"""Before grading: prove that a warm run (:mod:`.zygotes`) imports what an honest notebook imports.

The cold check (:mod:`.preflight`) starts a Python as a cold run does; a warm run is forked from a
zygote into mounts of its own, and can lose what a cold run has: a kit cloned into a
``mktemp -d`` folder under ``/tmp`` had its environment hidden by each warm run's fresh ``/tmp``,
and every cell with a ``%magic`` failed with "No module named 'IPython'" while the cold check
passed. So this check forks one run exactly as a student's is forked (the same request, user id,
cgroup and filter) and has the runner run one cell as a student's: a magic (which makes the
runner import IPython and its shell) and an import of each of the course's packages. When that
fails, the caller turns warm starts off (every run starts cold, as the cold check proved works)
and says so in one line.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .preflight import CHECK_TIMEOUT, check_cell
from .zygotes import read_all

if TYPE_CHECKING:
    from ..resources.processes import RunProcess
    from .bubblewrap import Bubblewrap


def _verdict(said: bytes) -> str | None:
    """What the run's reports say went wrong (None: its one cell ran and it reported the end)."""
    records = []
    for line in said.splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            return f"a warm run wrote something the runner never writes ({line[:100]!r})"
    cells = [record for record in records if isinstance(record, dict) and "cell" in record]
    if cells and cells[0].get("ok") is not True:
        return f"a warm run cannot run a notebook's imports: {cells[0].get('error')}: {cells[0].get('message')}"
    if not cells or {"done": True} not in records:
        return f"a warm run did not finish: {said[:200]!r}"
    return None


def _converse(run: RunProcess) -> tuple[bytes, bytes]:
    """Send ``run`` the check's cell, read its reports to their end; (reports, error output). Ends the run."""
    try:
        if run.stdin is not None:
            run.stdin.write(json.dumps([check_cell()]).encode() + b"\n")
            run.stdin.close()
        said = read_all(run.stdout.fileno(), CHECK_TIMEOUT) if run.stdout is not None else b""
    except OSError:
        said = b""
    finally:
        run.kill()  # as after any run (execution.py): its end is read and the zygote goes back
    errors = read_all(run.stderr.fileno(), 0.0) if run.stderr is not None else b""
    for stream in (run.stdin, run.stdout, run.stderr):
        if stream is not None and not stream.closed:
            stream.close()
    return said, errors


def warm_problem(sandbox: Bubblewrap) -> str | None:
    """Fork one warm run of ``sandbox`` and run :func:`.preflight.check_cell` in it; what is wrong in one line, or None.

    None too where ``sandbox`` has no warm starts. A zygote that cannot start or fork says why
    (its pool's reason).
    """
    pool = sandbox.zygotes
    if pool is None:
        return None
    with tempfile.TemporaryDirectory(prefix="ndcg-warm-check-") as scratch:
        launch = sandbox.launch(Path(scratch), slot=0)
        try:
            run = launch.forker.fork(launch) if launch.forker is not None else None
            if run is None:
                return f"a warm run could not be forked: {pool.disabled or 'no cgroup for it'}"
            said, errors = _converse(run)
        finally:
            launch.end()
    problem = _verdict(said)
    if problem is not None and errors.strip():
        problem += f" ({os.fsdecode(errors.strip().splitlines()[-1])[:200]})"
    return problem
