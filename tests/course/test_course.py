"""The nbgrader course itself: generated cells in sync, release up to date, no leaks, grading works."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from byhand_answers import BY_HAND_POINTS
from release_guards import leaks, outputs

import ndcg_ref
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.course.notebook_cells.generated_cells import out_of_sync, render_group, without_hidden_tests
from autograder.exercises import EXERCISES
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.marking import STEPS
from autograder.exercises.ndcg.cases import GROUPS, LECTURE
from autograder.exercises.ndcg.catalogue import BY_ID

from conftest import ROOT, solution_code
from grading_run import whole_course

SOURCE = ROOT / "source" / ASSIGNMENT / NOTEBOOK
RELEASE = ROOT / "release" / ASSIGNMENT / NOTEBOOK


def _cells(path):
    return nbformat.read(path, as_version=4).cells


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_source_test_cells_match_the_cases(exercise):
    source = ROOT / "source" / exercise.assignment / exercise.notebook
    stale = out_of_sync(nbformat.read(source, as_version=4), exercise)
    assert stale == [], f"run `make sync`: these cells of {source.name} differ from its exercise's cases: {stale}"


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_release_is_what_nbgrader_generates_from_source(course, exercise):
    path = Path("release") / exercise.assignment / exercise.notebook
    generated = (course / path).read_text(encoding="utf-8")
    assert (ROOT / path).read_text(encoding="utf-8") == generated, f"{path} is stale: run `make release`"


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_release_has_no_hidden_test_text(exercise):
    # every file released (any exercise's), against this exercise's hidden cases
    assert leaks(ROOT / "release", exercise) == []


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_release_has_no_outputs(exercise):
    assert outputs(ROOT / "release", exercise) == []


@pytest.mark.parametrize("exercise", EXERCISES.values(), ids=list(EXERCISES))
def test_no_probe_is_a_hidden_case(exercise):
    # a diagnosis's counterexample, shown on the feedback page, quotes its probe's input
    hidden = {case.call for group in exercise.groups if not group.visible for case in group.cases}
    assert [probe.text for probe in exercise.probes if probe in hidden] == []


def test_release_stubs_keep_def_line_and_docstring():
    source = {c.metadata["nbgrader"]["grade_id"]: c.source for c in _cells(SOURCE) if "nbgrader" in c.metadata}
    stubs = solution_code(nbformat.read(RELEASE, as_version=4))
    assert set(stubs) == {"dcg", "ndcg"}
    for grade_id, stub in stubs.items():
        head = source[grade_id].split("### BEGIN SOLUTION")[0]
        assert stub.startswith(head), grade_id
        assert f"def {grade_id}(rels, k):" in stub and '"""' in stub
        assert stub.rstrip().endswith("raise NotImplementedError()")


def test_hidden_groups_render_inside_hidden_markers():
    for group in GROUPS:
        source = render_group(EXERCISE, group)
        if group.visible:
            assert "HIDDEN" not in source
        else:
            inner = source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            assert all(case.function in inner for case in group.cases)
            assert "check_value" not in source.split("### BEGIN HIDDEN TESTS")[0]


def test_by_hand_steps_check_their_values_in_hidden_lines_that_the_release_and_the_kit_leave_out():
    source = {c.metadata["nbgrader"]["grade_id"]: c.source for c in _cells(SOURCE) if "nbgrader" in c.metadata}
    release = {c.metadata["nbgrader"]["grade_id"]: c.source for c in _cells(RELEASE) if "nbgrader" in c.metadata}
    for step in STEPS:
        hidden = source[step.grade_id].split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
        assert "student_list(current_student(), SALT, POOL)" in hidden and "assert" in hidden, step.grade_id
        # the kit's autograded notebooks show the step as nbgrader released it
        assert without_hidden_tests(source[step.grade_id]) == release[step.grade_id], step.grade_id


