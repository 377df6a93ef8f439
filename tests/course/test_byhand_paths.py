"""Task 1.2 by hand graded both ways: nbgrader's own autograde and the batch command agree, step by step."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest
from byhand_answers import LOST, answer_cell

from autograder.course.byhand import ASSIGNMENT, NOTEBOOK, release_variant
from autograder.course.nbgrader import gradebook_scores, run_nbgrader
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import MAX_SCORE, STEPS

from grading_run import ROOT, whole_course

pytestmark = pytest.mark.slow


def _submit(course, student: str, answers: str | None, raw: bytes | None = None) -> None:
    target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
    target.parent.mkdir(parents=True)
    if raw is not None:
        target.write_bytes(raw)
        return
    notebook = nbformat.read(course / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.metadata["nbgrader"]["grade_id"] == ANSWERS_ID:
            cell.source = answers
        elif cell.cell_type == "code":  # what the student's own kernel printed is ignored by the grader
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="RELS = [3, 3, 3, 3, 3, 3, 0, 0]\n")]
    nbformat.write(notebook, target)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from autograder.exercises.ndcg.byhand.steps import every_steps

    course = whole_course(tmp_path_factory.mktemp("byhand") / "course")
    (course / "submitted").mkdir()
    run_nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    salt, pool = release_variant(course)
    mistakes = {"ada": "right", "bob": "natural log", "cyd": "ratio inverted", "dee": "ideal not cut at k"}
    for student, name in mistakes.items():
        _submit(course, student, answer_cell(every_steps(student_list(student, salt, pool), CUTOFF)[name]))
    _submit(course, "eli", "DCG_AT_K = __import__('os').system('touch hacked')")  # code is never run
    log = run_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    theirs = gradebook_scores(course, ASSIGNMENT)
    _submit(course, "fay", None, raw=b"\x00 not a notebook")  # only the batch: its problem is fay's alone
    batch = subprocess.run([sys.executable, "-m", "autograder", "grade-by-hand", "--json", "byhand.json"],
                           cwd=course, capture_output=True, text=True, timeout=300)
    assert batch.returncode == 0, batch.stderr[-2000:]
    ours = {r["student_id"]: r for r in json.loads((course / "byhand.json").read_text())}
    return course, mistakes, log, theirs, ours


def test_both_paths_give_the_same_points(graded):
    _, mistakes, _, theirs, ours = graded
    assert set(theirs) == {*mistakes, "eli"}
    for student, (score, maximum) in theirs.items():
        assert (ours[student]["score"], ours[student]["max_score"]) == pytest.approx((score, maximum)), student
        assert maximum == MAX_SCORE


def test_each_mistake_costs_its_steps_in_nbgrader_s_gradebook(graded):
    _, mistakes, _, theirs, _ = graded
    for student, name in mistakes.items():
        lost = LOST.get(name, set())
        assert theirs[student][0] == pytest.approx(MAX_SCORE - sum(s.points for s in STEPS if s.grade_id in lost))


def test_code_in_the_answers_never_runs_and_a_broken_file_costs_only_its_student(graded):
    course, _, _, theirs, ours = graded
    assert theirs["eli"][0] == 0.0 and not (course / "hacked").exists()
    assert not any(p.name == "hacked" for p in (course / "autograded").rglob("hacked"))
    assert ours["fay"]["status"] == "error" and "not a readable notebook" in ours["fay"]["message"]
    assert ours["ada"]["score"] == MAX_SCORE


def test_the_autograded_notebook_works_the_list_through(graded):
    course, _, _, _, _ = graded
    salt, pool = release_variant(course)
    notebook = nbformat.read(course / "autograded" / "bob" / ASSIGNMENT / NOTEBOOK, as_version=4)
    text = json.dumps(notebook)
    assert str(list(student_list("bob", salt, pool))) in text and "natural log" in text
    assert "RELS = [3, 3, 3, 3, 3, 3, 0, 0]" not in text  # the student's own outputs are not believed


def test_the_batch_reads_a_by_hand_notebook_as_safely_as_the_code_part(tmp_path):
    # a FIFO must not hang the batch, and a link must not carry another file's answers into a grade
    from autograder.course.byhand import grade_folder
    from autograder.course.copying import gather

    course = whole_course(tmp_path / "course")
    canary = tmp_path / "canary.ipynb"
    _submit(course, "honest", "DCG_AT_K = 1")
    canary.write_bytes((course / "submitted" / "honest" / ASSIGNMENT / NOTEBOOK).read_bytes())
    for student in ("piper", "linker"):
        (course / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
    os.mkfifo(course / "submitted" / "piper" / ASSIGNMENT / NOTEBOOK)
    (course / "submitted" / "linker" / ASSIGNMENT / NOTEBOOK).symlink_to(canary)
    results = {result.student_id: result for result in grade_folder(course)}
    assert set(results) == {"honest", "piper", "linker"}
    assert results["honest"].status.value == "graded"
    for student in ("piper", "linker"):
        assert results[student].status.value == "error" and results[student].score == 0, results[student].message
    answers, _, _ = gather(course, course / "submitted")  # the copying report reads the same way
    assert set(answers) == {"honest"}


def test_grade_by_hand_without_submissions_says_so_in_one_line(tmp_path):
    course = whole_course(tmp_path / "course")  # released, nothing collected yet
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-by-hand"], cwd=course, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "no submissions folder" in done.stderr and "nbgrader collect byhand" in done.stderr
    assert "Traceback" not in done.stderr
