"""Hostile submissions against the batch's time: one student must not hold a worker for long.

A notebook whose first cell started 60 busy children, every call sleeping under the timeout, was
still being graded after a quarter of an hour (its runner waited beside its own children, and the
waiting was taken for the machine's load). Every submission now has a budget of charged seconds
for its whole grading (``--budget``, ``c.SandboxedExecute.budget_seconds``; docs/security.md):
a run is charged at least its CPU time over its CPU share, so busy children use the budget up as
on an idle machine. Three shapes, graded beside honest students through the real sandbox on both
grading paths: slow on every call, busy children beside itself, a cell that hangs. Each costs the
batch about the budget, honest students keep full marks, and the hostile ones score 0 on every
test their budget did not reach, told so in their terms. The busy children are the submission's
own, inside its sandbox, and die with it.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import replace

import pytest

from autograder.course.materials.nbgrader_commands import gradebook_scores, run_nbgrader
from autograder.exercises.ndcg import EXERCISE
from autograder.grading import batch
from autograder.grading.submission import OUT_OF_TIME
from autograder.pipeline import GradeOptions, grade_course
from autograder.sandbox.runs.progress import budget_note

from grading_run import CORRECT_DCG, add_student, generated_course, needs_cgroups

pytestmark = [
    pytest.mark.slow,
    # the budget is judged on the wall clock, less what the machine made the sandbox wait: run alone
    pytest.mark.serial,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
    needs_cgroups,
]

#: Seconds of CPU time per cell and call, and of the budget for each submission: small, so that the
#: hostile ones take seconds (honest ones are charged about a second here in all).
TIMEOUT = 1.0
BUDGET = 10
#: How long a hostile submission may hold its worker, over the budget on a machine of full speed: twice,
#: for starting and ending each run (not charged) and the grader's own work. On a machine shared with
#: other work a sandbox of busy children gets only part of its CPU share, and the rest is the machine's
#: load, not charged (:func:`_machine_speed`); before the fix such a sandbox ran to OVERLOAD_FACTOR x
#: the budget and was left "not graded", to be graded again at every run.
MARGIN = 2.0
SLACK = 10.0

HONEST = ("alice", "bob")
#: Every call sleeps just under the timeout: no call times out, the budget must end it.
SLOW = CORRECT_DCG.replace("def dcg(rels, k):\n", f"def dcg(rels, k):\n    import time\n    time.sleep({0.9 * TIMEOUT})\n")
#: The first cell starts 60 children that keep busy (after the cell has reported) beside the sleeping calls.
SPINNERS = """import os
for _ in range(60):
    if os.fork() == 0:
        import time
        time.sleep(0.5)
        while True:
            pass
