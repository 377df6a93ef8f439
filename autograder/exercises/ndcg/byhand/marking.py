"""Grade the four by-hand steps with follow-through, name the hand mistakes, work the list through.

Each step is one nbgrader grade cell, all or nothing, so that nbgrader's own autograde records the
same points as the batch command (an error output scores 0, anything else full points):

- the ideal ranking: the list sorted best first (the whole list, or its top k);
- DCG@k and iDCG@k: within :data:`.steps.TOLERANCE` of the value from ``ndcg_ref``;
- nDCG@k: within the tolerance of the right value, *or* of the student's own DCG / iDCG where
  those are the student's work (follow-through, :func:`follows_through`: a wrong DCG costs the DCG
  step only, a division of made-up numbers earns nothing).

A wrong answer that is what a catalogue mistake gives on this list names that mistake. Answers
that fit another student's list and not the student's own (:mod:`.other_lists`) earn no
follow-through, unless the course credits it: the nDCG@k step's message says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ....grading import Diagnosis, Finding, Status, StudentResult, TestResult
from .answers import NAMES, Answers
from .other_lists import ClassLists, other_lists
from .steps import HAND_MISTAKES, HandMistake, Steps, answer_matches, every_steps


@dataclass(frozen=True)
class Step:
    """One graded step: its nbgrader grade cell and its points."""

    grade_id: str
    step: str
    description: str
    points: float


#: The by-hand part's grade cells, in the notebook's order, with their points (5 in all).
STEPS: tuple[Step, ...] = (
    Step("byhand_ideal", "ideal", "the ideal ranking of your list", 1.0),
    Step("byhand_dcg", "dcg", "DCG@k of your list", 1.5),
    Step("byhand_idcg", "idcg", "iDCG@k of your list", 1.5),
    Step("byhand_ndcg", "ndcg", "nDCG@k of your list (your own DCG / iDCG counts)", 1.0),
)
MAX_SCORE = sum(step.points for step in STEPS)



def _ideal_right(answer: tuple[float, ...] | None, right: tuple[float, ...], k: int) -> bool:
    return answer is not None and answer in (right, right[:k])


def follows_through(answers: Answers, ways: Mapping[str, Steps]) -> bool:
    """Whether the student's nDCG@k is their own DCG@k / iDCG@k, of values that are their work.

    Their values count when both are positive, DCG@k lies below iDCG@k by more than the tolerance
    (x / x = 1 divides nothing, and no list has an nDCG above 1), and at least one of the two is a
    value some way of working *their* list out gives (``ways``: the right one or a hand mistake's,
    :func:`.steps.every_steps`): ``DCG = IDCG = NDCG = 1``, ``1 / 2 = 0.5`` or a classmate's
    numbers divided earn nothing; a DCG@k from a hand mistake, divided correctly, keeps the step.
    """
    dcg, idcg, ndcg = answers.dcg, answers.idcg, answers.ndcg
    if dcg is None or idcg is None or ndcg is None or not 0 < dcg < idcg or answer_matches(dcg, idcg):
        return False
    worked = any(answer_matches(dcg, way.dcg) or answer_matches(idcg, way.idcg) for way in ways.values())
    return worked and answer_matches(ndcg, dcg / idcg)


def step_passes(step: str, answers: Answers, ways: Mapping[str, Steps], k: int, *, through: bool = True) -> bool:
    """Whether ``step``'s answer earns its points (nDCG also by :func:`follows_through`, unless not ``through``).

    ``ways`` is :func:`.steps.every_steps` of the student's list: the right values under "right".
    """
    right = ways["right"]
    if step == "ideal":
        return _ideal_right(answers.ideal, right.ideal, k)
    if answer_matches(answers.number(step), right.number(step)):
        return True
    return step == "ndcg" and through and follows_through(answers, ways)


def _explains(mistake: HandMistake, theirs: Steps, right: Steps, step: str, answers: Answers, k: int) -> bool:
    """Whether ``mistake`` explains the student's wrong answer to ``step`` (a step it changes, answered as it gives)."""
    if step == "ideal":
        return answers.ideal is not None and theirs.ideal[:k] != right.ideal[:k] and answers.ideal in (
            theirs.ideal, theirs.ideal[:k])
    value = theirs.number(step)
    if not math.isclose(value, right.number(step), abs_tol=1e-9) and answer_matches(answers.number(step), value):
        return True
    # an inverted ratio, on the student's own DCG and iDCG (follow-through); x / x = 1 inverts nothing
    dcg, idcg = answers.dcg, answers.idcg
    return (step == "ndcg" and mistake.ratio.name == "inverted" and bool(dcg) and idcg is not None
            and not answer_matches(dcg, idcg) and answer_matches(answers.ndcg, idcg / (dcg or 1.0)))


def named_mistakes(answers: Answers, rels: tuple[int, ...], k: int) -> list[tuple[str, str, str]]:
    """``(catalogue id, mistake name, step)`` for each wrong answer a hand mistake explains."""
    steps = every_steps(rels, k)
    right = steps["right"]
    wrong = [step for step in ("ideal", "dcg", "idcg", "ndcg") if not step_passes(step, answers, steps, k)]
    return [
        (mistake.mistake, mistake.name, step)
        for mistake in HAND_MISTAKES for step in wrong
        if _explains(mistake, steps[mistake.name], right, step, answers, k)
    ]


