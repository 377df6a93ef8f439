"""Task 1.2's list comes from the STUDENT_ID the student types; the grader marks the submitter's list.

A student who works on a laptop (or as ``root``) has a login that is no student id: the notebook
derives the list from the id typed once in its ``STUDENT_ID`` cell. Here, with the released cells
run as they are: the list shown is the typed id's, an empty id and (on JupyterHub and under
``nbgrader validate``) an id other than the login are refused in plain words; ``nbgrader validate``
itself says so. A notebook whose ``STUDENT_ID`` is a classmate's, graded under the real id on both
grading paths, is marked against the submitter's list, its feedback says what happened, the report
lists the student under "Who needs a look" and ``results.json`` carries the reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys

import nbformat
import pytest
from byhand_answers import gradebook_scores, own_answers, submit_by_hand, type_id

from autograder.byhand.salt import release_variant
from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.answers import read_answers
from autograder.exercises.ndcg.byhand.cells import DERIVATION_ID, STUDENT_CELL_ID
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import STEPS, mark
from autograder.exercises.ndcg.byhand.typed_id import check_id

from conftest import ROOT
from grading_run import add_student, generated_course, grade, results, whole_course

RELEASE = ROOT / "release" / ASSIGNMENT / NOTEBOOK
COURSE_ID = "ir-ranking-evaluation"
LOGIN = pwd.getpwuid(os.getuid())[0]


def _cells(notebook: nbformat.NotebookNode) -> dict[str, str]:
    return {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in notebook.cells}


def _words(text: str) -> str:
    """``text`` with its line breaks (the messages' are wrapped) as single spaces."""
    return " ".join(text.split())


def _run_cells(typed: str, **env: str) -> subprocess.CompletedProcess:
    """The release's STUDENT_ID cell (with ``typed`` typed in) and derivation cell, run by a Python as they stand."""
    cells = _cells(nbformat.read(RELEASE, as_version=4))
    code = type_id(cells[STUDENT_CELL_ID], typed) + "\n" + cells[DERIVATION_ID]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NBGRADER", "JUPYTERHUB"))}
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True,
                          timeout=60)


def test_the_list_shown_is_the_typed_id_s_whatever_the_login():
    salt, pool = release_variant(ROOT, NDCG)
    for typed in ("alice", LOGIN):
        done = _run_cells(typed)
        assert done.returncode == 0, done.stderr
        assert f"student {typed}: your ranked list is RELS = {list(student_list(typed, salt, pool))}" in done.stdout
    # on a laptop the login is no student id: a note, not a refusal
    assert f"this computer's login is {LOGIN!r}" in _run_cells("alice").stdout


def test_an_empty_id_and_on_a_hub_or_under_validate_another_login_s_id_are_refused():
    refusals = {
        "": ({}, "Type your student id in the cell STUDENT_ID"),
        "alice": ({"JUPYTERHUB_USER": LOGIN}, f"you are logged in to JupyterHub as {LOGIN!r}"),
        "bob": ({"NBGRADER_EXECUTION": "validate"}, f"hands your notebook in as {LOGIN!r}"),
    }
    for typed, (env, said) in refusals.items():
        done = _run_cells(typed, **env)
        assert done.returncode != 0 and said in _words(done.stderr) and "RELS =" not in done.stdout, (typed, done.stderr)
    assert _run_cells(LOGIN, NBGRADER_EXECUTION="validate").returncode == 0


@pytest.mark.slow
def test_nbgrader_validate_warns_when_the_typed_id_is_not_the_submitter_s(tmp_path):
    course = whole_course(tmp_path / "course")
    path = add_student(course, LOGIN)  # code and by-hand answers right, the login's id typed
    other = tmp_path / "other.ipynb"
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == STUDENT_CELL_ID:
            cell.source = type_id(cell.source, "bob")
    nbformat.write(notebook, other)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NBGRADER", "JUPYTERHUB"))}
    said = {name: subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(file)], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=300).stdout
            for name, file in (("own", path), ("other", other))}
    assert "Success! Your notebook passes all the tests." in said["own"], said["own"][-2000:]
    assert f"STUDENT_ID is 'bob', but nbgrader submit from this account hands your notebook in as {LOGIN!r}" in (
        _words(said["other"])), said["other"][-2000:]
    assert "..." not in said["other"].split("AssertionError:")[-1]  # every line of the message whole


