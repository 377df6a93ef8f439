"""Threat: extra files of a submission reach the exchange through nbgrader's own commands.

A submission carries, beside its notebook, a link ``leak.html`` to an "instructor" canary file this
test created, a FIFO, a hard link to the canary, an extra regular file and a forged
``ndcg.grader.json`` (the name of the grader's own result, which the feedback page is written
from); a classmate's
``timestamp.txt`` is a FIFO. nbgrader's real commands run with the course's config: ``autograde``
→ ``generate_feedback`` → ``release_feedback`` into an exchange in a temporary folder, then the
kit's batch command and ``release_feedback`` again. Nothing but the notebook and nbgrader's two
small files reaches ``autograded/`` or ``feedback/``, no canary byte reaches the exchange, the
FIFO never blocks, and the tutor is told what was dropped (nbgrader's log, ``results.json``).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.materials.nbgrader_commands import tool_environment

from grading_run import add_student, generated_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
CANARY = "CANARY-INSTRUCTOR-d41d8cd98f"
EXTRA = "EXTRA-REGULAR-FILE-7c9e"
HONEST_TIME = "2026-11-30 10:15:00.000000 UTC"


def _nbgrader(course: Path, exchange: Path, *args: str) -> str:
    done = subprocess.run(
        [str(NBGRADER), *args, f"--Exchange.root={exchange}"], cwd=course, env=tool_environment(),
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, (args, done.stderr[-3000:])
    return done.stdout + done.stderr


def _collected(course: Path, student: str, timestamp: bool = True) -> Path:
    folder = add_student(course, student).parent
    if timestamp:
        (folder / "timestamp.txt").write_text(HONEST_TIME)
    (folder / "submission_secret.txt").write_text(f"secret-of-{student}")
    return folder


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("extra-files")
    # the release and gradebook as generate_assignment makes them, made once per test process (the
    # threat is what travels after it, not generate_assignment itself)
    course = generated_course(tmp / "course")
    exchange = tmp / "exchange"
    exchange.mkdir()
    canary = tmp / "instructor.ipynb"
    canary.write_text(CANARY)
    _collected(course, "alice")
    mallet = _collected(course, "mallet")
    os.symlink(canary, mallet / "leak.html")
    os.mkfifo(mallet / "pipe.html")
    os.link(canary, mallet / "hard.html")
    (mallet / "notes.html").write_text(EXTRA)
    # a forged grader's result where the kit keeps its own: the page must never be written from it
    (mallet / "ndcg.grader.json").write_text('{"format": 1, "show_solution": true, "result": "' + EXTRA + '"}')
    os.mkfifo(_collected(course, "fifo_stamp", timestamp=False) / "timestamp.txt")

    logs = [_nbgrader(course, exchange, "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5")]
    logs.append(_nbgrader(course, exchange, "generate_feedback", "ndcg", "--force"))
    logs.append(_nbgrader(course, exchange, "release_feedback", "ndcg"))
    nbgrader_state = _tree(course, exchange)
    graded = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--quiet", "--timeout", "5"], cwd=course,
        env=tool_environment(), capture_output=True, text=True, timeout=600,
    )
    assert graded.returncode == 0, graded.stderr[-3000:]
    logs.append(_nbgrader(course, exchange, "release_feedback", "ndcg"))
    return course, exchange, "\n".join(logs), nbgrader_state


def _tree(course: Path, exchange: Path) -> dict[str, dict[str, tuple[int, bytes]]]:
    """Every entry below autograded/, feedback/ and the exchange: its mode and, for a regular file, its bytes."""
    found = {}
    for top in (course / "autograded", course / "feedback", exchange):
        entries = {}
        for path in sorted(top.rglob("*")):
            info = path.lstat()
            entries[str(path.relative_to(top))] = (
                info.st_mode, path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
            )
        found[top.name] = entries
    return found


@pytest.mark.parametrize("stage", ["nbgrader", "after the batch command"])
def test_only_the_notebook_and_nbgraders_files_travel(cycle, stage):
    course, exchange, _, nbgrader_state = cycle
    state = nbgrader_state if stage == "nbgrader" else _tree(course, exchange)
    for student in ("alice", "mallet"):
        assert {name for name in state["autograded"] if name.startswith(f"{student}/ndcg/")} == {
            # the grader's result, which the feedback page is written from, stays in autograded/
            f"{student}/ndcg/{name}" for name in ("ndcg.ipynb", "ndcg.grader.json", "timestamp.txt",
                                                  "submission_secret.txt")
        }
        assert {name for name in state["feedback"] if name.startswith(f"{student}/ndcg/")} == {
            f"{student}/ndcg/{name}" for name in ("ndcg.html", "timestamp.txt", "submission_secret.txt")
        }
    for top, entries in state.items():
        for name, (mode, data) in entries.items():
            assert stat.S_ISREG(mode) or stat.S_ISDIR(mode), (top, name)  # no link, FIFO or device
            assert CANARY.encode() not in data and EXTRA.encode() not in data, (top, name)


def test_the_exchange_holds_one_page_per_graded_student(cycle):
    exchange = cycle[1]
    pages = sorted(exchange.rglob("*.html"))
    assert len(pages) == 3, pages  # alice, mallet, fifo_stamp: their ndcg.html, nothing else
    assert all("Feedback on ndcg" in page.read_text(encoding="utf-8") for page in pages)  # the batch's pages


def test_the_tutor_is_told_what_was_dropped(cycle):
    course, _, log, _ = cycle
    line = next(line for line in log.splitlines() if "Not copied from" in line and "mallet" in line)
    for words in ("leak.html (a link)", "pipe.html (not a regular file", "hard.html (not part of the assignment)",
                  "notes.html (not part of the assignment)"):
        assert words in line
    assert "timestamp unknown" in log and "fifo_stamp" in log
    results = {s["student_id"]: s for s in json.loads((course / "graded" / "results.json").read_text())["students"]}
    warned = " ".join(results["mallet"]["warnings"])
    assert "not copied: hard.html (not part of the assignment), leak.html (a link)" in warned
    assert any(w.startswith("timestamp unknown: timestamp.txt is not a regular file")
               for w in results["fifo_stamp"]["warnings"])


def test_nbgraders_apps_use_the_course_converters(cycle):
    """If an nbgrader upgrade moves the names install() rebinds, this fails instead of copying links again."""
    from traitlets.config import PyFileConfigLoader

    from autograder.course.autograde.converters import CourseAutograde, CourseGenerateFeedback

    PyFileConfigLoader("nbgrader_config.py", path=str(cycle[0])).load_config()
    from nbgrader.apps import api, autogradeapp, generatefeedbackapp

    assert autogradeapp.Autograde is CourseAutograde and api.Autograde is CourseAutograde
    assert generatefeedbackapp.GenerateFeedback is CourseGenerateFeedback and api.GenerateFeedback is CourseGenerateFeedback
