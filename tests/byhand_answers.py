"""Shared by the by-hand tests: what a student writes who works a list out by hand, and what each mistake costs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat

from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID, STUDENT_CELL_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant
from autograder.exercises.ndcg.byhand.steps import TOLERANCE, Steps, every_steps, right_steps

#: The by-hand part's points: what a notebook whose answer cell is left as released scores less.
BY_HAND_POINTS = MAX_SCORE

#: The steps each mistake makes wrong, from what the mistake is (nDCG follows through from the
#: student's own DCG and iDCG, so only "ratio inverted" loses it, and "ideal not sorted", whose
#: iDCG = DCG gives the trivial nDCG 1 = DCG / DCG, which no follow-through credits).
LOST = {
    "natural log": {"byhand_dcg", "byhand_idcg"},
    "log10": {"byhand_dcg", "byhand_idcg"},
    "gain 2^rel - 1": {"byhand_dcg", "byhand_idcg"},
    "Järvelin–Kekäläinen discount": {"byhand_dcg", "byhand_idcg"},
    "ideal not sorted": {"byhand_ideal", "byhand_idcg", "byhand_ndcg"},
    "ideal from the top k only": {"byhand_ideal", "byhand_idcg"},
    "ideal not cut at k": {"byhand_idcg"},
    "ratio inverted": {"byhand_ndcg"},
}

def copier_of(source: str, salt: str, pool: str) -> str:
    """An id whose list has ``source``'s grades (its iDCG@k) in another order (DCG@k and nDCG@k apart).

    Its student, handing in ``source``'s right answers, has the ideal ranking and iDCG@k right and
    DCG@k wrong, and a nDCG@k that is their own DCG / iDCG: follow-through would credit a copy.
    """
    theirs = right_steps(student_list(source, salt, pool), CUTOFF)
    for n in range(5000):
        mine = right_steps(student_list(f"cop{n}", salt, pool), CUTOFF)
        if abs(mine.idcg - theirs.idcg) < 1e-9 and min(abs(mine.dcg - theirs.dcg),
                                                       abs(mine.ndcg - theirs.ndcg)) > 2 * TOLERANCE:
            return f"cop{n}"
    raise AssertionError(f"no id of 5000 shares {source}'s grades: the pool changed shape")


def stranger_of(student: str, salt: str, pool: str, classmates: Iterable[str] = ()) -> str:
    """An id whose right answers earn nothing on ``student``'s list: no step, no follow-through.

    Its ideal ranking is not ``student``'s, and its DCG@k and iDCG@k are no value that any way of
    working ``student``'s list out gives (so they are not ``student``'s work), its nDCG@k not the right one.
    Its DCG@k is none of ``classmates``' either: the answers fit no list of the course (no copy).
    """
    ways = every_steps(student_list(student, salt, pool), CUTOFF)
    right = ways["right"]
    taken = [right_steps(student_list(other, salt, pool), CUTOFF).dcg for other in classmates]

    def apart(value: float, others: list[float]) -> bool:
        return all(abs(value - other) > 2 * TOLERANCE for other in others)

    for n in range(5000):
        theirs = right_steps(student_list(f"s{n}", salt, pool), CUTOFF)
        if (theirs.ideal not in (right.ideal, right.ideal[:CUTOFF])
                and apart(theirs.dcg, [w.dcg for w in ways.values()] + [w.idcg for w in ways.values()] + taken)
                and apart(theirs.idcg, [w.dcg for w in ways.values()] + [w.idcg for w in ways.values()])
                and apart(theirs.ndcg, [right.ndcg])):
            return f"s{n}"
    raise AssertionError(f"no id of 5000 has answers that earn nothing on {student}'s list")


def answer_cell(steps: Steps, decimals: int = 2) -> str:
    """What a student writes who worked ``steps`` out by hand and rounded to ``decimals``."""
    ideal = [int(g) for g in steps.ideal]
    return (f"IDEAL_RANKING = {ideal}\nDCG_AT_K = {steps.dcg:.{decimals}f}\nIDCG_AT_K = {steps.idcg:.{decimals}f}\n"
            f"NDCG_AT_K = {round(steps.dcg, decimals)} / {round(steps.idcg, decimals)}"
            if steps.ndcg == steps.dcg / steps.idcg else
            f"IDEAL_RANKING = {ideal}\nDCG_AT_K = {steps.dcg:.{decimals}f}\nIDCG_AT_K = {steps.idcg:.{decimals}f}\n"
            f"NDCG_AT_K = {steps.ndcg:.{decimals}f}")


def own_answers(notebook: nbformat.NotebookNode, student: str, way: str = "right") -> str:
    """The answer cell ``student`` writes who works their own list (from ``notebook``'s derivation cell) ``way``."""
    salt, pool = published_variant(notebook)
    return answer_cell(every_steps(student_list(student, salt, pool), CUTOFF)[way])


def answer_by_hand(notebook: nbformat.NotebookNode, student: str, way: str | None = "right",
                   source: str | None = None, typed: str | None = None) -> nbformat.NotebookNode:
    """``notebook`` with its answer cell filled as ``student`` works their list ``way`` (or with ``source``).

    The student types their id (``typed``, default ``student``) into the ``STUDENT_ID`` cell first.
    """
    if way is None and source is None:
        return notebook
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id == STUDENT_CELL_ID:
            cell.source = type_id(cell.source, student if typed is None else typed)
        if grade_id == ANSWERS_ID:
            cell.source = source if source is not None else own_answers(notebook, student, way or "right")
    return notebook


def type_id(source: str, student: str) -> str:
    """The ``STUDENT_ID`` cell's ``source`` with ``student`` typed in, as the student does."""
    return "\n".join(line for line in source.splitlines() if line.startswith("#")) + f"\nSTUDENT_ID = {student!r}\n"


def submit_by_hand(path: Path, student: str, way: str | None = "right", source: str | None = None) -> Path:
    """Fill the answer cell of the notebook at ``path`` in place (see :func:`answer_by_hand`)."""
    nbformat.write(answer_by_hand(nbformat.read(path, as_version=4), student, way, source), path)
    return path


def gradebook_scores(database: Path, course_id: str, assignment: str, grade_ids) -> dict[str, dict[str, object]]:
    """Per student: each of ``grade_ids``' score and the total, read with nbgrader's own Gradebook API."""
    from nbgrader.api import Gradebook

    found: dict[str, dict[str, object]] = {}
    with Gradebook(f"sqlite:///{database}", course_id=course_id) as gradebook:
        for submission in gradebook.assignment_submissions(assignment):
            student = submission.student.id
            found[student] = {grade_id: gradebook.find_grade(grade_id, "ndcg", assignment, student).score
                              for grade_id in grade_ids}
            found[student]["total"] = submission.score
            found[student]["timestamp"] = submission.timestamp
            found[student]["penalty"] = submission.late_submission_penalty or 0.0
            found[student]["needs manual grade"] = submission.needs_manual_grade
    return found