def test_the_check_reads_the_cell_as_data_and_says_what_it_found():
    assert check_id("alice", None).student is None  # a release before STUDENT_ID: nothing to say
    assert check_id("alice", 'STUDENT_ID = " alice "') == check_id("alice", 'STUDENT_ID = "alice"')
    assert check_id("alice", 'STUDENT_ID = "alice"').student is None
    for unset in ('STUDENT_ID = ""', "# YOUR CODE HERE\nraise NotImplementedError()"):  # as released: no list shown
        empty = check_id("alice", unset)
        assert "was empty" in (empty.student or "") and empty.tutor is None
    other = check_id("alice", 'STUDENT_ID = "bob"')
    assert other.student == ("Your notebook's STUDENT_ID is 'bob', but you handed it in as 'alice': the notebook "
                             "showed the list of 'bob', and Task 1.2 was marked against the list of 'alice', the id "
                             "you handed it in under.")
    assert other.tutor is not None and "'bob'" in other.tutor
    for code in ("STUDENT_ID = get_id()", "STUDENT_ID = " + "(" * 500, "x" * 20_000):
        assert check_id("alice", code).tutor is not None, code  # never run, never raises


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One class (ada honest; alice typed bob's id and worked bob's list) graded by each path."""
    base = tmp_path_factory.mktemp("student-id")
    template = generated_course(base / "template")  # the release nbgrader generated, once per run
    release = nbformat.read(template / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    add_student(template, "ada")
    path = add_student(template, "alice", by_hand=None)
    submit_by_hand(path, "alice", None, own_answers(release, "bob"))
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == STUDENT_CELL_ID:
            cell.source = type_id(cell.source, "bob")
    nbformat.write(notebook, path)
    courses = {name: shutil.copytree(template, base / name) for name in ("nbgrader", "batch")}
    run_nbgrader(courses["nbgrader"], "autograde", ASSIGNMENT, "--force")
    done = grade(courses["batch"], "--sandbox", "required")
    assert done.returncode == 0, done.stderr[-2000:]
    return courses, release


def test_both_paths_mark_the_submitter_s_list_and_say_that_the_notebook_showed_another(both):
    courses, release = both
    salt, pool = release_variant(courses["batch"], NDCG)
    expected = mark("alice", read_answers(own_answers(release, "bob")), student_list("alice", salt, pool), CUTOFF)
    grade_ids = [step.grade_id for step in STEPS]
    scores = {name: gradebook_scores(course / "gradebook.db", COURSE_ID, ASSIGNMENT, grade_ids)
              for name, course in courses.items()}
    by_hand = {name: {g: scores[name]["alice"][g] for g in grade_ids} for name in courses}
    assert by_hand["nbgrader"] == by_hand["batch"] == {t.name: t.points for t in expected.tests}
    assert sum(by_hand["batch"].values()) < sum(step.points for step in STEPS)  # bob's numbers, alice's list
    sentence = "Your notebook&#39;s STUDENT_ID is &#39;bob&#39;, but you handed it in as &#39;alice&#39;"
    for name, course in courses.items():
        stored = nbformat.read(course / "autograded" / "alice" / ASSIGNMENT / NOTEBOOK, as_version=4)
        assert "Your notebook's STUDENT_ID is 'bob', but you handed it in as 'alice'" in nbformat.writes(stored), name
    found = results(courses["batch"])
    assert found["ada"]["needs_a_look"] == []
    (reason,) = found["alice"]["needs_a_look"]
    assert "'bob'" in reason and "'alice'" in reason
    assert "handed it in as 'alice'" in found["alice"]["tests"][0]["message"]
    feedback = (courses["batch"] / "graded" / "feedback" / "alice" / "ndcg.html").read_text()
    assert sentence in feedback
    report = (courses["batch"] / "graded" / "report.html").read_text()
    look = report.split('<table id="look">')[1].split("</table>")[0]  # the one "Who needs a look" table
    assert "alice</a>" in look and "ada" not in look
    assert found["alice"]["shown_list_of"] == "bob" and found["ada"]["shown_list_of"] is None
    assert "<td>bob</td>" in look  # the id the notebook showed, as the row's classmate (text, not a link)