def worked_through(rels: tuple[int, ...], k: int) -> str:
    """The student's list worked through, one line per rank, as the feedback shows it."""
    right = every_steps(rels, k)["right"]
    lines = [f"your list {list(rels)}, k = {k}; ideal ranking {[int(g) for g in right.ideal]}"]
    for rank in range(1, min(k, len(rels)) + 1):
        discount = math.log2(rank + 1)
        lines.append(
            f"rank {rank}: {rels[rank - 1]} / log2({rank + 1}) = {rels[rank - 1] / discount:.4f}; "
            f"ideal {right.ideal[rank - 1]:g} / log2({rank + 1}) = {right.ideal[rank - 1] / discount:.4f}"
        )
    lines.append(f"DCG@{k} = {right.dcg:.4f}, iDCG@{k} = {right.idcg:.4f}, nDCG@{k} = {right.dcg:.4f} / "
                 f"{right.idcg:.4f} = {right.ndcg:.4f}")
    return "\n".join(lines)


def _message(step: Step, answers: Answers, passed: bool, right: Steps, names: list[tuple[str, str, str]]) -> str:
    written = answers.ideal if step.step == "ideal" else answers.number(step.step)
    if step.step in answers.problems:
        return f"{answers.problems[step.step]}: no points for {step.description}"
    if written is None and "cell" in answers.problems:  # the whole cell refused: say why at every step
        return f"{answers.problems['cell']}: no points for {step.description}"
    if written is None:
        return f"{NAMES[step.step]} is not answered"
    shown = list(written) if isinstance(written, tuple) else f"{written:g}"
    if passed and step.step == "ndcg" and not answer_matches(answers.ndcg, right.ndcg):
        # follow-through: the point is for dividing their own values, and the number is not their list's nDCG
        return (f"{NAMES['ndcg']} = {shown}: consistent with your own DCG and iDCG ({answers.dcg:g} / "
                f"{answers.idcg:g}); the value for your list is {right.ndcg:.4f}")
    if passed:
        return f"{NAMES[step.step]} = {shown}: right"
    because = [name for _, name, where in names if where == step.step]
    cause = f" (this is what '{because[0]}' gives)" if because else ""
    if step.step == "ndcg" and answers.dcg and answers.idcg is not None and \
            answer_matches(answers.ndcg, answers.dcg / answers.idcg if answers.idcg else math.inf):
        cause += (f": {NAMES['dcg']} / {NAMES['idcg']} counts only when {NAMES['dcg']} is below {NAMES['idcg']} "
                  "and one of them is worked out from your list")
    # the tutor judging partial credit on the grading page needs the key there, not in another command's output
    value = (f"[{', '.join(f'{grade:g}' for grade in right.ideal)}]" if step.step == "ideal"
             else f"{right.number(step.step):.4f}")
    return f"{NAMES[step.step]} = {shown} is not {step.description}{cause}; the value for your list is {value}"


#: Told at the nDCG@k step of answers that fit another student's list (never naming that student).
OTHER_LIST = ("your answers fit the list of another student of the course, not yours: the follow-through point "
              "is not given; ask your tutor")


def mark(student_id: str, answers: Answers, rels: tuple[int, ...], k: int, *, others: ClassLists | None = None,
         credit_copied: bool = False) -> StudentResult:
    """Grade ``answers`` against ``student_id``'s own list ``rels`` at cut-off ``k``.

    ``others`` are the course's lists: answers that fit one of them and not ``rels``
    (:func:`.other_lists.other_lists`) earn no follow-through unless ``credit_copied``.

    Returns
    -------
    StudentResult
        One test result per step (:data:`STEPS`), the named mistakes as findings, the list worked
        through in :attr:`StudentResult.message`, and :attr:`StudentResult.copied_from`.
    """
    ways = every_steps(rels, k)
    right = ways["right"]
    names = named_mistakes(answers, rels, k)
    fits = other_lists(student_id, answers, list(ways.values()), others) if others is not None else []
    through = credit_copied or not fits
    tests = []
    for step in STEPS:
        passed = step_passes(step.step, answers, ways, k, through=through)
        message = _message(step, answers, passed, right, names)
        if not through and step.step == "ndcg" and not passed and step_passes("ndcg", answers, ways, k):
            message = f"{NAMES['ndcg']} = {answers.ndcg:g}: {OTHER_LIST}"
        tests.append(TestResult(
            name=step.grade_id, description=step.description, points=step.points if passed else 0.0,
            max_points=step.points, passed=passed, message=message,
            visible=True, cases_passed=int(passed), cases=1,
        ))
    diagnosis = Diagnosis()
    for mistake_id, name, where in names:
        diagnosis.add(Finding(mistake_id, NAMES[where], name, f"on your list {list(rels)} at k = {k}"))
    score = sum(test.points for test in tests)
    return StudentResult(
        student_id=student_id, status=Status.GRADED, score=score, max_score=MAX_SCORE,
        message=worked_through(rels, k), tests=tests, diagnosis=diagnosis,
        copied_from=fits[0].source_id if fits else None,
    )
