"""The copying report: by-hand answers that are another student's values, and similar code pairs.

Evidence, not a verdict: a by-hand answer that is another student's variant's value and not the
student's own is something no similarity score shows (the lists differ, so honest answers differ);
the code table is a similarity measure (winnowing fingerprints) that a tutor reads beside the code.
The records come from :mod:`.copied`; this module only writes the page (autoescaping on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomic
from ..grading import CopiedAnswers
from ..output.templating import render

__all__ = ["CodePair", "CopiedAnswers", "NotCompared", "write_copying_report"]


@dataclass(frozen=True)
class NotCompared:
    """A student the report could not compare, in one part or in everything, and why."""

    student_id: str
    #: "everything" (the notebook could not be read), "Task 1.2 answers" (the by-hand part's name), "code" or
    #: "compiled code" (no record of what the code compiled when graded, or only part of it: see
    #: :func:`~.copied.compiled_texts`).
    part: str
    #: One line, e.g. "ndcg.ipynb is not valid JSON (...)" or "no answer cell".
    reason: str


@dataclass(frozen=True)
class CodePair:
    """Two students' code cells and how much of each is found in the other (0..1)."""

    first: str
    second: str
    similarity_first: float
    similarity_second: float

    @property
    def similarity(self) -> float:
        """The larger of the two shares: what a tutor sorts by."""
        return max(self.similarity_first, self.similarity_second)


def write_copying_report(path: Path, answers: list[CopiedAnswers], pairs: list[CodePair], *, threshold: float,
                         students: int, not_compared: Sequence[NotCompared] = (), task: str | None = None) -> Path:
    """Write the copying report to ``path`` and return it.

    Parameters
    ----------
    path : Path
        The HTML file to write.
    answers : list of CopiedAnswers
        Every student with answers that are another's values.
    pairs : list of CodePair
        The code pairs at or above ``threshold``, most similar first.
    threshold : float
        The similarity from which a pair is listed (stated on the page).
    students : int
        How many student folders there are.
    not_compared : list of NotCompared
        Every student left out of a comparison, with the part and the reason.
    task : str or None
        The by-hand part's name (e.g. "Task 1.2"); None: the exercise has none, and the page has no section for it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    everything = sum(1 for row in not_compared if row.part == "everything")
    write_atomic(path, render("copying.html.j2", answers=answers, pairs=pairs, threshold=threshold, students=students,
                              compared=students - everything, not_compared=not_compared, task=task))
    return path
