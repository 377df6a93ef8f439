"""nbgrader's own ``autograde`` grades through the sandbox (the course's config swaps in SandboxedExecute).

Graded both ways — ``nbgrader autograde`` and ``python -m autograder grade`` — the same submissions
get the same scores; nbgrader records them as autograded (no manual grading asked for); a hostile
notebook is contained; neither the autograded notebooks nor nbgrader's feedback show a hidden input.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.course.materials.demo_course import stage_examples
from autograder.course.materials.nbgrader_commands import gradebook_scores, run_nbgrader
from autograder.demo import DEMO_TIMEOUT

from grading_run import generated_course, grade, results
from leaks import hidden_sequences, leaked, without_by_hand

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]

#: seconds of CPU time per cell, the demo's: mallory's hangs spin until it, four on each path
TIMEOUT = DEMO_TIMEOUT


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory):
    course = generated_course(tmp_path_factory.mktemp("nbgrader-autograde") / "course")
    students = stage_examples(course, course / "submitted")  # mallory too: it runs in the sandbox
    gradebook_before = (course / "gradebook.db").read_bytes()[:16]
    log = run_nbgrader(course, "autograde", "ndcg", "--force", f"--SandboxedExecute.timeout={TIMEOUT}")
    run_nbgrader(course, "generate_feedback", "ndcg", "--force")
    theirs = {student: _test_outputs(course, student) for student in students}
    ours = grade(course, "--gradebook", "none", "--timeout", str(TIMEOUT))
    assert ours.returncode == 0, ours.stderr[-2000:]
    return course, students, log, gradebook_before, theirs


def _test_outputs(course, student: str) -> dict[str, tuple[str, str]]:
    """Each test cell's source and outcome in the student's autograded notebook."""
    notebook = nbformat.read(course / "autograded" / student / "ndcg" / "ndcg.ipynb", as_version=4)
    return {
        cell.metadata["nbgrader"]["grade_id"]: (cell.source, "".join(o.get("output_type", "") for o in cell.outputs))
        for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")
    }


def test_the_batch_command_writes_the_same_autograded_notebooks(both_ways):
    course, students, _, _, theirs = both_ways
    for student in students:
        assert _test_outputs(course, student) == theirs[student], student
        assert (course / "autograded" / student / "ndcg" / "ndcg.ipynb").is_file()


def test_the_config_loads_and_replaces_execute(both_ways):
    log = both_ways[2]
    assert "Exception while loading config" not in log  # nbgrader would fall back to its own Execute
    assert "mallory: timeout" in log and "Kernel" not in log  # graded by the kit, no kernel started


def test_both_ways_give_the_same_scores(both_ways):
    course, students, *_ = both_ways
    ours = {student: (result["score"], result["max_score"]) for student, result in results(course).items()}
    assert gradebook_scores(course) == ours
    assert set(ours) == set(students)


def test_both_ways_draw_the_same_fresh_instances(both_ways):
    course, _, log, *_ = both_ways
    graded = {student: result for student, result in results(course).items() if result["status"] != "not attempted"}
    labels = {student: result["instances"] for student, result in graded.items() if result["instances"]}
    assert set(labels) == set(graded) and len(labels) >= 4
    assert len(set(labels.values())) == len(labels)  # every student gets instances of their own
    for student, label in labels.items():
        assert f"{student}: " in log and f"(fresh instances {label})" in log, student
    # the score in that line is the grader's, and says so (issue 33.9): the final one comes after penalties
    assert "the grader's" in log and "before any late penalty or tutor's mark" in log
    secret = course / ".grading-secret"
    assert secret.is_file() and secret.stat().st_mode & 0o777 == 0o600


def test_nbgrader_records_them_as_autograded(both_ways):
    course = both_ways[0]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in both_ways[1]:
            submission = gradebook.find_submission("ndcg", student)
            assert not submission.needs_manual_grade, student


def test_a_hostile_notebook_is_contained(both_ways):
    course, _, _, gradebook_before, _ = both_ways
    assert (course / "gradebook.db").read_bytes()[:16] == gradebook_before == b"SQLite format 3\x00"
    assert (course / "submitted" / "alice" / "ndcg" / "ndcg.ipynb").read_bytes()[:1] == b"{"


def test_no_hidden_input_in_autograded_notebooks_or_feedback(both_ways):
    course = both_ways[0]
    assert hidden_sequences()  # the hidden lists no visible case or probe holds (one-element lists are no evidence)
    files = list((course / "autograded").rglob("*.ipynb")) + list((course / "feedback").rglob("*.html"))
    assert len(files) == 2 * len(both_ways[1])
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "BEGIN HIDDEN TESTS" not in text and "check_value(dcg, [3, 0, 0, 2, 1, 0]" not in text
        assert leaked([without_by_hand(path, text)]) == [], path

