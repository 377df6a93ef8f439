"""An honest result does not depend on the machine's load; where the grader must give up, it says so.

At a load of 39 on 2 cores an honest notebook with many ``%time`` lines once got a timeout: its
three sandboxed runs took longer than the submission's wall-clock budget, although they used
only a few seconds of CPU time. Time limits are now charged without the time the sandbox waited
for a CPU (:mod:`autograder.sandbox.runs.deadline`); when the machine makes a sandbox wait beyond
``OVERLOAD_FACTOR`` times a limit, the student is left ungraded with a message saying the
machine was overloaded — never given a 0. The busy processes here are the test's own, end by
themselves after two minutes and are killed at the end; nothing here is hostile.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.course.notebook_cells.generated_cells import skipped_cell_ids
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import GradingSettings, Status, grade_batch
from autograder.grading.reading.notebook import read_notebook, release_sources
from autograder.grading.submission import grade_submission
from autograder.sandbox import MachineOverloaded, choose_sandbox
from autograder.sandbox.runs import deadline
from autograder.sandbox.runs.deadline import OVERLOAD_FACTOR, Budget, ItemClock, backstop

from grading_run import add_student, needs_bwrap, needs_cgroups, new_course, notebook_path

#: Three cells of 150 ``%time`` lines each: IPython in the sandbox, three runs of about 1.3 s of CPU time each.
TIME_MAGICS = "\n".join(f"%time x{i} = {i}" for i in range(150))
TIME_CELLS = 3
TIMEOUT = 2.0


# ---------------------------------------------------------------- the clock (fast, no sandbox)


class _Machine:
    """A wall clock, the sandbox's CPU time and its runner's waiting for a CPU, moved by the test."""

    def __init__(self) -> None:
        self.wall = self.cpu = self.waited = 0.0

    def clock(self, budget: float | Budget = 100.0) -> ItemClock:
        return ItemClock(lambda: self.cpu, budget, lambda: {1: self.waited}, now=lambda: self.wall)

    def advance(self, wall: float, cpu: float = 0.0, waited: float = 0.0) -> None:
        self.wall += wall
        self.cpu += cpu
        self.waited += waited


def test_code_that_sleeps_still_times_out_at_the_backstop():
    machine = _Machine()
    clock = machine.clock()
    clock.start(TIMEOUT)
    machine.advance(backstop(TIMEOUT) - 0.1)  # asleep: no CPU, no waiting for one
    assert clock.overrun() is None
    machine.advance(0.1)
    assert clock.overrun() == "timeout" and clock.detail == f"no answer within {backstop(TIMEOUT):g} s"


def test_waiting_for_a_cpu_is_not_charged_and_ends_as_overloaded():
    machine = _Machine()
    clock = machine.clock()
    clock.start(TIMEOUT)
    limit = backstop(TIMEOUT)
    # ready to run all along but given a CPU 0.5% of the time: far beyond the backstop, no timeout
    for _ in range(int(OVERLOAD_FACTOR * limit) - 1):
        machine.advance(1.0, cpu=0.005, waited=0.995)
        assert clock.overrun() is None, clock.detail
    machine.advance(1.0, cpu=0.005, waited=0.995)
    assert clock.overrun() == "overloaded"
    assert "not graded: the machine was overloaded" in clock.detail and "CPU time" in clock.detail
    assert clock.charged() == pytest.approx(OVERLOAD_FACTOR * limit * 0.005)


def test_cpu_time_is_judged_whatever_the_waiting():
    machine = _Machine()
    clock = machine.clock()
    clock.start(TIMEOUT)
    machine.advance(10.0, cpu=TIMEOUT, waited=8.0)
    assert clock.overrun() == "timeout" and "CPU time" in clock.detail


def test_the_budget_counts_charged_seconds_over_every_run():
    machine = _Machine()
    budget = Budget(10.0, give_up=OVERLOAD_FACTOR * 10.0)
    first = machine.clock(budget)
    first.start(TIMEOUT)
    machine.advance(30.0, cpu=1.0, waited=24.0)  # 6 s charged, the rest was the machine's
    assert first.overrun() is None
    budget.spent += first.charged()
    assert budget.left == pytest.approx(4.0)
    second = machine.clock(budget)
    second.start(TIMEOUT)
    machine.advance(4.0, cpu=1.0)
    assert second.overrun() == "budget"


# ---------------------------------------------------------------- real sandboxes


@pytest.fixture
def ten_busy_processes():
    """Ten busy programs outside the grader, each in its own session; each ends by itself after two minutes."""
    spin = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end:\n    pass"
    processes = [subprocess.Popen([sys.executable, "-c", spin], start_new_session=True) for _ in range(10)]
    yield
    for process in processes:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class _ShortBudget(GradingSettings):
    """A submission budget of 12 s instead of 60 s: the notebook below uses about a third of it idle (in
    charged seconds), and beside ten busy processes on two cores its three runs take longer than that on
    the wall clock (the test checks that they did; before the fix: status timeout)."""

    @property
    def budget(self) -> float:
        return 12.0


def _settings(course: Path) -> GradingSettings:
    """The batch command's settings for ``course``'s release (its skipped cells and Task 1.2's salt), on a short budget."""
    release = course / "release" / ASSIGNMENT / NOTEBOOK
    answered = EXERCISE.answered
    return _ShortBudget(EXERCISE, TIMEOUT, skipped_cell_ids(EXERCISE, release),
                        published=release_sources(release, answered.published_ids) if answered else ())


def _grade_one(course: Path, student: str, settings: GradingSettings) -> dict[str, object]:
    file = read_notebook(
        course / "submitted", student, EXERCISE.assignment, EXERCISE.notebook, max_bytes=settings.max_notebook_bytes
    )
    return grade_submission(student, file, course / "submitted", settings, choose_sandbox("required")).to_json()


@pytest.fixture
def time_magics_course(tmp_path) -> Path:
    course = new_course(tmp_path / "course")
    add_student(course, "time_magics", extra=(TIME_MAGICS,) * TIME_CELLS)
    return course


# ten busy programs on two cores on purpose: make test runs it alone, never beside another pytest
# worker (whose honest sandboxes the load would make wait, and which would add to it); the overload
# tests below force "overloaded" with a tiny factor, whatever the load
@pytest.mark.serial
@pytest.mark.slow
@needs_bwrap
@needs_cgroups
def test_time_magics_get_the_same_result_idle_and_beside_ten_busy_processes(time_magics_course, request):
    settings = _settings(time_magics_course)
    idle = _grade_one(time_magics_course, "time_magics", settings)
    assert (idle["status"], idle["score"]) == ("graded", EXERCISE.max_score), idle["message"]
    request.getfixturevalue("ten_busy_processes")
    started = time.monotonic()
    loaded = _grade_one(time_magics_course, "time_magics", settings)
    waited = time.monotonic() - started
    assert loaded == idle
    # the test proves something only if the load made the runs outlast the budget on the wall clock
    assert waited > settings.budget, f"the loaded runs took {waited:.1f} s, within the {settings.budget:g} s budget"


@pytest.mark.slow
@needs_bwrap
def test_an_overloaded_run_leaves_the_student_ungraded_and_the_next_run_grades_them(
    time_magics_course, tmp_path, monkeypatch
):
    settings = _settings(time_magics_course)
    sandbox = choose_sandbox("required")
    out = tmp_path / "out"
    # a wall-clock limit far below what starting a sandbox takes, with next to no CPU used: as if the
    # machine never gave the sandbox a CPU (no sleeping code: the notebook is honest)
    monkeypatch.setattr(deadline, "OVERLOAD_FACTOR", 1e-4)
    [result] = grade_batch(time_magics_course / "submitted", out, settings, sandbox, workers=1, progress=False)
    assert result.status is Status.NOT_GRADED and not result.counted and result.tests == []
    assert result.message.startswith("not graded: the machine was overloaded"), result.message
    monkeypatch.setattr(deadline, "OVERLOAD_FACTOR", OVERLOAD_FACTOR)
    [result] = grade_batch(time_magics_course / "submitted", out, settings, sandbox, workers=1, progress=False)
    assert (result.status, result.score) == (Status.GRADED, EXERCISE.max_score), result.message


@pytest.mark.slow
@needs_bwrap
def test_nbgrader_reports_an_overloaded_run_as_a_failure_not_a_zero(time_magics_course, monkeypatch):
    from nbconvert.exporters.exporter import ResourcesDict

    from autograder.course.autograde.preprocessor import SandboxedExecute

    notebook = nbformat.read(notebook_path(time_magics_course, "time_magics"), as_version=4)
    resources = ResourcesDict(nbgrader={"assignment": ASSIGNMENT, "student": "time_magics"})
    monkeypatch.setattr(deadline, "OVERLOAD_FACTOR", 1e-4)
    with pytest.raises(MachineOverloaded, match="the machine was overloaded"):
        SandboxedExecute(timeout=TIMEOUT, sandbox="required").preprocess(notebook, resources)
