"""The course's grading settings, as ``python -m autograder grade`` reads them: ``c.SandboxedExecute.*``.

A course writes its grading settings once, in ``nbgrader_config.py``, as traitlets of the
``SandboxedExecute`` preprocessor that ``nbgrader autograde`` and the formgrader use
(``c.SandboxedExecute.timeout``, ``cpu_seconds``, ``budget_seconds``, ``max_folder_files`` …).
The batch command reads the same values here, and a command-line flag overrides one for that run:
``c.SandboxedExecute.cpu_seconds = 1200`` reaches ``make grade`` as it reaches the formgrader. Each
setting has one default, the trait's (the engine's constants). The one exception is the sandbox
mode: nbgrader's path defaults to ``required`` (a formgrader must never grade unsandboxed without
being told), the command line to ``auto`` (a warning and a weak fallback), unless the course sets it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from traitlets import TraitError

from ...course_config import course_config
from ...errors import UsageError
from ...sandbox.resources.limits import SETTINGS
from .preprocessor import SandboxedExecute

#: The command line's sandbox mode where the course sets none.
COMMAND_LINE_SANDBOX = "auto"


@dataclass(frozen=True)
class CourseGradeSettings:
    """The grading settings a course's ``nbgrader_config.py`` gives (the traits' defaults where it gives none)."""

    timeout: float
    sandbox: str
    max_notebook_mb: float
    max_folder_files: int
    max_folder_mb: float
    #: Whether by-hand answers that fit another student's list earn follow-through (default off).
    credit_copied_follow_through: bool = False
    #: Sandbox limit name (:data:`autograder.sandbox.resources.limits.SETTINGS`) to its value; None: the exercise's.
    limits: dict[str, int | None] = field(default_factory=dict)


def course_grade_settings(root: Path | None) -> CourseGradeSettings:
    """The ``c.SandboxedExecute`` settings of the course at ``root`` (outside a course: the defaults).

    Raises
    ------
    CourseError
        When the course's ``nbgrader_config.py`` does not load.
    UsageError
        For a setting of the wrong type (one line naming it; nbgrader would refuse it too).
    """
    config = course_config(root)
    try:
        step = SandboxedExecute(config=config)
    except TraitError as error:
        raise UsageError(f"nbgrader_config.py: {error}") from None
    sandbox = step.sandbox if "sandbox" in config.get("SandboxedExecute", {}) else COMMAND_LINE_SANDBOX
    return CourseGradeSettings(
        timeout=step.timeout, sandbox=sandbox, max_notebook_mb=step.max_notebook_mb,
        max_folder_files=step.max_folder_files, max_folder_mb=step.max_folder_mb,
        credit_copied_follow_through=step.credit_copied_follow_through,
        limits={name: getattr(step, name) for name in SETTINGS},
    )
