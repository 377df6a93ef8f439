"""Threat: a cell field that breaks nbformat's schema makes the two grading paths disagree.

The fourth red-team round edited single cell fields the way a student can in any text editor (or a
Jupyter front end that writes what it is given) and handed the notebooks in beside honest
classmates. nbformat's reader only *logs* a schema problem, so the batch read these notebooks and
graded them 15/15; nbgrader's path validates after every preprocessor (nbconvert's exporter) and
failed the student with a traceback in the tutor's log and no score, and with ``--force`` after
``grade`` it first removed the student's autograded notebook while the gradebook kept the batch's
15. Hostile students:

- a cell ``id`` with markup and ESC (nbformat allows ``[a-zA-Z0-9-_]``, 1 to 64 characters);
- an ``execution_count`` that is text (``<img …>``: the classic template prints it unescaped);
- a cell's ``tags`` that are text, not a list.

Must hold: both paths refuse each of them, with one message naming where and which rule (never the
student's text), no validation traceback, no autograded notebook; every honest classmate is graded the same on
both paths.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.exercises.ndcg import EXERCISE

from grading_run import add_student, generated_course, grade, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
HONEST = ("alice", "bob")


def _dcg_cell(notebook: dict) -> dict:
    return next(cell for cell in notebook["cells"] if cell["metadata"].get("nbgrader", {}).get("grade_id") == "dcg")


#: student -> (what is done to their notebook, words of the refusal)
HOSTILE = {
    "markup_cell_id": (lambda nb: _dcg_cell(nb).update(id='"><img src=x onerror=alert(1)>\x1b[31m'),
                       "breaks nbformat's rule (pattern)"),
    "text_execution_count": (lambda nb: _dcg_cell(nb).update(execution_count="<img src=x onerror=alert(2)>"),
                             "execution_count breaks nbformat's rule (type)"),
    "text_tags": (lambda nb: _dcg_cell(nb)["metadata"].update(tags="<b>x</b>"), "breaks nbformat's rule (type)"),
}


@pytest.fixture(scope="module")
def both_paths(tmp_path_factory):
    course = generated_course(tmp_path_factory.mktemp("notebook-schema") / "course")
    for student in HONEST:
        add_student(course, student)
    for student, (change, _) in HOSTILE.items():
        target = add_student(course, student)
        notebook = json.loads(target.read_text(encoding="utf-8"))
        change(notebook)
        target.write_text(json.dumps(notebook), encoding="utf-8")
    done = subprocess.run([str(NBGRADER), "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5"],
                          cwd=course, env=tool_environment(), capture_output=True, text=True, timeout=900)
    after_nbgrader = sorted(path.name for path in (course / "autograded").iterdir())
    theirs = gradebook_scores(course)
    ours = grade(course, "--gradebook", "none", "--timeout", "5")
    return course, done.returncode, done.stdout + done.stderr, after_nbgrader, theirs, ours


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_the_batch_refuses_a_notebook_that_breaks_the_schema(both_paths, student):
    course, *_, ours = both_paths
    assert ours.returncode == 0 and "Traceback" not in ours.stderr, ours.stderr[-3000:]
    result = results(course)[student]
    assert (result["status"], result["score"]) == ("error", 0.0), result["message"]
    assert HOSTILE[student][1] in result["message"], result["message"]
    assert "<img" not in result["message"] and "\x1b" not in result["message"]
    assert not (course / "autograded" / student).exists()


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_nbgrader_refuses_the_same_notebook_before_reading_it(both_paths, student):
    _, returncode, log, after_nbgrader, *_ = both_paths
    assert returncode == 1  # nbgrader's way of saying that some students failed
    assert f"{student}: not graded: " in log and HOSTILE[student][1] in log, log[-3000:]
    # refused at the kit's door (nbgrader logs its own per-student error after it), not by nbconvert's validation
    assert "Notebook is invalid after preprocessor" not in log, log[-3000:]
    assert student not in after_nbgrader


def test_both_paths_give_the_honest_classmates_the_same_scores(both_paths):
    course, _, _, after_nbgrader, theirs, _ = both_paths
    assert set(HONEST) <= set(after_nbgrader)
    ours = {student: (result["score"], result["max_score"]) for student, result in results(course).items()}
    for student in HONEST:
        assert theirs[student] == ours[student] == (EXERCISE.max_score, EXERCISE.max_score), student
