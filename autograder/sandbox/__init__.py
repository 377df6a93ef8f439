"""Where student code runs: the sandbox, the runner inside it, and the driver of one submission's runs.

This package is the security boundary. It imports only the standard library and the kit's error
classes (a test pins that), knows nothing of exercises, expected values or points, and hands the engine typed records
(:mod:`.runs.protocol`) built from what the untrusted runner reported.
"""

from .isolation.bubblewrap import Bubblewrap
from .isolation.choice import RUNS_AS_ROOT_WARNING, WEAK_ISOLATION_WARNING, choose_sandbox
from .isolation.launch import RUNNER, Launch, Sandbox
from .isolation.rlimits import ResourceLimitsOnly
from .resources.cgroups import Cgroups, CgroupsUnavailable
from .resources.limits import Limits, SandboxUnavailable, checked_limits
from .runs.deadline import Budget, MachineOverloaded
from .runs.execution import CallOrder, run_submission
from .runs.progress import RunOutcome
from .runs.protocol import NOT_RUN_CALL, RAN, CallOutcome, CallRecord, CellOutcome, CellRecord

__all__ = [
    "NOT_RUN_CALL",
    "RAN",
    "RUNNER",
    "RUNS_AS_ROOT_WARNING",
    "WEAK_ISOLATION_WARNING",
    "Bubblewrap",
    "Budget",
    "CallOrder",
    "CallOutcome",
    "CallRecord",
    "CellOutcome",
    "CellRecord",
    "Cgroups",
    "CgroupsUnavailable",
    "Launch",
    "Limits",
    "MachineOverloaded",
    "ResourceLimitsOnly",
    "RunOutcome",
    "Sandbox",
    "SandboxUnavailable",
    "checked_limits",
    "choose_sandbox",
    "run_submission",
]