def test_points_add_up_to_five_by_hand_and_ten_in_code_and_match_the_notebook():
    assert sum(g.points for g in GROUPS) == 10.0 and EXERCISE.max_score == 10.0 + BY_HAND_POINTS == 15.0
    points = {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
        for c in _cells(SOURCE)
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    assert points == {g.grade_id: g.points for g in EXERCISE.graded_groups}


def test_the_tutor_guide_lists_every_group_with_its_points():
    guide = (ROOT / "docs" / "tutor-guide.md").read_text(encoding="utf-8")
    rows = [line for line in guide.splitlines() if line.startswith("| `test_")]
    assert len(rows) == len(GROUPS)
    for group, row in zip(GROUPS, rows, strict=True):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[0] == f"`{group.grade_id}`" and cells[1] == f"`{group.function}`"
        assert float(cells[3]) == group.points and (cells[4] == "yes") == group.visible


def test_every_case_names_its_provenance_and_only_the_lecture_is_published():
    for group in GROUPS:
        for case in group.cases:
            assert case.provenance.startswith(LECTURE) or case.provenance.startswith("constructed: "), case
            assert not re.search(r"\bexam\b", case.provenance, re.IGNORECASE), case


def test_worked_example_in_the_notebook_matches_the_reference():
    markdown = "\n".join(c.source for c in _cells(SOURCE) if c.cell_type == "markdown")
    rels = [1, 0, 2, 1, 0]
    for label, value in {
        "DCG@5": ndcg_ref.dcg(rels, 5),
        "iDCG@5": ndcg_ref.idcg(rels, 5),
        "nDCG}@5": ndcg_ref.ndcg(rels, 5),
    }.items():
        assert re.search(re.escape(label) + r"[^\n]{0,40}= " + re.escape(f"{value:.4f}"), markdown), label


@pytest.mark.slow
def test_source_solution_gets_full_marks(graded_course):
    _, scores = graded_course
    assert scores["zz_solution"] == (EXERCISE.max_score, EXERCISE.max_score)


@pytest.mark.slow
def test_released_stubs_get_nothing(graded_course):
    _, scores = graded_course
    assert scores["zz_stubs"] == (0.0, EXERCISE.max_score)
    assert scores["dave"] == (0.0, EXERCISE.max_score)


@pytest.mark.slow
def test_examples_get_partial_credit_for_what_they_get_right(graded_course):
    # graded by nbgrader's own Execute from the notebook's test cells: the points the catalogue
    # declares for each example's mistakes (docs/misconceptions.md) must come out of them too
    _, scores = graded_course

    def cost(*mistakes: str) -> float:
        lost = {g for m in mistakes for g in BY_ID[m].groups_lost(BY_ID[m].mutants[0])}
        return sum(EXERCISE.group(g).points for g in lost)

    # Task 1.2: these examples work their own lists right (mallory, with the natural log by hand, is hostile
    # and graded only by the kit; tests/course/test_byhand_plain_nbgrader.py marks wrong answers here)
    full = EXERCISE.max_score
    assert scores["alice"][0] == full
    assert scores["bob"][0] == full - cost("log-base")  # natural log: cancels in ndcg
    assert scores["carol"][0] == full - cost("ideal-not-cut", "zero-ideal")
    assert scores["erin"][0] == full - cost("mutates-input")  # sorts the caller's list in place


@pytest.mark.slow
@pytest.mark.parametrize("student", ["alice", "zz_solution"])
def test_feedback_of_a_notebook_the_kit_did_not_grade_is_refused_in_one_line(graded_course, student):
    """This reference course ran nbgrader's own Execute: no grader's result, so no page (never nbgrader's)."""
    import subprocess

    from autograder.course.materials.nbgrader_commands import tool_environment

    course, _ = graded_course
    done = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "generate_feedback", ASSIGNMENT, "--student", student,
         "--force"], cwd=course, env=tool_environment(), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1
    assert f"{student}: no grader's result beside ndcg.ipynb, so no feedback page" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (course / "feedback" / student / ASSIGNMENT / "ndcg.html").exists()


@pytest.mark.slow
def test_a_broken_gradebook_is_named_and_the_release_is_kept(tmp_path):
    import os
    import subprocess
    import sys

    course = whole_course(tmp_path)
    (course / "gradebook.db").write_bytes(b"owned")
    release = course / "release" / ASSIGNMENT / NOTEBOOK
    before = release.read_bytes()
    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "autograder", command], cwd=course, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
        )

    done = run("release")
    assert done.returncode == 2, done.stderr
    assert "gradebook.db is not an SQLite database (it starts with b'owned')" in done.stderr
    assert "mv " in done.stderr and "Traceback" not in done.stderr
    assert release.read_bytes() == before
    demo = run("demo")  # works in a scratch course of its own: the broken gradebook is left as it is
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert (course / "gradebook.db").read_bytes() == b"owned" and release.read_bytes() == before


def test_a_failed_generation_puts_the_old_release_back(tmp_path, monkeypatch):
    import shutil

    from autograder.course.materials import nbgrader_commands as course_module

    course = whole_course(tmp_path)
    release = course / "release" / ASSIGNMENT / NOTEBOOK
    before = release.read_bytes()

    def failing_nbgrader(root, *args, **kwargs):
        shutil.rmtree(root / "release" / ASSIGNMENT)  # what `generate_assignment --force` does first
        raise course_module.CourseError("`nbgrader generate_assignment` failed (exit 1): simulated")

    monkeypatch.setattr(course_module, "run_nbgrader", failing_nbgrader)
    with pytest.raises(course_module.CourseError, match="simulated"):
        course_module.generate_release(course)
    assert release.read_bytes() == before
