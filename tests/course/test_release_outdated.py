"""After a release, the tutor is told when the exchange still hands students the earlier one (issue 33.8).

nbgrader's ``release_assignment`` does not replace what is in the exchange without ``--force``; ``make
release`` regenerates ``release/`` only. The command says what is out of date and the one command that
updates it, and that command really makes the exchange hand out the new release.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK, run_nbgrader
from autograder.course.materials.outbound import outbound_state

from grading_run import ROOT, generated_course

pytestmark = pytest.mark.slow


def _command(note: str) -> list[str]:
    found = re.search(r"run `(nbgrader [^`]+)`", note)
    assert found, note
    return shlex.split(found.group(1))


def test_a_new_release_names_the_stale_exchange_and_the_command_that_updates_it(tmp_path):
    course = generated_course(tmp_path / "course")
    assert "not in the exchange yet" in outbound_state(course, ASSIGNMENT).note()
    run_nbgrader(course, "release_assignment", ASSIGNMENT)
    assert outbound_state(course, ASSIGNMENT).note() == ""  # the exchange holds this release
    # a tutor changes the notebook mid-semester and releases again, as the guide says
    source = course / "source" / ASSIGNMENT / NOTEBOOK
    notebook = nbformat.read(source, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("A hint added mid-semester."))
    nbformat.write(notebook, source)
    done = subprocess.run([sys.executable, "-m", "autograder", "release", "--allow-readable-course"], cwd=course,
                          env={"PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "release/ regenerated" in done.stdout
    assert f"the exchange still hands students the earlier {ASSIGNMENT} ({NOTEBOOK} changed)" in done.stdout
    command = _command(done.stdout)
    assert command == ["nbgrader", "release_assignment", ASSIGNMENT, "--force"]
    run_nbgrader(course, *command[1:])  # the command the note names
    assert outbound_state(course, ASSIGNMENT).changed == ()
    outbound = outbound_state(course, ASSIGNMENT).outbound / NOTEBOOK
    assert "A hint added mid-semester." in outbound.read_text(encoding="utf-8")
