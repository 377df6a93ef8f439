"""Whose list a student's by-hand answers fit: their own, or another student's of the course.

A student whose numbers no single way of working out their own list gives (right, or one hand
mistake) and whose answers are, in two or more of DCG@k, iDCG@k and nDCG@k, the values of
*another* student's list, DCG@k among them, fits that student's list (iDCG@k depends only on the
grades, not their order, so many lists share it; one matching number can be chance, two are not).
The grader withholds follow-through for such answers (:mod:`.marking`) and the copying report lists
them (:mod:`autograder.byhand.copied`): one rule, here.

The class's right values are computed once per class and process (:func:`class_lists`) and looked
up by DCG@k (a sorted array, :mod:`bisect`), so checking every student of a class of 1,000 costs
milliseconds, not a million comparisons.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .answers import Answers
from .derive import CUTOFF
from .pool import list_for
from .steps import TOLERANCE, Steps, answer_matches, right_steps

#: How many numbers of another student's list make the evidence (one can be chance).
MIN_STEPS = 2
NUMBERS = ("dcg", "idcg", "ndcg")


@dataclass(frozen=True)
class OtherList:
    """Another student whose list the answers fit, and which of the numbers fit it and not the student's own."""

    source_id: str
    #: ``"dcg"``, ``"idcg"``, ``"ndcg"``: the numbers that are that student's values, in step order.
    steps: tuple[str, ...]
    #: That student's right values.
    values: Steps


class ClassLists:
    """Every student's right values at :data:`.derive.CUTOFF`, looked up by DCG@k.

    Parameters
    ----------
    ids : iterable of str
        The course's students (its roster and every submission's id).
    salt, pool : str
        What the release derives each list from.
    """

    def __init__(self, ids: Iterable[str], salt: str, pool: str) -> None:
        self.right = {student: right_steps(list_for(student, salt, pool), CUTOFF) for student in sorted(set(ids))}
        ordered = sorted((values.dcg, student) for student, values in self.right.items())
        self._dcgs = [dcg for dcg, _ in ordered]
        self._ids = [student for _, student in ordered]

    def with_dcg(self, dcg: float) -> list[str]:
        """The students whose DCG@k an answer ``dcg`` counts as (:func:`.steps.answer_matches`), by id."""
        low = bisect.bisect_left(self._dcgs, dcg - 2 * TOLERANCE)
        high = bisect.bisect_right(self._dcgs, dcg + 2 * TOLERANCE)
        return sorted(s for s in self._ids[low:high] if answer_matches(dcg, self.right[s].dcg))


@functools.lru_cache(maxsize=4)
def class_lists(ids: frozenset[str], salt: str, pool: str) -> ClassLists:
    """:class:`ClassLists` of ``ids``, built once per class and process (every student is checked against it)."""
    return ClassLists(ids, salt, pool)


def other_lists(student: str, answers: Answers, own: Sequence[Steps], lists: ClassLists) -> list[OtherList]:
    """The other students whose lists ``answers`` fit and the student's own does not (see the module).

    Parameters
    ----------
    student : str
        Whose answers they are (never listed as the other).
    answers : Answers
        Their by-hand answers.
    own : sequence of Steps
        Every way of working out the student's own list (:func:`.steps.every_steps`), the right one first.
    lists : ClassLists
        The class's lists.
    """
    answered = [s for s in NUMBERS if answers.number(s) is not None]
    # one way of working their own list out (right, or one common mistake) gives all their numbers
    if not answered or any(all(answer_matches(answers.number(s), way.number(s)) for s in answered) for way in own):
        return []
    found = []
    for other in lists.with_dcg(answers.dcg) if answers.dcg is not None else ():
        if other == student:
            continue
        values = lists.right[other]
        steps = [s for s in answered if answer_matches(answers.number(s), values.number(s))
                 and not answer_matches(answers.number(s), own[0].number(s))]
        # DCG@k depends on the order of the list, iDCG@k only on its grades (shared by many lists)
        if "dcg" in steps and len(steps) >= MIN_STEPS:
            found.append(OtherList(other, tuple(steps), values))
    return found