"""
HOSTILE = {
    "slow": {"dcg": SLOW},
    "spinner": {"dcg": SLOW, "extra": (SPINNERS,)},
    "hang": {"extra": ("import time\ntime.sleep(10**6)",)},
}
CODE_GROUPS = frozenset(group.grade_id for group in EXERCISE.groups)


def _machine_speed() -> float:
    """The share of a CPU a busy loop of this process gets over half a second (1.0 on an idle machine).

    Other work on the machine (other users' processes, other virtual machines on the same cores)
    slows every sandbox alike; the grader charges a sandbox only what it was given.
    """
    wall, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - wall < 0.5:
        pass
    return min(1.0, max(0.05, (time.process_time() - cpu) / (time.monotonic() - wall)))


def _cost(speed: float) -> float:
    """The longest a hostile submission may hold its worker on a machine of ``speed`` (see :data:`MARGIN`)."""
    return MARGIN * BUDGET / speed + SLACK


def _course(path):
    course = generated_course(path)
    for student in HONEST:
        add_student(course, student)
    for student, parts in HOSTILE.items():
        add_student(course, student, **parts)
    return course


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory, request):
    course = _course(tmp_path_factory.mktemp("budget-batch") / "course")
    took: dict[str, float] = {}
    real = batch.grade_submission

    def timed(student_id, *args, **kwargs):
        started = time.monotonic()
        try:
            return real(student_id, *args, **kwargs)
        finally:
            took[student_id] = time.monotonic() - started

    speed = _machine_speed()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "grade_submission", timed)  # the real grading, timed per student
        run = grade_course(GradeOptions(
            exercise=EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2, timeout=TIMEOUT,
            limits=replace(EXERCISE.limits, budget_seconds=BUDGET), gradebook="none", progress=False, course_root=course,
        ))
    speed = min(speed, _machine_speed())
    return course, {student.student_id: student for student in run.batch.students}, took, speed


def test_honest_students_keep_full_marks(batch_run):
    _, students, *_ = batch_run
    for name in HONEST:
        assert (students[name].status.value, students[name].score) == ("graded", EXERCISE.max_score), name


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_submission_costs_the_batch_about_its_budget(batch_run, name):
    _, students, took, speed = batch_run
    assert took[name] <= _cost(speed), f"{name} held its worker {took[name]:.1f} s on a budget of {BUDGET} s " \
        f"(a busy loop got {speed:.2f} of a CPU)"
    assert students[name].status.value == "timeout", students[name].message


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_tests_a_budget_did_not_reach_score_0_and_the_student_is_told(batch_run, name):
    _, students, *_ = batch_run
    student = students[name]
    assert f"time budget of {BUDGET} s" in student.message and "every code test scores 0" in student.message, student.message
    code = [test for test in student.tests if test.name in CODE_GROUPS]
    assert code and all(test.points == 0 for test in code), [(t.name, t.message) for t in code]
    # the by-hand part runs nothing: its answers are marked as any honest student's
    by_hand = [test for test in student.tests if test.name not in CODE_GROUPS]
    assert by_hand and student.score == sum(test.max_points for test in by_hand) == sum(t.points for t in by_hand)
    # every code test, also one that had run: where the time ran out depends on the machine's speed
    assert all(test.message == OUT_OF_TIME for test in code), [t.message for t in code]


def test_a_cell_the_budget_stopped_is_not_said_to_have_timed_out(batch_run):
    _, students, *_ = batch_run
    message = students["hang"].message
    assert "was still running when the notebook's time budget ran out" in message, message
    assert f"did not finish within {TIMEOUT:g} s" not in message, message


def test_the_note_is_the_students_terms_not_the_graders():
    note = budget_note(BUDGET)
    assert "charged" not in note and "sandbox" not in note and "runner" not in note


@pytest.fixture(scope="module")
def nbgrader_run(tmp_path_factory):
    course = _course(tmp_path_factory.mktemp("budget-nbgrader") / "course")
    speed = _machine_speed()
    started = time.monotonic()
    log = run_nbgrader(course, "autograde", "ndcg", "--force", f"--SandboxedExecute.timeout={TIMEOUT:g}",
                       f"--SandboxedExecute.budget_seconds={BUDGET}")
    wall = time.monotonic() - started
    return course, log, wall, min(speed, _machine_speed())


def test_nbgrader_autograde_gives_the_same_scores_within_the_same_budget(batch_run, nbgrader_run):
    _, students, took, _ = batch_run
    course, log, wall, speed = nbgrader_run
    scores = gradebook_scores(course)
    assert scores == {name: (student.score, student.max_score) for name, student in students.items()}
    for name in HOSTILE:
        assert f"{name}: timeout" in log, log[-3000:]
    # one student after the other: each hostile one within its cost, the honest ones as long as in the batch
    assert wall <= len(HOSTILE) * _cost(speed) + sum(took[name] for name in HONEST) + 30.0, (wall, speed)


def test_forked_worker_processes_keep_the_same_budget(batch_run, tmp_path):
    course, students, took, speed = batch_run
    started = time.monotonic()
    run = grade_course(GradeOptions(
        exercise=EXERCISE, submitted=course / "submitted", out=tmp_path / "processes", workers=2, timeout=TIMEOUT,
        limits=replace(EXERCISE.limits, budget_seconds=BUDGET), gradebook="none", progress=False, process_class=1, course_root=course,
    ))
    wall = time.monotonic() - started
    forked = {student.student_id: (student.status, student.score) for student in run.batch.students}
    assert forked == {name: (student.status, student.score) for name, student in students.items()}
    # two workers: the three hostile students take at most two costs one after the other
    assert wall <= 2 * _cost(min(speed, _machine_speed())) + sum(took[name] for name in HONEST) + 30.0, wall
