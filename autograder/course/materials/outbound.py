"""After ``release``: whether the exchange still hands students the earlier release, and what updates it.

``python -m autograder release`` (``make release``) regenerates ``release/<assignment>/`` only; what
students fetch is the copy ``nbgrader release_assignment`` put in the exchange's outbound folder, and
nbgrader refuses to replace it without ``--force`` ("Destination already exists"). A tutor who changed a
test mid-semester was told "release/ regenerated" and nothing else: the students went on fetching the
old notebook, and ``nbgrader autograde`` later said "checksum … has changed!" for everyone who handed in
the old one. This module compares the two folders file by file and says what is out of date.
"""

from __future__ import annotations

import filecmp
from dataclasses import dataclass
from pathlib import Path

from ..setup.student_config import course_settings


@dataclass(frozen=True)
class OutboundState:
    """How the exchange's copy of an assignment compares with ``release/``."""

    assignment: str
    #: The exchange's folder of the assignment (``<exchange>/<course id>/outbound/<assignment>``).
    outbound: Path
    #: Whether the exchange holds the assignment at all.
    released: bool
    #: The files of ``release/<assignment>/`` that the exchange lacks or holds in another version.
    changed: tuple[str, ...]

    def note(self) -> str:
        """What the tutor should know and do; "" when the exchange holds this release."""
        if not self.released:
            return (f"not in the exchange yet: students get {self.assignment} once you run "
                    f"`nbgrader release_assignment {self.assignment}`")
        if not self.changed:
            return ""
        return (
            f"the exchange still hands students the earlier {self.assignment} ({', '.join(self.changed)} changed): "
            f"run `nbgrader release_assignment {self.assignment} --force` to replace it. Students who fetched it "
            "before keep the old notebook until they fetch again, and `nbgrader autograde` says \"checksum … has "
            "changed!\" for the cells that changed in what they hand in: that is your change, not theirs "
            "(docs/tutor-guide.md, \"Changing a test mid-semester\")"
        )


def outbound_state(root: Path, assignment: str) -> OutboundState:
    """Compare ``release/<assignment>/`` with what the course's exchange hands students.

    Parameters
    ----------
    root : Path
        The course directory.
    assignment : str
        The assignment id.

    Returns
    -------
    OutboundState

    Raises
    ------
    CourseError
        If the course's configuration cannot be loaded or names no course id.
    """
    course_id, exchange = course_settings(root)
    outbound = Path(exchange) / course_id / "outbound" / assignment
    release = root / "release" / assignment
    if not outbound.is_dir():
        return OutboundState(assignment, outbound, released=False, changed=())
    changed = []
    for file in sorted(p for p in release.rglob("*") if p.is_file()):
        relative = file.relative_to(release)
        theirs = outbound / relative
        if not theirs.is_file() or not filecmp.cmp(file, theirs, shallow=False):
            changed.append(str(relative))
    return OutboundState(assignment, outbound, released=True, changed=tuple(changed))
