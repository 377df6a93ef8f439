"""Task 1.2's by-hand hook: what the course's by-hand feature (salt, paper sheets, copying report) needs of it.

The course never imports this package by name: it reaches these functions through the answered
part's :attr:`~autograder.grading.AnsweredPart.by_hand` (:class:`~autograder.grading.ByHand`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ....grading import ByHand, CopiedAnswers, WorkedWay
from .answers import NAMES, read_answers
from .cells import ANSWERS_ID
from .derive import CUTOFF
from .notebook_sync import DEFAULT_SALT, POOL_FILE, published_variant, sync_by_hand
from .other_lists import NUMBERS, class_lists, other_lists
from .pool import choose_salt, list_for
from .steps import HAND_MISTAKES, TOLERANCE, every_steps

#: The paper exam's task text (``python -m autograder variants``).
WORDING = (
    "The ranked list below gives the graded relevance (0 = not relevant, 3 = highly relevant) of the documents "
    "a search engine returned, rank 1 first. Compute by hand: the ideal ranking; DCG@k with gain rel_i and "
    "discount log2(i + 1); iDCG@k; nDCG@k = DCG@k / iDCG@k. Give two decimals."
)


def pool() -> str:
    """The pool of fair lists the release publishes."""
    return POOL_FILE.read_text(encoding="ascii").strip()


def write_salt(path: Path, salt: str, keep_earlier: bool) -> list[str]:
    """Publish ``salt`` in the source notebook at ``path`` (:func:`.notebook_sync.sync_by_hand`)."""
    return sync_by_hand(path, salt, keep_earlier=keep_earlier)


def worked(rels: tuple[int, ...]) -> tuple[WorkedWay, ...]:
    """The right values of ``rels`` at the cutoff, then each common hand mistake's."""
    mistakes = {m.name: m.mistake for m in HAND_MISTAKES}
    return tuple(WorkedWay(name, mistakes.get(name, ""), s.ideal, (s.dcg, s.idcg, s.ndcg))
                 for name, s in every_steps(rels, CUTOFF).items())


def unanswered(cell: str | None) -> str | None:
    """Why a student's by-hand numbers cannot be compared (None: some number was read)."""
    if cell is None:
        return "no answer cell"
    answers = read_answers(cell)
    if any(answers.number(step) is not None for step in NUMBERS):
        return None
    return "; ".join(answers.problems.values()) or "not answered"


def copied_answers(cells: Mapping[str, str], salt: str, pool: str) -> list[CopiedAnswers]:
    """Students whose by-hand answers are another student's values and not their own (the grader's rule:
    :mod:`.other_lists`)."""
    answers = {student: read_answers(cell) for student, cell in cells.items()}
    lists = class_lists(frozenset(answers), salt, pool)
    found = []
    for student, theirs in answers.items():
        own = list(every_steps(list_for(student, salt, pool), CUTOFF).values())
        for other in other_lists(student, theirs, own, lists):
            ideal_too = theirs.ideal is not None and theirs.ideal != own[0].ideal and theirs.ideal == other.values.ideal
            named = ([NAMES["ideal"]] if ideal_too else []) + [NAMES[s] for s in other.steps]
            found.append(CopiedAnswers(student, other.source_id, tuple(named)))
    return found


BY_HAND = ByHand(
    task="Task 1.2",
    default_salt=DEFAULT_SALT,
    pool=pool,
    published=published_variant,
    write_salt=write_salt,
    variant=list_for,
    choose_salt=choose_salt,
    cutoff=CUTOFF,
    worked=worked,
    tolerance=TOLERANCE,
    wording=WORDING,
    answers_id=ANSWERS_ID,
    unanswered=unanswered,
    copied=copied_answers,
)
