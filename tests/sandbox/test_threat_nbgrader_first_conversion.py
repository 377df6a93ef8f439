"""Threat: nbgrader's first conversion stores the student's notebook as written, or reads her nbgrader ids.

``nbgrader autograde`` converts each notebook twice. The first conversion (the course's
``sanitize_preprocessors``) writes ``autograded/<student>/<assignment>/<notebook>.ipynb``; the
sandbox then runs for seconds in the second. The course's ``SanitiseNotebook`` ran only in the
second: while the sandbox ran, and for good when the process was killed then (``kill -9``, the OOM
killer), ``autograded/`` held the student's ``<img src=x onerror=…>`` as written, which the
formgrader's grading view runs in the tutor's session; and a later ``nbgrader autograde`` skipped
the student as already graded. Separately, a cell carrying an nbgrader ``grade_id`` the release
does not have stopped that student on nbgrader's path (``KeyError``, 0 points; the batch: full
marks) and nbgrader's ``OverwriteCells`` printed the id raw (ESC and CR forge a log line).

Must hold, with nbgrader's real ``autograde`` and the real sandbox: after a SIGKILL while the
hostile student's sandbox runs (or a SIGINT to nbgrader then), her stored notebook has nothing active in it (no markup tag, no
``javascript:`` link, no student metadata, no active output), and the next plain ``nbgrader
autograde`` grades her again, with the honest classmate's score, and the gradebook has no row for her
until then (nbgrader's own created one scoring 0 before the sandbox ran); a cell with a ``grade_id`` the
release lacks is graded as her own cell on both paths, with the same score, and nothing she chose
reaches nbgrader's log raw.

A re-grade of a resubmission (collected from a real exchange with a newer time) killed while her
sandbox runs: nbgrader wrote the new time before the sandbox and the grades after, so the
gradebook showed the earlier submission's 15/15 with the new time, which ``nbgrader export``
wrote and the formgrader counted as graded. Must hold: at no moment does the gradebook (read
through nbgrader's own API) or the course's export pair the earlier grading with the new time; the
export leaves the row's scores empty and says why; the next plain ``nbgrader autograde`` grades the
resubmission, with the score a classmate who submitted the same code gets, and its time.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbformat.v4 import new_code_cell
from nbgrader.api import Gradebook, MissingEntry

from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.course.notebook_cells.sanitise import RAW_UNTIL_LAST_PASS
from autograder.course.notebook_cells.unknown_cells import SHOWN_CHARS
from autograder.exercises.ndcg import EXERCISE
from autograder.output.safe_text import printable

from active_content import _markdown_vectors
from grading_run import CORRECT_DCG, add_student, generated_course, grade, notebook_path, results, stop_process_group

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
#: Sleeps in the sandbox, so that the test can kill nbgrader while her grading runs.
SLOW_CELL = "import time\ntime.sleep(3)"
#: A grade_id that draws a fake nbgrader log line if printed raw.
FORGED_ID = "\x1b[1A\x1b[2K\r[AutogradeApp | INFO] mallory: graded, 15 of 15 points\x1b[8m"
#: The course id of nbgrader_config.py, under which the exchange files submissions.
COURSE_ID = "ir-ranking-evaluation"
#: A first submission's time and a resubmission's, as ``nbgrader submit`` writes them into timestamp.txt.
FIRST_TIME, SECOND_TIME = "2026-12-01 10:00:00.000000 UTC", "2026-12-02 10:00:00.000000 UTC"
#: A DCG without its log discount: a wrong resubmission that still scores some points.
WRONG_DCG = '''def dcg(rels, k):
    return float(sum(rels[:k]))'''
#: Elements that run script or load a document.
ACTIVE_TAGS = frozenset({"script", "iframe", "svg", "object", "embed", "math", "style", "base", "form", "frame"})


class _ActiveHTML(HTMLParser):
    """The active elements and attributes of a page: script-capable tags, handlers, script or data links."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ACTIVE_TAGS:
            self.found.append(tag)
        for name, value in attrs:
            link = re.sub(r"[\x00-\x20]", "", value or "").lower()
            if name.startswith("on") or (name in ("href", "src", "action") and link.startswith(("javascript:", "data:"))):
                self.found.append(f"{tag} {name}")


def _active_html(page: str) -> list[str]:
    parser = _ActiveHTML()
    parser.feed(page)
    parser.close()
    return parser.found


#: Cell metadata nothing renders: nbgrader's, the release's read-only and hidden-source flags.
INERT_METADATA = frozenset({"nbgrader", "deletable", "editable", "jupyter"})
IMAGES = frozenset({"image/png", "image/jpeg", "image/gif"})


def _hostile(course: Path, student: str, extra: tuple[str, ...] = ()) -> Path:
    """An honest, fully right submission, plus every markdown/raw/metadata vector and ``extra`` cells."""
    path = add_student(course, student, extra=extra)
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[1:1] = _markdown_vectors(forged_metadata=True)
    nbformat.write(notebook, path)
    return path


