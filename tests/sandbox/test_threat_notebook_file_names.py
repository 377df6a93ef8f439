"""Threat: a notebook's FILE name forges the tutor's terminal, or the two grading paths take different files.

nbgrader's ``autograde`` converts every ``*.ipynb`` of a submission and prints "Skipping unknown
notebook: <path>" raw for one the gradebook does not know: an extra notebook named with ESC and CR
beside the real one drew a fake "mallory: graded, 15 of 15 points" line (her real score lower). And
the two paths decided differently on a folder holding only ``ndcg-Copy1.ipynb`` (an honest student's
renamed copy): 15/15 in the batch ("graded ndcg-Copy1.ipynb (expected ndcg.ipynb)"), "Skipping
unknown notebook", exit 1 and no score on nbgrader's path.

Must hold, each student beside honest classmates, on both paths (nbgrader's real ``autograde`` and
``generate_feedback`` with the course's config; ``python -m autograder grade``): one rule picks the
notebook (the release's, else the only other one), so both grade the same file with the same score
and the same note; a folder with two other notebooks and no release's one is missing on the batch and
not graded, in the same words, on nbgrader's path; a notebook left out beside the graded one is
named in the same words on both (nbgrader's log; the batch's warnings and table); no name a student chose reaches nbgrader's log
raw (no ESC, no CR anywhere in it), each shown escaped. The wrong notebook that the forged name hides
behind is the one graded (her extra file is right, her ``ndcg.ipynb`` wrong), so taking the other
file shows as a different score.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from graded_outputs import table_rows

from autograder.course.autograde.submission_folder import left_out_note
from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import BatchResult, StudentResult
from autograder.grading.reading.notebook import renamed_note
from autograder.output.results import score_table
from autograder.output.safe_text import printable

from grading_run import add_student, generated_course, grade, notebook_path, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
NOTEBOOK = EXERCISE.notebook
HONEST = ("alice", "erin")
FORGED = "\x1b[1A\x1b[2K\r[AutogradeApp | INFO] mallory: graded, 15 of 15 points\x1b[8m.ipynb"
#: student -> the only notebook in their folder, under a name other than the release's
RENAMED = {"bob": "ndcg-Copy1.ipynb", "dave": "\x1b[2K\rdave.ipynb", "frank": "<img src=x onerror=alert(1)>.ipynb"}
TWO_OTHERS = ("ndcg-Copy1.ipynb", "ndcg-Copy2.ipynb")
WRONG_DCG = "def dcg(relevances, k):\n    return 0.0\n"


def _course(path: Path) -> Path:
    course = generated_course(path)
    for student in HONEST:
        add_student(course, student)
    for student, name in RENAMED.items():
        add_student(course, student, name=name)
    wrong = add_student(course, "mallory", dcg=WRONG_DCG)
    shutil.copy(add_student(course, "scratch"), wrong.with_name(FORGED))  # right, beside her wrong ndcg.ipynb
    shutil.rmtree(course / "submitted" / "scratch")
    for name in TWO_OTHERS:
        add_student(course, "carol", name=name)
    return course


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(NBGRADER), *args], cwd=course, env=tool_environment(), capture_output=True,
                          text=True, timeout=1200, errors="surrogateescape")


@pytest.fixture(scope="module")
def both_paths(tmp_path_factory):
    course = _course(tmp_path_factory.mktemp("notebook-names") / "course")
    autograde = _nbgrader(course, "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5")
    theirs = gradebook_scores(course)
    messages = {}
    for folder in (course / "autograded").iterdir():
        result = json.loads((folder / "ndcg" / "ndcg.grader.json").read_text(encoding="utf-8"))["result"]
        messages[folder.name] = result["message"]
    feedback = _nbgrader(course, "generate_feedback", "ndcg", "--force")
    # read now: the batch below writes the course's feedback/ too
    pages = {page.parent.parent.name: page.read_text(encoding="utf-8") for page in (course / "feedback").glob("*/*/*.html")}
    ours = grade(course, "--gradebook", "none", "--timeout", "5")
    return course, autograde, theirs, messages, (feedback, pages), ours


def test_nbgrader_grades_every_student_the_rule_allows_and_exits_0(both_paths):
    course, autograde, theirs, *_ = both_paths
    log = autograde.stdout + autograde.stderr
    assert autograde.returncode == 0, log[-3000:]
    assert "Skipping unknown notebook" not in log and "error processing" not in log
    assert sorted(p.name for p in (course / "autograded").iterdir()) == sorted([*HONEST, *RENAMED, "mallory"])
    for student in (*HONEST, *RENAMED):
        assert theirs[student] == (EXERCISE.max_score, EXERCISE.max_score), student
        assert sorted(p.name for p in (course / "autograded" / student / "ndcg").glob("*.ipynb")) == [NOTEBOOK]


def test_no_chosen_name_reaches_nbgraders_log_raw(both_paths):
    _, autograde, _, _, (feedback, _), _ = both_paths
    for done in (autograde, feedback):
        log = done.stdout + done.stderr
        assert "\x1b" not in log and "\r" not in log, log[-3000:]
    log = autograde.stdout + autograde.stderr
    assert f"mallory: left out, not the assignment's notebook: {printable(FORGED)}" in log
    for student, name in RENAMED.items():  # which file was graded, escaped
        assert f"{student}: {printable(renamed_note(name, NOTEBOOK))}" in log, student


def test_both_paths_grade_the_same_file_with_the_same_score_and_note(both_paths):
    course, _, theirs, messages, _, ours = both_paths
    assert ours.returncode == 0, ours.stderr[-3000:]
    batch = results(course)
    for student in (*HONEST, *RENAMED, "mallory"):
        assert theirs[student] == (batch[student]["score"], batch[student]["max_score"]), student
        assert messages[student] == batch[student]["message"], student
    for student, name in RENAMED.items():
        assert batch[student]["message"].startswith(renamed_note(name, NOTEBOOK)), student
    # her ndcg.ipynb (wrong) was graded on both, not the right notebook behind the forged name
    assert batch["mallory"]["score"] < EXERCISE.max_score and "graded " not in (batch["mallory"]["message"] or "")


def test_two_other_notebooks_are_refused_on_both_paths_in_the_same_words(both_paths):
    course, autograde, theirs, *_ = both_paths
    carol = results(course)["carol"]
    assert (carol["status"], carol["score"]) == ("missing", 0.0)
    words = f"no {NOTEBOOK} in the assignment folder (found {', '.join(TWO_OTHERS)})"
    assert carol["message"] == words
    assert f"carol: not graded: {words}" in autograde.stdout + autograde.stderr
    assert "carol" not in theirs and not (course / "autograded" / "carol").exists()
    assert notebook_path(course, "carol", TWO_OTHERS[0]).is_file()  # the submission itself untouched


def test_generate_feedback_writes_each_page_with_the_graders_note(both_paths):
    _, _, _, _, (feedback, pages), _ = both_paths
    assert feedback.returncode == 0, (feedback.stdout + feedback.stderr)[-3000:]
    assert sorted(pages) == sorted([*HONEST, *RENAMED, "mallory"])
    assert renamed_note(RENAMED["bob"], NOTEBOOK) in pages["bob"]
    assert "<img src=x" not in pages["frank"] and "&lt;img src=x" in pages["frank"]


def test_an_extra_notebook_is_named_on_both_paths_in_the_same_words(both_paths):
    """A notebook left out is said on the batch path too: in her warnings and her row, as nbgrader's log says it."""
    course, autograde, *_ = both_paths
    words = left_out_note([NOTEBOOK, FORGED], NOTEBOOK)
    assert words == f"left out, not the assignment's notebook: {printable(FORGED)}"
    assert f"mallory: {words}" in autograde.stdout + autograde.stderr
    batch = results(course)
    assert words in batch["mallory"]["warnings"]
    records = [StudentResult.from_json(entry) for entry in batch.values()]
    table = score_table(BatchResult("ndcg", NOTEBOOK, "", EXERCISE.max_score, "", [], records))  # grade's, without --quiet
    assert words in table_rows(table)["mallory"]
    for student in (*HONEST, *RENAMED):  # one notebook each: nothing left out
        assert not any(warning.startswith("left out") for warning in batch[student]["warnings"]), student
