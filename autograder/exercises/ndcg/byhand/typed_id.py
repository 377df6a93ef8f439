"""Whose list the submitted notebook showed: its ``STUDENT_ID``, read as data and compared with the submitter.

The notebook derives the list it shows from the id the student typed (:func:`.derive.notebook_student`),
so that a student working on a laptop, whose login is no student id, sees their own list. The
grader never believes it: it marks against the list of the id the submission is filed under. Where
the two differ (a classmate's id typed, or one mistyped) the student's answers are for another
list, so the student is told in plain words and the tutor is asked to look. Nothing runs: the cell
is read with the answer reader's bounds (:mod:`.answers`), and only a plain string counts.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .answers import _too_big

#: The name the student's id is typed into.
NAME = "STUDENT_ID"
#: A typed id is shown at most this long in a message (the rest is cut: it is the student's text).
SHOWN = 40


@dataclass(frozen=True)
class IdCheck:
    """What the student and the tutor are told about the notebook's ``STUDENT_ID``; empty: it is the submitter's."""

    #: One sentence for the student (and the tutor), in the by-hand part's first step.
    student: str | None = None
    #: One line for the report's "needs a look" and ``results.json``; None when no look is needed.
    tutor: str | None = None
    #: The other id the notebook's ``STUDENT_ID`` names (the list it showed); None: the submitter's, empty, not text.
    other: str | None = None


def _shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def typed_id(source: str) -> str | None:
    """The string the cell assigns to ``STUDENT_ID`` last, stripped ("" when it assigns none); None: not a string."""
    if _too_big(source) is not None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: str | None = ""
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == NAME):
            value = statement.value
            found = value.value.strip() if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
    return found


def check_id(submitter: str, source: str | None) -> IdCheck:
    """Compare the notebook's ``STUDENT_ID`` cell (None: the release had none) with the id it was filed under.

    Parameters
    ----------
    submitter : str
        The id the submission is filed under: the list the by-hand steps are marked against.
    source : str or None
        The submitted notebook's ``STUDENT_ID`` cell; None for a notebook of a release without it.
    """
    if source is None:
        return IdCheck()
    typed = typed_id(source)
    own = _shown(submitter)
    if typed == submitter:
        return IdCheck()
    if typed == "":
        return IdCheck(student=f"Your notebook's {NAME} was empty, so it showed no list: Task 1.2 was marked "
                               f"against the list of {own}, the id you handed it in under.")
    if typed is None:
        said = f"Your notebook's {NAME} is not written as text ({NAME} = \"your id\"), so which list it showed"
        return IdCheck(student=f"{said} is unknown: Task 1.2 was marked against the list of {own}, the id you handed "
                               "it in under.",
                       tutor=f"Task 1.2: the notebook's {NAME} is not plain text; marked against {own}'s list")
    other = _shown(typed)
    return IdCheck(
        student=f"Your notebook's {NAME} is {other}, but you handed it in as {own}: the notebook showed the list of "
                f"{other}, and Task 1.2 was marked against the list of {own}, the id you handed it in under.",
        tutor=f"Task 1.2: the notebook's {NAME} is {other}, not {own}: it showed {other}'s list; marked against "
              f"{own}'s",
        other=typed[:SHOWN],  # the student's text: bounded as in the messages
    )