def _rendered(text: str, cell: dict) -> str:
    """The markdown cell as nbconvert's HTML exporter renders it (its attachments inlined)."""
    renderer = IPythonRenderer(escape=False, attachments=cell.get("attachments") or {})
    return str(MarkdownWithMath(renderer=renderer).render(text))


def _active_parts(notebook: dict) -> list[str]:
    """What in a stored notebook could run in the formgrader (empty: inert)."""
    found = []
    for number, cell in enumerate(notebook["cells"]):
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown" and _active_html(_rendered(text, cell)):
            found.append(f"cell {number}: {text[:80]!r}")
        # a raw cell is shown verbatim unless it is plain text, which no HTML page shows (the first conversion's)
        hidden = cell["cell_type"] == "raw" and cell["metadata"].get("raw_mimetype") == RAW_UNTIL_LAST_PASS
        if cell["cell_type"] == "raw" and not hidden and ("raw_mimetype" in cell["metadata"] or "<" in text):
            found.append(f"cell {number}: {text[:80]!r}")
        if set(cell["metadata"]) - INERT_METADATA - ({"raw_mimetype"} if hidden else set()):  # tags and the like reach HTML attributes
            found.append(f"cell {number}: metadata {sorted(cell['metadata'])}")
        attached = {kind for bundle in (cell.get("attachments") or {}).values() for kind in bundle}
        if attached - IMAGES:
            found.append(f"cell {number}: attachments {sorted(attached)}")
        for output in cell.get("outputs", []):
            kinds = set(output.get("data", {})) - IMAGES - {"text/plain"}
            if kinds:
                found.append(f"cell {number}: output {sorted(kinds)}")
    if "widgets" in notebook["metadata"]:
        found.append("notebook metadata: widgets")
    return found


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "sigint"])
def test_autograde_killed_mid_sandbox_stores_nothing_active_and_grades_again(tmp_path: Path, stop: int) -> None:
    course = generated_course(tmp_path / "course")
    add_student(course, "alice")
    _hostile(course, "mallory", extra=(SLOW_CELL,))
    stored = course / "autograded" / "mallory" / EXERCISE.assignment / EXERCISE.notebook
    process = subprocess.Popen([str(NBGRADER), "autograde", EXERCISE.assignment], cwd=course,
                               env=tool_environment(), stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            # the second conversion of her notebook: the sandbox runs her slow cell now
            if "Autograding" in line and os.sep + "mallory" + os.sep in line:
                break
        else:
            pytest.fail("nbgrader never reached mallory's grading")
        time.sleep(1)
        assert stored.is_file(), "nbgrader's first conversion is stored before the sandbox runs"
        while_grading = json.loads(stored.read_text())
        rows_while_grading = gradebook_scores(course)
        # the test's own nbgrader, in its own session: kill -9 of the group; SIGINT to nbgrader alone
        if stop == signal.SIGKILL:
            os.killpg(process.pid, stop)
        else:
            os.kill(process.pid, stop)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            stop_process_group(process)
        process.stderr.close()
    assert _active_parts(while_grading) == []
    assert "mallory" not in rows_while_grading  # no row scoring 0 for work not graded yet
    assert "mallory" not in gradebook_scores(course)
    if stored.is_file():
        assert _active_parts(json.loads(stored.read_text())) == []
    again = subprocess.run([str(NBGRADER), "autograde", EXERCISE.assignment], cwd=course, env=tool_environment(),
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    if stop == signal.SIGKILL:  # nbgrader itself removes what a SIGINT interrupted
        assert "did not finish; graded again" in again.stderr
    scores = gradebook_scores(course)
    assert scores["alice"] == (EXERCISE.max_score, EXERCISE.max_score)
    assert scores["mallory"] == scores["alice"]  # her cells are right: the vectors cost her nothing
    assert _active_parts(json.loads(stored.read_text())) == []


def test_unknown_grade_id_is_her_own_cell_on_both_paths_and_never_raw_in_the_log(tmp_path: Path) -> None:
    course = generated_course(tmp_path / "course")
    add_student(course, "alice")
    path = add_student(course, "mallory")
    notebook = nbformat.read(path, as_version=4)
    for cell_id in (FORGED_ID, "my_notes"):
        cell = new_code_cell("x = 1")
        cell.metadata["nbgrader"] = {"grade_id": cell_id, "grade": False, "solution": True, "locked": False,
                                     "schema_version": 3}
        notebook.cells.append(cell)
    nbformat.write(notebook, notebook_path(course, "mallory"))
    run = subprocess.run([str(NBGRADER), "autograde", EXERCISE.assignment], cwd=course, env=tool_environment(),
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "\x1b" not in run.stderr and "\r" not in run.stderr
    assert run.stderr.count(printable(FORGED_ID[:SHOWN_CHARS])) == 1  # one line, the id escaped
    nbgrader_scores = gradebook_scores(course)
    batch = grade(course, "--gradebook", "none")
    assert batch.returncode == 0, batch.stderr[-3000:]
    batch_results = results(course)
    assert batch_results["mallory"]["score"] == EXERCISE.max_score
    assert nbgrader_scores["mallory"] == (batch_results["mallory"]["score"], EXERCISE.max_score)
    assert nbgrader_scores["alice"] == nbgrader_scores["mallory"]


def _submit(exchange: Path, student: str, stamp: str, dcg: str = CORRECT_DCG, extra: tuple[str, ...] = ()) -> None:
    """An inbound entry as ``nbgrader submit`` leaves it in the exchange: the notebook and its time."""
    inbound = exchange / COURSE_ID / "inbound"
    entry = inbound / f"{student}+{EXERCISE.assignment}+{stamp}+{abs(hash((student, stamp))) % 10**8}"
    notebook = add_student(exchange.parent / "scratch" / stamp[:10], student, dcg=dcg, extra=extra)
    inbound.mkdir(parents=True, exist_ok=True)
    shutil.move(notebook.parent, entry)
    (entry / "timestamp.txt").write_text(stamp)


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(NBGRADER), *args], cwd=course, env=tool_environment(), capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, (args, done.stderr[-3000:])
    return done


def _rows(course: Path) -> dict[str, tuple[datetime | None, float]]:
    """Each student's gradebook row for the assignment, read through nbgrader's own API: (time, score)."""
    rows = {}
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")  # SQLAlchemy's "not in session" noise
        for student in gradebook.students:
            try:
                submission = gradebook.find_submission(EXERCISE.assignment, student.id)
            except MissingEntry:
                continue
            rows[student.id] = (submission.timestamp, float(submission.score))
    return rows


def _exported(course: Path) -> tuple[dict[str, dict[str, str]], str]:
    """``nbgrader export``'s rows by student (the course's default exporter), and its log."""
    done = _nbgrader(course, "export", "--to", "export.csv")
    with (course / "export.csv").open(newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}, done.stderr


def _time(text: str) -> datetime:
    """A time in timestamp.txt's form, as nbgrader's gradebook stores it (UTC, naive)."""
    return datetime.fromisoformat(text.removesuffix(" UTC"))


def test_regrade_killed_mid_sandbox_never_shows_the_old_grades_with_the_new_time(tmp_path: Path) -> None:
    course = generated_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    for student in ("alice", "mallory"):
        _submit(exchange, student, FIRST_TIME)
    _nbgrader(course, "collect", EXERCISE.assignment, f"--Exchange.root={exchange}")
    _nbgrader(course, "autograde", EXERCISE.assignment)
    first = _rows(course)
    assert first["mallory"] == (_time(FIRST_TIME), EXERCISE.max_score)
    # mallory resubmits wrong code that sleeps in the sandbox; carol submits the same code once (the yardstick)
    _submit(exchange, "mallory", SECOND_TIME, dcg=WRONG_DCG, extra=(SLOW_CELL,))
    _submit(exchange, "carol", SECOND_TIME, dcg=WRONG_DCG)
    _nbgrader(course, "collect", "--update", EXERCISE.assignment, f"--Exchange.root={exchange}")
    old_grading = (_time(SECOND_TIME), EXERCISE.max_score)  # what must never be shown: her 15/15 at the new time

    process = subprocess.Popen([str(NBGRADER), "autograde", EXERCISE.assignment], cwd=course,
                               env=tool_environment(), stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if "Autograding" in line and os.sep + "mallory" + os.sep in line:  # her sandbox runs now
                break
        else:
            pytest.fail("nbgrader never reached mallory's re-grade")
        time.sleep(1)
        while_grading = _rows(course)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            stop_process_group(process)
        process.stderr.close()
    assert while_grading["mallory"] != old_grading
    killed = _rows(course)
    assert killed["mallory"] != old_grading
    assert killed["mallory"] == first["mallory"]  # the earlier grading, whole, with its own time
    exported, log = _exported(course)
    row = exported["mallory"]
    assert _time(row["timestamp"]) != _time(SECOND_TIME) or float(row["raw_score"] or 0) < EXERCISE.max_score
    assert row["raw_score"] == row["score"] == ""  # not the earlier submission's numbers: none
    assert "Not graded: mallory" in log and SECOND_TIME.removesuffix(".000000 UTC") in log
    assert exported["alice"]["raw_score"] != ""  # graded once, not resubmitted: exported as it is

    again = _nbgrader(course, "autograde", EXERCISE.assignment)
    assert "did not finish; graded again" in again.stderr
    regraded = _rows(course)
    assert regraded["carol"][1] < EXERCISE.max_score  # the wrong DCG loses points
    assert regraded["mallory"] == (_time(SECOND_TIME), regraded["carol"][1])
    exported, log = _exported(course)
    assert "Not graded" not in log
    assert _time(exported["mallory"]["timestamp"]) == _time(SECOND_TIME)
    assert float(exported["mallory"]["raw_score"]) == pytest.approx(regraded["carol"][1])
