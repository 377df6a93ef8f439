"""Every command of README.md and docs/tutor-guide.md, run as written against a scratch course.

Each document gets a course of its own (a copy of the repository's course files, sharing its
``.venv``), with its default exchange ``exchange/`` inside, a tutor's home and two students with
homes of their own, and runs its steps in order (the convention: :mod:`doc_commands`). The tutor's
commands run in the course directory; a student's in their home, after the tutor "hands out" the
settings file that ``python -m autograder student-config`` wrote. What the test adds, and only
this: the student's work (the example solution written into the fetched notebook) and the
student's login (``c.CourseDirectory.student_id`` in their settings file: every simulated
student runs under the tester's one account, from which nbgrader would otherwise take the id).
Every command must exit 0 without nbgrader's old noise; afterwards the students hold their
feedback, and ``make clean`` has kept their work.
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from doc_commands import DOCUMENTS, LONG_RUNNING, NOT_RUN, ROOT, Document, Step, command_of, read_document

from autograder.course.materials.example_notebooks import write_submission

from grading_run import stop_process_group, whole_course

#: The simulated students and their example solutions (examples/submissions/): the roster's ids.
STUDENTS = {"alice": "alice.py", "bob": "bob.py"}
#: What the tutor hands out to every student, copied from the course folder into each home (the guide's
#: "What students do": the settings file and the course's versions).
HANDED_OUT = ("student_nbgrader_config.py", "constraints.txt")
#: What nbgrader printed before the course's configuration silenced it; none of it may come back.
NOISE = (
    "is not absolute", "Attribute 'checksum'", "No course id specified", "exchange directory",
    "SAWarning", "Traceback (most recent call last)",
)
VENV = Path(sys.prefix)
pytestmark = pytest.mark.cold_start  # every command as a tutor types it: a new process, imports and all


# --- the convention, checked without running anything ---------------------------------------------

@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_block_says_what_it_is(name):
    assert read_document(name).unmarked_blocks == (), f"{name}: fenced blocks without a language at these lines"


def test_every_command_not_run_is_in_the_docs():
    used = set().union(*(read_document(name).not_run for name in DOCUMENTS))
    assert set(NOT_RUN) - used == set(), "NOT_RUN lists commands the docs no longer hold: remove them"


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_command_span_runs_or_is_listed(name):
    document = read_document(name)
    run = {command_of(step.text) for step in document.steps if step.kind != "file"}
    escaped = [span for span in document.spans if span not in run and span not in NOT_RUN]
    assert escaped == [], f"{name}: commands neither run nor listed in NOT_RUN"


@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_document_runs_the_whole_cycle(name):
    commands = [command_of(step.text) for step in read_document(name).steps]
    for needed in ("nbgrader release_assignment ndcg", "nbgrader fetch_assignment ndcg", "nbgrader submit ndcg",
                   "nbgrader collect ndcg", "nbgrader fetch_feedback ndcg", "make formgrader"):
        assert needed in commands, f"{name} no longer runs {needed!r}"


@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_document_says_how_students_on_the_tutors_account_submit(name):
    """Tried on one account, a plain ``nbgrader submit`` files every student under the tutor's login (the walk
    graded ``root`` and listed alice and bob as missing): each document that has students submit says how."""
    assert "nbgrader submit ndcg --student alice" in read_document(name).spans, name


# --- running them -------------------------------------------------------------------------------

def scratch_course(path: Path) -> Path:
    """A copy of the course's files; the Makefile's venv and its inputs are the repository's."""
    course = whole_course(path)
    # the copy keeps the config's time: make would otherwise find .venv older than its input and the
    # test would skip on every fresh clone (it did, in CI)
    shutil.copystat(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copy(ROOT / "Makefile", course)
    for name in ("pyproject.toml", "constraints.txt"):
        (course / name).symlink_to(ROOT / name)
    (course / ".venv").symlink_to(VENV)
    (course / "docs").mkdir()
    return course


def environment(home: Path, user: str) -> dict[str, str]:
    """A login's environment: its own HOME (so its ~/.jupyter), the venv's tools first on PATH."""
    home.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("JUPYTER", "NBGRADER", "MAKE", "MFLAGS", "PYTHONPATH"))}
    env.update(HOME=str(home), USER=user, LOGNAME=user, PATH=f"{VENV / 'bin'}{os.pathsep}{env['PATH']}",
               BROWSER="true")  # `jupyter lab` opens no browser window
    return env


def where(document: Document, step: Step) -> str:
    return f"{document.name}:{step.line}: {step.text}"


