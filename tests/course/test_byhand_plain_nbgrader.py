"""Task 1.2 under plain nbgrader: its step cells check the values, so wrong numbers lose their points there too.

A course that autogrades with nbgrader's own Execute (no sandboxed preprocessor) runs the step
cells' hidden lines in the student's kernel: each derives the student's list again from the id the
submission is filed under and the salt the notebook publishes, computes the step with the course's
definition and accepts the notebook's tolerance (nDCG also as the student's own DCG / iDCG). The
points each student should get come from the kit's marking against ``ndcg_ref``'s values, never
from numbers written here.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from byhand_answers import LOST, answer_by_hand, gradebook_scores, own_answers

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.answers import read_answers
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS, step_passes
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant
from autograder.exercises.ndcg.byhand.steps import every_steps

from grading_run import add_student

pytestmark = pytest.mark.slow

COURSE_ID = "ir-ranking-evaluation"  # the course's c.CourseDirectory.course_id
#: Each student's way of working their own list out by hand (None: the answer cell as released).
WAYS = {"ada": "right", "bob": "natural log", "cyd": "ratio inverted", "dee": "ideal not cut at k",
        "gus": "gain 2^rel - 1", "zed": None}
#: A dcg whose cell fails when it runs: the code part errors, the by-hand answers are right.
BROKEN_DCG = "import math\n\nraise RuntimeError('an unfinished cell')\n\n\ndef dcg(rels, k):\n    return 0.0"


def _answer_cell(notebook: nbformat.NotebookNode) -> str:
    return next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == ANSWERS_ID)


def _write(course, student: str, notebook: nbformat.NotebookNode, source: str | None) -> str:
    """Answer ``student``'s submitted notebook with ``source`` (None: as released); return the answer cell."""
    path = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
    answered = answer_by_hand(notebook, student, None, source)
    nbformat.write(answered, path)
    return _answer_cell(answered)


@pytest.fixture(scope="module")
def plain(course, tmp_path_factory):
    """The course (nbgrader's own Execute) after ``nbgrader autograde`` of the students' by-hand answers."""
    root = shutil.copytree(course, tmp_path_factory.mktemp("byhand-plain") / "course")
    release = nbformat.read(root / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    salt, pool = published_variant(release)
    answers = {}
    for student, way in WAYS.items():
        path = add_student(root, student, by_hand=None)
        source = own_answers(release, student, way) if way else None
        answers[student] = _write(root, student, nbformat.read(path, as_version=4), source)
    # hal hands in ada's answers; fay answers right, but her code stops with an error
    path = add_student(root, "hal", by_hand=None)
    answers["hal"] = _write(root, "hal", nbformat.read(path, as_version=4), own_answers(release, "ada"))
    path = add_student(root, "fay", dcg=BROKEN_DCG, by_hand=None)
    answers["fay"] = _write(root, "fay", nbformat.read(path, as_version=4), own_answers(release, "fay"))
    run_nbgrader(root, "autograde", ASSIGNMENT, "--force")
    lists = {student: student_list(student, salt, pool) for student in answers}
    return root, answers, lists, _scores(root)


def _scores(root) -> dict[str, dict[str, object]]:
    """Per student: each grade cell's score and the total, read with nbgrader's own Gradebook API."""
    grade_ids = [group.grade_id for group in EXERCISE.graded_groups]
    return gradebook_scores(root / "gradebook.db", COURSE_ID, ASSIGNMENT, grade_ids)


def _expected(answer_cell: str, rels: tuple[int, ...]) -> dict[str, float]:
    """Each step's points as the kit marks them: the answers read as numbers, against ``ndcg_ref``'s values."""
    answers, ways = read_answers(answer_cell), every_steps(rels, CUTOFF)
    return {step.grade_id: step.points if step_passes(step.step, answers, ways, CUTOFF) else 0.0 for step in STEPS}


def test_each_step_scores_as_the_kit_marks_it(plain):
    _, answers, lists, scores = plain
    for student, cell in answers.items():
        got = {step.grade_id: scores[student][step.grade_id] for step in STEPS}
        assert got == pytest.approx(_expected(cell, lists[student])), student


def test_wrong_numbers_lose_exactly_their_steps_and_right_ones_keep_them(plain):
    _, _, _, scores = plain
    for student, way in WAYS.items():
        lost = {step.grade_id for step in STEPS if scores[student][step.grade_id] == 0}
        expected = {step.grade_id for step in STEPS} if way is None else LOST.get(way, set())
        assert lost == expected, (student, way)
    assert sum(scores["ada"][step.grade_id] for step in STEPS) == pytest.approx(MAX_SCORE)


def test_answers_copied_from_another_student_s_list_lose_points(plain):
    _, _, lists, scores = plain
    assert lists["hal"] != lists["ada"]
    expected = _expected(own_answers(nbformat.read(plain[0] / "release" / ASSIGNMENT / NOTEBOOK, as_version=4),
                                     "ada"), lists["hal"])
    assert sum(expected.values()) < MAX_SCORE  # ada's numbers are not right for hal's list
    assert sum(scores["hal"][step.grade_id] for step in STEPS) == pytest.approx(sum(expected.values()))


def test_a_code_part_that_errors_keeps_the_by_hand_points(plain):
    _, _, _, scores = plain
    by_hand = sum(scores["fay"][step.grade_id] for step in STEPS)
    assert by_hand == pytest.approx(MAX_SCORE)
    assert scores["fay"]["total"] == pytest.approx(MAX_SCORE)  # every code group lost, Task 1.2 kept
    assert scores["ada"]["total"] == pytest.approx(EXERCISE.max_score)  # the right code keeps its 10 points
