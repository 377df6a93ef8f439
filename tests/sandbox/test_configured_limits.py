"""The sandbox's limits are settings: the exercise's, reaching every way into grading.

No stand-ins: each test chooses a real sandbox (its check starts a Python in it) and reads the
limits it was given.
"""

from __future__ import annotations

from dataclasses import replace

from autograder.course.preprocessor import SandboxedExecute, sandbox_for
from autograder.distributed.worker import _sandbox as worker_sandbox
from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grading_sandbox
from autograder.sandbox import Limits

MiB = 1024**2
#: Lower than the defaults in every setting a tutor may change, and still enough to start a Python.
LOWER = Limits(memory_bytes=300 * MiB, cpu_seconds=30, processes=20, scratch_bytes=16 * MiB)
HEAVY = replace(EXERCISE, limits=LOWER)


def test_the_ndcg_exercise_keeps_the_default_limits():
    assert EXERCISE.limits == Limits()


def test_the_command_line_pipeline_grades_with_the_exercises_limits(tmp_path):
    sandbox = grading_sandbox(GradeOptions(exercise=HEAVY, submitted=tmp_path, sandbox="auto"))
    assert sandbox.limits == LOWER


def test_nbgrader_grades_with_the_exercises_limits():
    limits = SandboxedExecute().sandbox_limits(HEAVY)
    assert limits == LOWER
    assert sandbox_for("auto", limits).limits == LOWER


def test_the_preprocessors_sandboxes_are_kept_per_mode_and_limits():
    lower = sandbox_for("auto", LOWER)
    assert sandbox_for("auto", LOWER) is lower
    assert sandbox_for("auto", Limits()) is not lower
    assert sandbox_for("auto", Limits()).limits == Limits()


def test_a_dask_worker_keeps_a_sandbox_per_mode_and_limits():
    lower = worker_sandbox("auto", LOWER)
    assert lower.limits == LOWER
    assert worker_sandbox("auto", LOWER) is lower
    assert worker_sandbox("auto", Limits()).limits == Limits()
