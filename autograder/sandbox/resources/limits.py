"""What a sandbox is given and what it may refuse with: its resource limits, its user ids, its error.

Its own module so that the launch (:mod:`~autograder.sandbox.isolation.launch`), the cgroups (:mod:`.cgroups`)
and the id leases
(:mod:`.uids`) all import it and none of them imports another for these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ...errors import KitError, UsageError

#: First user id used for sandboxed processes when the grader runs as root (leased per run: :mod:`.uids`).
FIRST_SANDBOX_UID = 61000


class SandboxUnavailable(KitError):
    """The requested isolation cannot be had on this machine (exit code 2: the tool cannot do its job as asked)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox.

    With cgroups (:mod:`.cgroups`) ``memory_bytes`` (shared memory and tmpfs files included),
    ``processes`` (tasks: processes and threads) and ``cpu_cores`` hold for the sandbox as a whole;
    ``memory_bytes`` (as address space), ``cpu_seconds``, ``file_bytes``, ``open_files`` and
    ``processes`` are also set per process with ``prlimit``. With bubblewrap the writable home and
    ``/tmp`` are each a tmpfs of ``scratch_bytes``.
    """

    memory_bytes: int = 2 * 1024**3
    cpu_seconds: int = 600
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256
    cpu_cores: float = 1.0
    scratch_bytes: int = 64 * 1024**2
    #: Charged seconds one submission may take in all, its runs and restarts together
    #: (:mod:`~autograder.sandbox.runs.deadline`);
    #: None: :func:`~autograder.sandbox.runs.deadline.default_budget` of the per-item timeout.
    budget_seconds: int | None = None


@dataclass(frozen=True)
class _Setting:
    """One limit a tutor may set: the :class:`Limits` field, its unit, and the values accepted."""

    field: str
    unit: str
    #: Bytes per unit (1 for counts and seconds).
    scale: int
    low: int
    high: int


#: The limits a tutor may set, by setting name. Below ``low`` not even the runner's Python starts
#: (or nothing useful runs); above ``high`` the number is a typo, not a limit.
SETTINGS: dict[str, _Setting] = {
    "memory_mb": _Setting("memory_bytes", "MiB", 1024**2, 64, 1024**2),
    "cpu_seconds": _Setting("cpu_seconds", "seconds", 1, 1, 24 * 3600),
    "processes": _Setting("processes", "processes", 1, 1, 4096),
    "scratch_mb": _Setting("scratch_bytes", "MiB", 1024**2, 1, 64 * 1024),
    "budget_seconds": _Setting("budget_seconds", "seconds", 1, 1, 24 * 3600),
}


def _in_range(name: str, number: float, setting: _Setting, *, whole: bool, shown: str) -> None:
    """A one-line refusal unless ``number`` (in the setting's unit) is in its range (and whole if ``whole``)."""
    # nan and inf fail the comparison; "2.5" processes fail is_integer
    if (whole and not number.is_integer()) or not setting.low <= number <= setting.high:
        kind = "a whole number" if whole else "a number"
        raise UsageError(f"{name} must be {kind} of {setting.unit} from {setting.low} to {setting.high}, got {shown}")


def _whole_number(name: str, value: object, setting: _Setting) -> int:
    """``value`` (a number or its text) as a whole number in the setting's range, or a one-line refusal."""
    try:
        number = float(str(value).strip())
    except ValueError:
        number = float("nan")
    _in_range(name, number, setting, whole=True, shown=repr(str(value)))
    return int(number)


def checked_limits(limits: Limits, owner: str) -> Limits:
    """``limits`` if each limit a tutor may set is in the range its setting accepts.

    The ranges are those of :data:`SETTINGS`, the ones ``grade --memory`` and the like are held to,
    so limits built in code cannot give a sandbox what the command line would refuse. Byte counts
    need not be whole MiB.

    Parameters
    ----------
    limits : Limits
        Limits built in code (``GradeOptions(limits=...)``).
    owner : str
        Where they were given (``GradeOptions.limits``), for the message.

    Returns
    -------
    Limits
        ``limits`` itself.

    Raises
    ------
    UsageError
        One line naming the field, the accepted range and the value, for a value that is not an
        integer or out of its setting's range.

    Examples
    --------
    >>> checked_limits(Limits(processes=0), "GradeOptions.limits")
    Traceback (most recent call last):
    ...
    autograder.errors.UsageError: GradeOptions.limits.processes must be a number of processes from 1 to 4096, got 0
    """
    for setting in SETTINGS.values():
        name, value = f"{owner}.{setting.field}", getattr(limits, setting.field)
        if value is None and setting.field == "budget_seconds":
            continue  # the default, from the timeout
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{name} must be a whole number, got {value!r}")
        shown = f"{value / setting.scale:g} {setting.unit}" if setting.scale > 1 else str(value)
        _in_range(name, value / setting.scale, setting, whole=False, shown=shown)
    return limits


def configured_limits(base: Limits, values: Mapping[str, object], names: Mapping[str, str]) -> Limits:
    """``base`` with the limits a tutor set, each checked.

    Parameters
    ----------
    base : Limits
        The exercise's limits: what a setting left out (or None) keeps.
    values : mapping of str to object
        Setting name (a key of :data:`SETTINGS`: ``memory_mb``, ``cpu_seconds``, ``processes``,
        ``scratch_mb``, ``budget_seconds``) to its value as given: a number, its text, or None.
    names : mapping of str to str
        Setting name to what the tutor wrote it as (``--memory``, ``SandboxedExecute.memory_mb``),
        for the message.

    Returns
    -------
    Limits

    Raises
    ------
    UsageError
        One line naming the setting, the accepted range and the value, for a value that is not a
        whole number in the range (a negative, an absurd or a fractional number, ``nan``, text).
    KeyError
        For a setting name that is not in :data:`SETTINGS` (a bug of the caller).

    Examples
    --------
    >>> configured_limits(Limits(), {"memory_mb": "512", "processes": None}, {}).memory_bytes == 512 * 1024**2
    True
    >>> configured_limits(Limits(), {"processes": -1}, {"processes": "--processes"})
    Traceback (most recent call last):
    ...
    autograder.errors.UsageError: --processes must be a whole number of processes from 1 to 4096, got '-1'
    """
    changes = {}
    for key, value in values.items():
        setting = SETTINGS[key]
        if value is not None:
            changes[setting.field] = _whole_number(names.get(key, key), value, setting) * setting.scale
    return replace(base, **changes)