def run(document: Document, step: Step, cwd: Path, env: dict[str, str]) -> str:
    if command_of(step.text).split()[0] in ("pip", "pip3", "uv"):
        # the scratch course shares the repository's .venv: an install from here would repoint it
        pytest.fail(f"{where(document, step)}: an install command; list it in NOT_RUN with the reason")
    done = subprocess.run(["bash", "-c", step.text], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{where(document, step)} failed (exit {done.returncode}):\n{output[-3000:]}"
    noise = [line for line in output.splitlines() if any(text in line for text in NOISE)]
    # the whole tail too: a traceback's first line alone does not say whose it is
    assert noise == [], f"{where(document, step)} printed nbgrader's noise:\n" + "\n".join(noise[:10]) + (
        f"\n--- its output's end:\n{output[-3000:]}"
    )
    return output


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def check_formgrader(document: Document, step: Step, course: Path, env: dict[str, str]) -> None:
    """Start the documented command, ask its formgrader for the course's assignments, stop it."""
    port, token = free_port(), secrets.token_hex(16)
    log = Path(env["HOME"]) / "formgrader.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(["bash", "-c", step.text], cwd=course, stdout=sink, stderr=subprocess.STDOUT,
                                  env={**env, "JUPYTER_PORT": str(port), "JUPYTER_TOKEN": token},
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert server.poll() is None, f"{where(document, step)} exited:\n{log.read_text()[-3000:]}"
            request = urllib.request.Request(f"http://127.0.0.1:{port}/formgrader/api/assignments",
                                             headers={"Authorization": f"token {token}"})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    assignments = {a["name"]: a for a in json.loads(response.read())}
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, f"{where(document, step)}: no formgrader:\n{log.read_text()[-3000:]}"
                time.sleep(0.5)
    finally:
        stop_process_group(server, timeout=30)
    # released: the formgrader found the exchange and the course id in nbgrader_config.py
    assert assignments["ndcg"]["status"] == "released", assignments["ndcg"]
    assert assignments["ndcg"]["num_submissions"] == len(STUDENTS)
    noise = [line for line in log.read_text().splitlines() if any(text in line for text in NOISE)]
    assert noise == [], f"{where(document, step)} logged:\n" + "\n".join(noise[:10])


def as_student(document: Document, step: Step, course: Path, homes: Path, first_only: bool = False) -> None:
    """Run a student's command for every simulated student (or the first only), in their home."""
    for student, solution in list(STUDENTS.items())[:1 if first_only else None]:
        home = homes / student
        env = environment(home, student)
        for name in HANDED_OUT:
            if (course / name).is_file():
                shutil.copy(course / name, home)
        run(document, step, home, env)
        settings = home / ".jupyter" / "nbgrader_config.py"
        if settings.is_file() and "student_id" not in settings.read_text():
            with settings.open("a") as file:  # the login nbgrader would take from the student's account
                file.write(f"c.CourseDirectory.student_id = {student!r}\n")
        fetched = home / "ndcg" / "ndcg.ipynb"
        if command_of(step.text) == "nbgrader fetch_assignment ndcg":  # the student's work, their id typed in
            write_submission(fetched, ROOT / "examples" / "submissions" / solution, fetched)


def roster(document: Document) -> dict[str, tuple[str, str]]:
    (text,) = [step.text for step in document.steps if step.kind == "file" and step.path == "roster.csv"]
    return {row["id"]: (row["first_name"], row["last_name"]) for row in csv.DictReader(io.StringIO(text))}


def venv_is_current(course: Path) -> bool:
    """Whether make would leave the shared .venv alone (else it would reinstall the repository's)."""
    return subprocess.run(["make", "-q", ".venv/.installed"], cwd=course, capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_documented_commands_work_as_written(name, tmp_path):
    document = read_document(name)
    course = scratch_course(tmp_path / "course")
    if not venv_is_current(course):
        pytest.skip("the .venv is older than pyproject.toml or constraints.txt: run make venv first")
    homes = tmp_path / "home"
    tutor = environment(homes / "tutor", "tutor")
    for step in document.steps:
        if step.kind == "file":
            (course / step.path).write_text(step.text, encoding="utf-8")
        elif step.kind in ("student", "laptop"):
            as_student(document, step, course, homes, first_only=step.kind == "laptop")
        elif command_of(step.text) in LONG_RUNNING:
            globals()[LONG_RUNNING[command_of(step.text)]](document, step, course, tutor)
        else:
            run(document, step, course, tutor)

    for student in STUDENTS:
        pages = list((homes / student / "ndcg" / "feedback").rglob("ndcg.html"))
        assert pages, f"{student} fetched no feedback page"
        assert (course / "submitted" / student / "ndcg" / "ndcg.ipynb").is_file()  # make clean keeps it
    assert any((course / "exchange").iterdir())
    laptop = sorted(homes.glob("*/checked.ipynb"))  # its run on a laptop (beside ndcg/): the typed id's list, the note
    assert len(laptop) == any(step.kind == "laptop" for step in document.steps)
    for checked in laptop:
        shown = checked.read_text(encoding="utf-8")
        assert f"student {checked.parent.name}: your ranked list is RELS" in shown, checked
        assert "this computer's login is" in shown, checked
    if (course / "gradebook.db").exists():
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            names = {s.id: (s.first_name, s.last_name) for s in gradebook.students}
        assert {student: names[student] for student in STUDENTS} == roster(document)
    else:  # the guide ends with make clean-grades CONFIRM=yes
        assert not (course / "graded").exists() and (course / ".grading-secret").is_file()
