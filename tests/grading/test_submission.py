"""One submission through the engine (``grade_submission``) with a fake sandbox, in seconds.

The notebook is read as the batch reads it, the runs go through the real runner in a plain
process (:mod:`fake_sandbox`; trusted code written here), and the student's result is checked:
points, statuses and the words that explain a failure. The same paths in the real sandbox are
covered end to end by ``grading/test_grader.py`` and the hostile suite in ``sandbox/``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.exercises.ndcg import EXERCISE
from autograder.grading.model import Status
from autograder.grading.reading.notebook import DEFAULT_MAX_NOTEBOOK_BYTES, read_notebook, release_code
from autograder.grading.submission import BLIND_FAILED, grade_submission

from fake_sandbox import PlainProcess, ScriptedRunner
from grading_run import CORRECT_DCG, CORRECT_NDCG, RELEASE, add_raw, add_student, new_course, release_settings

#: Seconds per item: generous on a loaded machine for calls that take microseconds.
TIMEOUT = 20.0
SETTINGS = release_settings(TIMEOUT)


def _grade(course: Path, student: str, sandbox=None):
    sandbox = sandbox if sandbox is not None else PlainProcess()
    file = read_notebook(course / "submitted", student, ASSIGNMENT, NOTEBOOK, max_bytes=DEFAULT_MAX_NOTEBOOK_BYTES)
    return grade_submission(student, file, course / "submitted", SETTINGS, sandbox)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return new_course(tmp_path / "course")


def test_a_correct_solution_earns_every_point_in_three_processes(course: Path) -> None:
    add_student(course, "alice")
    sandbox = PlainProcess()
    result = _grade(course, "alice", sandbox)
    assert (result.status, result.score, result.message) == (Status.GRADED, EXERCISE.max_score, None)  # None: nothing to say
    assert all(test.passed for test in result.tests)
    # visible tests and probes; hidden tests; companions and witnesses: never one process for two of them
    assert sandbox.launches == 3


def test_a_crashing_cell_is_named_skipped_and_costs_nothing_else(course: Path) -> None:
    add_student(course, "bob", extra=("import os\nos._exit(3)",))
    sandbox = PlainProcess()
    result = _grade(course, "bob", sandbox)
    assert result.score == EXERCISE.max_score  # the functions, defined after it, still run
    assert "ended the Python process and was skipped" in result.message
    assert [cell.index for cell in result.cells] == [0]
    assert sandbox.launches == 3 * 2  # each process restarted once, without that cell


def test_a_cell_that_raises_is_named_with_its_error(course: Path) -> None:
    add_student(course, "carol", extra=("raise ValueError('no data here')",))
    result = _grade(course, "carol")
    assert "raised ValueError: no data here" in result.message
    assert result.score == EXERCISE.max_score


def test_a_broken_cell_that_defines_the_function_is_named_in_the_failed_tests(course: Path) -> None:
    broken = CORRECT_DCG + "\nundefined_name + 1"  # dcg is defined, then the cell fails; ndcg never is
    add_student(course, "dave", dcg=broken, ndcg="undefined_too\n" + CORRECT_NDCG)
    result = _grade(course, "dave")
    failed = [test for test in result.tests if not test.passed]
    assert failed and result.score < EXERCISE.max_score
    assert all("did not run (NameError): fix that first" in test.message for test in failed if "ndcg" in test.name)


class _HonestFirst:
    """The real runner for the first process (visible tests), a forging stand-in for the later, blind ones."""

    name, isolated, resource_warning = "honest first (tests only)", False, None

    def __init__(self, forged: ScriptedRunner) -> None:
        self.plain, self.forged = PlainProcess(), forged

    def launch(self, scratch: Path, slot: int):
        return (self.plain if self.plain.launches == 0 else self.forged).launch(scratch, slot)


def test_a_blind_run_that_breaks_the_protocol_is_told_in_a_fixed_sentence(course: Path) -> None:
    add_student(course, "erin")
    leak = b"[3, 2, 3, 0, 1, 2] is what I saw"
    sandbox = _HonestFirst(ScriptedRunner([b'{"ready": true}', leak]))
    result = _grade(course, "erin", sandbox)
    assert result.status is Status.ERROR
    assert result.message == f"could not grade the notebook: {BLIND_FAILED}"


def test_a_first_run_that_breaks_the_protocol_is_told_without_its_words(course: Path) -> None:
    add_student(course, "fred")
    result = _grade(course, "fred", ScriptedRunner([b'{"ready": true}', b"my own words"]))
    assert result.status is Status.ERROR
    assert "protocol" in result.message and "my own words" not in result.message


@pytest.mark.parametrize(("data", "said"), [
    (b"", "empty"),
    (b"{not json", "not valid JSON"),
    (b'{"cells": "no list", "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "cells"),
    (b"\xff\xfe\x00garbage", "UTF-8"),
])
def test_an_unreadable_notebook_is_an_error_in_one_line_without_a_run(
    course: Path, data: bytes, said: str
) -> None:
    add_raw(course, "frank", data)
    sandbox = PlainProcess()
    result = _grade(course, "frank", sandbox)
    assert result.status is Status.ERROR
    assert said in result.message and "\n" not in result.message and "Traceback" not in result.message
    assert sandbox.launches == 0


def test_the_release_unchanged_is_not_attempted_without_a_run(course: Path) -> None:
    add_raw(course, "gina", RELEASE.read_bytes())
    sandbox = PlainProcess()
    file = read_notebook(course / "submitted", "gina", ASSIGNMENT, NOTEBOOK, max_bytes=DEFAULT_MAX_NOTEBOOK_BYTES)
    settings = replace(SETTINGS, release_cells=release_code(RELEASE, SETTINGS.skip_ids))
    result = grade_submission("gina", file, course / "submitted", settings, sandbox)
    assert (result.status, result.score) == (Status.NOT_ATTEMPTED, 0)
    assert sandbox.launches == 0
