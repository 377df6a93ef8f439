"""The by-hand part as the exam notebook's :class:`~autograder.grading.AnsweredPart`: Task 1.2 before the code.

Nothing of it runs, in the sandbox or elsewhere: the answer cell is read as numbers
(:mod:`.answers`) and marked (:mod:`.marking`) against the student's own list, derived again from
the id the submission is filed under and the salt and pool of the *release's* derivation cell
(whatever the submitted notebook's copy of that cell says). The engine adds the four steps to the
code part's result, so both grading paths give the same points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ....grading import AnsweredPart, Classmates, Status, StudentResult, TestGroup, TestResult
from .answers import read_answers
from .cells import ANSWERS_ID, DERIVATION_ID, STUDENT_CELL_ID, earlier_salts, published
from .derive import CUTOFF
from .hook import BY_HAND
from .marking import MAX_SCORE, STEPS, mark
from .notebook_sync import sync_by_hand
from .other_lists import class_lists
from .pool import list_for
from .typed_id import check_id

#: Marked alone (a test, an example): no other student's list to check the answers against.
NO_CLASSMATES = Classmates()


def _unmarked(student_id: str, reason: str) -> StudentResult:
    """Every step 0 points, with ``reason``: the release publishes no list to mark against."""
    return StudentResult(student_id=student_id, status=Status.GRADED, score=0.0, max_score=MAX_SCORE, tests=[
        TestResult(name=step.grade_id, description=step.description, points=0.0, max_points=step.points,
                   passed=False, message=reason, visible=True, cases_passed=0, cases=1)
        for step in STEPS])


def mark_answers(student_id: str, cells: Mapping[str, str], release: Mapping[str, str],
                 classmates: Classmates = NO_CLASSMATES) -> StudentResult:
    """The four steps of ``student_id``'s answer cell, against the list the release derives for them.

    Parameters
    ----------
    student_id : str
        The id the submission is filed under (``submitted/<student_id>/``).
    cells : mapping of str to str
        The submitted notebook's cells of the part, by grade id (a missing answer cell: nothing answered).
    release : mapping of str to str
        The release's derivation cell by grade id: its salt and pool.
    classmates : Classmates
        The course's students: answers that fit another's list (and not the student's own) name
        that student in :attr:`StudentResult.copied_from` and earn no follow-through unless the
        course credits it.

    Returns
    -------
    StudentResult
        One test per step; the last one's message ends with the student's list worked through, the
        first one's starts with what the notebook's ``STUDENT_ID`` showed when it is not ``student_id``
        (and the result asks the tutor to look when it is another id).
    """
    try:
        salt, pool = published(release[DERIVATION_ID])
    except KeyError:
        return _unmarked(student_id, f"the release has no cell {DERIVATION_ID}: regenerate it (make release)")
    except (ValueError, SyntaxError) as error:
        return _unmarked(student_id, f"the release's derivation cell is damaged ({error}): regenerate it")
    handed_in = _handed_in_salt(cells.get(DERIVATION_ID), earlier_salts(release[DERIVATION_ID]))
    salt = handed_in or salt  # a notebook fetched before the salt changed: the list it showed
    rels = list_for(student_id, salt, pool)
    try:
        result = mark(student_id, read_answers(cells.get(ANSWERS_ID, "")), rels, CUTOFF,
                      others=class_lists(classmates.ids, salt, pool), credit_copied=classmates.credit_copied)
    except Exception as error:  # the reader is bounded and total; a bug here must cost the by-hand steps only
        return _unmarked(student_id, f"your answers could not be marked ({type(error).__name__}): ask your tutor")
    last = result.tests[-1]
    worked = " | ".join((result.message or "").splitlines())
    result.tests[-1] = replace(last, message=f"{last.message}. Your list worked through: {worked}")
    if handed_in:
        first = result.tests[0]
        result.tests[0] = replace(first, message=f"Your notebook came from a release before the course changed "
                                  f"Task 1.2's lists: it was marked against the list it showed you. {first.message}")
    check = check_id(student_id, cells.get(STUDENT_CELL_ID))
    if check.student is not None:
        first = result.tests[0]
        result.tests[0] = replace(first, message=f"{check.student} {first.message}")
    if check.tutor is not None:
        result.needs_a_look.append(check.tutor)
        result.shown_list_of = check.other
    return result


def _handed_in_salt(derivation: str | None, earlier: tuple[str, ...]) -> str | None:
    """The salt of the submitted notebook's derivation cell where it is one of the release's earlier salts.

    Read as data, never run. Any other salt (the current one, an edit, a damaged cell) gives None: the
    release's own salt marks the answers, as before the salt ever changed.
    """
    if not earlier or not derivation:
        return None
    try:
        salt, _ = published(derivation)
    except (ValueError, SyntaxError, RecursionError, MemoryError):  # the student's bytes: any shape
        return None
    return salt if salt in earlier else None


ANSWERED = AnsweredPart(
    groups=tuple(TestGroup(step.grade_id, step.step, step.description, step.points, True, ()) for step in STEPS),
    cell_ids=frozenset({STUDENT_CELL_ID, DERIVATION_ID, ANSWERS_ID, *(step.grade_id for step in STEPS)}),
    published_ids=frozenset({DERIVATION_ID}),
    mark=mark_answers,
    # its cells in the source notebook, written by `sync` and `release` before the test cells
    sync=sync_by_hand,
    # its salt, lists, paper sheets and copied answers, for the course's by-hand feature
    by_hand=BY_HAND,
)
