"""Grading gives the same result wherever the kit and its venv live.

A kit cloned into a ``mktemp -d`` folder under /tmp once graded an honest notebook that uses
``%matplotlib inline`` with "No module named 'IPython'" on both paths: each warm run's fresh
``/tmp`` (zygote.py) hid the venv that bubblewrap had bound there, and the cold preflight passed.
Here this environment is bound (in a mount namespace of its own, :mod:`install_location`) under
/tmp, /var/tmp, /dev/shm, /opt and the sandbox's own home, each time inside a folder of mode
0700 and below a name with a space, and honest notebooks that use magics, matplotlib, numpy and
IPython must get full marks warm and cold, from ``python -m autograder grade`` and from
``nbgrader autograde``. A warm path that loses the environment must be caught by the preflight,
before any student, and the grading go on cold.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.sandbox import Limits
from autograder.sandbox.isolation import choice
from autograder.sandbox.isolation.bubblewrap import Bubblewrap
from autograder.sandbox.isolation.warm_check import warm_problem
from autograder.sandbox.isolation.zygotes import COLD_VARIABLE
from autograder.sandbox.resources.cgroups import detect
from autograder.sandbox.runs.execution import run_submission
from autograder.sandbox.runs.protocol import CellOutcome

from grading_run import add_student, generated_course, needs_bwrap, needs_cgroups, new_course, results
from install_location import PLACES, kit_elsewhere

pytestmark = [pytest.mark.slow, needs_bwrap]

#: An honest notebook's own cells: magics, a figure, IPython's display; its solution needs what they define.
MAGIC_CELLS = (
    "%matplotlib inline\nimport matplotlib.pyplot as plt\nimport numpy as np\nfrom IPython.display import display",
    "%time LOG_OFFSET = 2",
    "fig, ax = plt.subplots()\nax.plot(np.arange(5), np.arange(5) ** 2)\ndisplay(fig)\nplt.close(fig)",
)
MAGIC_DCG = '''def dcg(rels, k):
    return float(sum(rel / np.log2(i + LOG_OFFSET) for i, rel in enumerate(rels[:k])))'''
WARM_OFF = "warm starts are off"


def _grade_batch(name: str, course: Path, *, cold: bool) -> dict:
    with kit_elsewhere(name) as kit:
        done = kit.run(["python", "-m", "autograder", "grade", "--gradebook", "none", "--sandbox", "required"],
                       cwd=course, env={COLD_VARIABLE: "1"} if cold else {})
    assert done.returncode == 0, done.stderr[-3000:]
    assert WARM_OFF not in done.stderr, done.stderr[-3000:]  # the warm path itself graded (or was never on)
    return results(course)["alice"]


def _assert_full_marks(record: dict) -> None:
    assert (record["status"], record["score"]) == ("graded", EXERCISE.max_score), record["message"]
    assert "raised" not in record["message"], record["message"]


@needs_cgroups
@pytest.mark.parametrize("name", sorted(PLACES))
def test_an_honest_notebook_with_magics_gets_full_marks_warm(tmp_path, name):
    course = new_course(tmp_path / "course")
    add_student(course, "alice", dcg=MAGIC_DCG, extra=MAGIC_CELLS)
    _assert_full_marks(_grade_batch(name, course, cold=False))


@pytest.mark.parametrize("name", ["tmp", "sandbox-home"])
def test_an_honest_notebook_with_magics_gets_full_marks_cold(tmp_path, name):
    course = new_course(tmp_path / "course")
    add_student(course, "alice", dcg=MAGIC_DCG, extra=MAGIC_CELLS)
    _assert_full_marks(_grade_batch(name, course, cold=True))


@pytest.mark.parametrize("name", ["tmp", "sandbox-home"])
def test_nbgrader_autograde_gives_full_marks(tmp_path, name):
    from nbgrader.api import Gradebook

    course = generated_course(tmp_path / "course")
    add_student(course, "alice", dcg=MAGIC_DCG, extra=MAGIC_CELLS)
    with kit_elsewhere(name) as kit:
        done = kit.run(["python", "-m", "nbgrader", "autograde", "ndcg", "--force",
                        "--SandboxedExecute.sandbox=required"], cwd=course)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert WARM_OFF not in log and "No module named" not in log, log[-3000:]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_submission("ndcg", "alice").score == EXERCISE.max_score


# ---------------------------------------------------------------- a warm path that lost the environment


class _WarmRunsLoseIPython(Bubblewrap):
    """bubblewrap whose zygotes (only) see an empty IPython folder: warm runs break as under /tmp before the fix."""

    def _zygote_command(self, control_fd: int) -> tuple[list[str], tuple[int, ...]]:
        import IPython

        argv, fds = super()._zygote_command(control_fd)
        cut = argv.index("--")
        return [*argv[:cut], "--tmpfs", str(Path(IPython.__file__).parent), *argv[cut:]], fds


@needs_cgroups
def test_the_warm_check_passes_where_warm_runs_work():
    sandbox = Bubblewrap(str(shutil.which("bwrap")), Limits(), detect(Limits()))
    try:
        assert sandbox.zygotes is not None
        assert warm_problem(sandbox) is None
    finally:
        sandbox.close()


@needs_cgroups
def test_a_broken_warm_path_is_caught_before_any_student_and_runs_start_cold(monkeypatch):
    monkeypatch.setattr(choice, "Bubblewrap", _WarmRunsLoseIPython)
    sandbox = choice.choose_sandbox("required")
    try:
        assert isinstance(sandbox, _WarmRunsLoseIPython) and sandbox.zygotes is None
        warnings = [line for line in (sandbox.resource_warning or "").splitlines() if WARM_OFF in line]
        assert len(warnings) == 1 and "No module named 'IPython" in warnings[0], sandbox.resource_warning
        outcome = run_submission(sandbox, ["%matplotlib inline\nimport numpy as np"], [], timeout=60, budget=120)
        assert outcome.fatal is None and outcome.cells[0].outcome is CellOutcome.OK, outcome
    finally:
        sandbox.close()

