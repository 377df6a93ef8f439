"""The sandbox's limits are settings: the exercise's, reaching every way into grading.

No stand-ins: each test chooses a real sandbox (its check starts a Python in it) and reads the
limits it was given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from traitlets import TraitError
from traitlets.config import Config

from autograder.cli import grade_options, main, parser
from autograder.course.autograde.preprocessor import SandboxedExecute, sandbox_for
from autograder.distributed import worker
from autograder.distributed.worker import RemoteJob, code_digest, grade_remote
from autograder.distributed.worker import _sandbox as worker_sandbox
from autograder.errors import UsageError
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import GradingSettings, Job
from autograder.grading.batch import grading_fingerprint
from autograder.grading.reading.notebook import NotebookFile
from autograder.pipeline import GradeOptions, grading_sandbox
from autograder.sandbox import Limits
from autograder.sandbox.resources.limits import SETTINGS

from grading_run import ROOT, add_student, grade, new_course, results

MiB = 1024**2
#: Lower than the defaults in every setting a tutor may change, and still enough to start a Python.
LOWER = Limits(memory_bytes=300 * MiB, cpu_seconds=30, processes=20, scratch_bytes=16 * MiB)
HEAVY = replace(EXERCISE, limits=LOWER)


def test_results_saved_under_other_limits_are_not_reused():
    settings = GradingSettings(EXERCISE, 5.0, frozenset())
    assert grading_fingerprint(settings) == grading_fingerprint(replace(settings, limits=Limits()))
    assert grading_fingerprint(settings) != grading_fingerprint(replace(settings, limits=LOWER))


def test_the_ndcg_exercise_keeps_the_default_limits():
    assert EXERCISE.limits == Limits()


def test_the_command_line_pipeline_grades_with_the_exercises_limits(tmp_path):
    sandbox = grading_sandbox(GradeOptions(exercise=HEAVY, submitted=tmp_path, sandbox="auto"))
    assert sandbox.limits == LOWER


def test_nbgrader_grades_with_the_exercises_limits():
    limits = SandboxedExecute().sandbox_limits(HEAVY.limits)
    assert limits == LOWER
    assert sandbox_for("auto", limits).limits == LOWER


def _configured(**settings: object) -> SandboxedExecute:
    """The preprocessor as nbgrader builds it from ``c.SandboxedExecute.<name> = value`` lines."""
    config = Config()
    for name, value in settings.items():
        setattr(config.SandboxedExecute, name, value)
    return SandboxedExecute(config=config)


def test_nbgrader_config_sets_the_limits_over_the_exercises():
    preprocessor = _configured(memory_mb=300, cpu_seconds=30, processes=20, scratch_mb=16)
    assert sandbox_for("auto", preprocessor.sandbox_limits(EXERCISE.limits)).limits == LOWER
    assert _configured(memory_mb=300).sandbox_limits(HEAVY.limits) == LOWER  # the rest stays the exercise's


def test_nbgrader_config_refuses_a_bad_limit_in_one_line():
    with pytest.raises(UsageError) as refused:
        _configured(memory_mb=-5).sandbox_limits(EXERCISE.limits)
    assert str(refused.value) == "c.SandboxedExecute.memory_mb must be a whole number of MiB from 64 to 1048576, got '-5'"
    with pytest.raises(TraitError, match="memory_mb"):  # not a number: traitlets refuses it when the config is read
        _configured(memory_mb="lots")


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


def _options(tmp_path, *limits: str):
    return grade_options(parser().parse_args(["grade", "--sandbox", "auto", "--submitted", str(tmp_path), *limits]))


def test_the_grade_options_reach_the_sandbox(tmp_path):
    options = _options(tmp_path, "--memory", "300", "--cpu-seconds", "30", "--max-processes", "20", "--scratch", "16")
    assert grading_sandbox(options).limits == LOWER


def test_a_limit_left_out_keeps_the_exercises(tmp_path):
    options = _options(tmp_path, "--memory", "300")
    assert grading_sandbox(options).limits == replace(EXERCISE.limits, memory_bytes=300 * MiB)


BAD = [("--memory", "-5"), ("--memory", "lots"), ("--cpu-seconds", "0"), ("--max-processes", "2.5"),
       ("--scratch", "1e12"), ("--memory", "nan"), ("--cpu-seconds", "inf")]


@pytest.mark.parametrize(("option", "value"), BAD)
def test_a_bad_limit_is_refused_in_one_line(tmp_path, capsys, option, value):
    assert main(["grade", "--quiet", "--submitted", str(tmp_path), option, value]) == 2
    error = capsys.readouterr().err
    assert error == f"error: {option} must be a whole number of {error.split(' of ', 1)[1]}"
    assert error.endswith(f"got {value!r}\n") and error.count("\n") == 1


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_limits_built_in_code_are_held_to_the_command_lines_ranges(tmp_path, name):
    setting = SETTINGS[name]
    for edge in (setting.low, setting.high):  # the command line's bounds, in its unit, are accepted ...
        options = GradeOptions(exercise=EXERCISE, submitted=tmp_path, limits=replace(LOWER, **{setting.field: edge * setting.scale}))
        assert getattr(options.limits, setting.field) == edge * setting.scale
    for outside in (setting.low * setting.scale - 1, (setting.high + 1) * setting.scale):  # ... one step beyond is not
        with pytest.raises(UsageError) as refused:
            GradeOptions(exercise=EXERCISE, submitted=tmp_path, limits=replace(LOWER, **{setting.field: outside}))
        message = str(refused.value)
        assert message.startswith(f"GradeOptions.limits.{setting.field} must be a number of {setting.unit} "
                                  f"from {setting.low} to {setting.high}, got "), message
        assert "\n" not in message


def test_a_limit_built_in_code_that_is_not_a_whole_number_is_refused(tmp_path):
    with pytest.raises(UsageError, match=r"^GradeOptions.limits.processes must be a whole number, got 2.5$"):
        GradeOptions(exercise=EXERCISE, submitted=tmp_path, limits=replace(LOWER, processes=2.5))  # type: ignore[arg-type]


@pytest.mark.parametrize(("option", "value"), BAD[:2])
def test_the_command_refuses_a_bad_limit_with_exit_code_2(tmp_path, option, value):
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--quiet", option, value], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {option} must be a whole number"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # one line, no traceback
    assert not (tmp_path / "graded").exists()


#: A cell that needs 400 MB (``bytes`` are written, so the pages are really used).
BALLAST = "ballast = b'x' * (400 * 1024 ** 2)\ndel ballast"


@pytest.mark.slow
def test_a_lowered_memory_limit_bites_where_the_default_does_not(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "heavy", extra=(BALLAST,))
    common = ("--sandbox", "auto", "--gradebook", "none", "--timeout", "5", "--workers", "1")
    lowered = grade(course, *common, "--out", "lowered", "--memory", "200", timeout=300)
    default = grade(course, *common, "--out", "default", timeout=300)
    assert lowered.returncode == 0 and default.returncode == 0, lowered.stderr + default.stderr
    errors = {out: [cell.get("error") for cell in results(course, out)["heavy"]["cells"]] for out in ("lowered", "default")}
    assert "MemoryError" in errors["lowered"], errors
    assert "MemoryError" not in errors["default"], errors
    assert results(course, "default")["heavy"]["score"] == EXERCISE.max_score


@pytest.mark.slow
def test_a_lowered_memory_limit_reaches_the_dask_workers(tmp_path):
    """The same submission as above, graded on a local Dask cluster: its workers get ``--memory`` too.

    The default limit lets this cell run (the test above); a worker that chose its sandbox with the
    default, not the coordinator's limits, would let it run here.
    """
    course = new_course(tmp_path / "course")
    add_student(course, "heavy", extra=(BALLAST,))
    add_student(course, "light")
    done = grade(course, "--sandbox", "auto", "--gradebook", "none", "--timeout", "5", "--processes", "1",
                 "--out", "dask", "--memory", "200", timeout=300)
    assert done.returncode == 0, done.stderr
    graded = results(course, "dask")
    assert "MemoryError" in [cell.get("error") for cell in graded["heavy"]["cells"]], graded["heavy"]["cells"]
    assert graded["light"]["score"] == EXERCISE.max_score  # the lowered limit is still enough to grade


def test_a_dask_job_is_graded_in_a_sandbox_with_the_coordinators_limits(tmp_path):
    coordinators = replace(LOWER, cpu_seconds=31)  # limits no other test asks for
    settings = GradingSettings(EXERCISE, 5.0, frozenset(), limits=coordinators)
    job = Job("ann", NotebookFile("ndcg.ipynb", b"{}", "0" * 64, (1, 2)), seed=b"s" * 32)
    answer = json.loads(grade_remote(RemoteJob(job, settings, str(tmp_path), "auto", code_digest())))
    assert answer["problem"] is None and answer["result"]["student_id"] == "ann"
    assert ("auto", coordinators) in worker._sandboxes  # the sandbox it graded in (chosen once, kept)


# ----- the submission's time budget: one setting, both paths, one default ----------------------------
def test_the_budget_reaches_both_grading_paths_and_the_resume_cache(tmp_path):
    from autograder.sandbox.runs.deadline import default_budget

    settings = GradingSettings(EXERCISE, 5.0, frozenset())
    assert settings.budget == default_budget(5.0) == max(60.0, 10 * 5.0)
    batch_limits = grade_options(parser().parse_args(["grade", "--submitted", str(tmp_path), "--budget", "30"])).limits
    nbgrader_limits = SandboxedExecute(config=Config({"SandboxedExecute": {"budget_seconds": 30}})).sandbox_limits(
        EXERCISE.limits
    )
    assert batch_limits == nbgrader_limits == replace(EXERCISE.limits, budget_seconds=30)
    assert replace(settings, limits=batch_limits).budget == 30.0
    assert grading_fingerprint(replace(settings, limits=batch_limits)) != grading_fingerprint(settings)


@pytest.mark.parametrize("value", ["0", "-5", "2.5", "soon", "1e9"])
def test_a_bad_budget_is_refused_in_one_line(tmp_path, capsys, value):
    assert main(["grade", "--quiet", "--submitted", str(tmp_path), "--budget", value]) == 2
    error = capsys.readouterr().err
    assert error == f"error: --budget must be a whole number of seconds from 1 to 86400, got {value!r}\n"
