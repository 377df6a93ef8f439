"""The exercise's answered part (e.g. Task 1.2 by hand): marked from the notebook's cells as data, nothing run.

Both grading paths add it to the code part's result here (:func:`with_answers`); a saved result is
reused only while its answers fit the same classmate's variant as in the run's class
(:func:`answers_current`), since the class may have grown since it was saved.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import StudentResult
from ..reading.notebook import NotebookFile, SubmissionProblem, cell_sources
from .exercise import AnsweredPart, Classmates


def _marked(student_id: str, file: NotebookFile, part: AnsweredPart, published: Mapping[str, str],
            classmates: Classmates) -> StudentResult | None:
    """The part's result for ``file`` (None: the file is no notebook, so it has no answers)."""
    try:
        cells = cell_sources(file, part.cell_ids)
    except SubmissionProblem:
        return None
    return part.mark(student_id, cells, published, classmates)


def with_answers(result: StudentResult, file: NotebookFile, part: AnsweredPart | None,
                 published: Mapping[str, str], classmates: Classmates) -> StudentResult:
    """``result`` with the exercise's answered ``part``: its steps first, their points, their findings.

    Nothing of that part runs: its answers are read from ``file`` as data and marked against the
    release's ``published`` cells and the course's ``classmates``. A file that is no notebook has
    no answers (its result says why).
    """
    marked = None if part is None else _marked(result.student_id, file, part, published, classmates)
    if marked is None:
        return result
    result.tests = marked.tests + result.tests
    result.score += marked.score
    result.copied_from = marked.copied_from
    result.needs_a_look.extend(marked.needs_a_look)
    result.shown_list_of = marked.shown_list_of
    # the same mistake made by hand and in code is told at both places
    result.diagnosis.findings.extend(marked.diagnosis.findings)
    return result


def answers_current(saved: StudentResult, file: NotebookFile, part: AnsweredPart | None,
                    published: Mapping[str, str], classmates: Classmates) -> bool:
    """Whether a saved result's answered part fits the same classmate's variant as it does in ``classmates``.

    Marking the answers runs nothing (milliseconds): a saved result is reused only when its answers
    fit the same other student as now (a classmate whose variant they fit may have joined since).
    """
    marked = None if part is None else _marked(saved.student_id, file, part, published, classmates)
    return marked is None or marked.copied_from == saved.copied_from
