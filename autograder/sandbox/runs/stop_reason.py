"""Why one sandboxed process stopped: each way a run can end, named."""

from __future__ import annotations

from enum import StrEnum


class StopReason(StrEnum):
    """How one run of the runner ended, as the grader judged it."""

    #: The runner reported every item it was given and said it was done.
    DONE = "done"
    #: The sandbox or its Python did not start (no report at all, or not in time).
    STARTUP = "startup"
    #: The runner wrote something that is not the protocol: nothing more it says can be trusted.
    PROTOCOL = "protocol"
    #: The item in progress used up its time.
    TIMEOUT = "timeout"
    #: The process died during an item (``os._exit``, a signal, a crash).
    CRASHED = "crashed"
    #: The submission's time budget ran out during an item.
    BUDGET = "budget"
    #: The machine, not the submission, used up the time: no outcome may be made up.
    OVERLOADED = "overloaded"
