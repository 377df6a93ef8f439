"""Threat: a student id (a submission folder's name) that is markup, a glob, CSV, a formula, terminal
escapes or a look-alike of a classmate's.

Whoever writes the exchange chooses the folder's name, and nbgrader uses it as it is: raw in the
formgrader's pages, as a glob pattern in ``autograde`` (``*`` or ``c*1_exam_style`` grades a
classmate's notebook in the attacker's run, and the classmate is then skipped as existing), as a
CSV field in ``export`` (a comma and a newline forge a row), as text in its log (ESC and CR draw a
fake line). Every vector below, beside honest classmates whose notebooks are right, goes through:

- the kit's ``collect`` (``c.ExchangeFactory.collect``) from a real exchange: only the honest ids
  are collected, never through a link, each refusal one escaped log line;
- ``python -m autograder grade`` with the hostile folders put into ``submitted/`` directly (as an
  unzipped archive would): each is ``refused`` under its name escaped, with the reason, in the
  table, ``results.json`` and the report, and never reaches the gradebook;
- real ``nbgrader autograde`` with the course's config, the same folders: none is converted, one
  escaped line each, every honest classmate graded once, in their own run, with full marks;
- ``nbgrader export`` (the course's default exporter), read back with the csv module, also from a
  gradebook that holds a hostile id and names (as an imported roster could).

The expected score is the exercise's maximum (the honest notebooks are the reference solution);
the link points at a canary file this test created.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbgrader.api import Gradebook

from autograder.course.materials.nbgrader_commands import tool_environment
from autograder.exercises.ndcg import EXERCISE
from autograder.grading.reading.student_ids import check_ids, name_problem, shown_id

from grading_run import ROOT, add_student, generated_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
COURSE_ID = "ir-ranking-evaluation"
HONEST_TIME = "2026-11-30 10:15:00.000000 UTC"
CANARY = "CANARY-OUTSIDE-THE-FOLDER-5be1"
HONEST = ("alice", "bob", "carol1_exam_style", "dave")
#: Each attack, by what it would do; every one names (or matches) an honest classmate.
HOSTILE = {
    "script": "<svg onload=\"fetch('\\x2fapi\\x2fcontents\\x2fcanary-id.txt',{method:'PUT'})\">",
    "glob-all": "*",
    "glob-classmate": "c*1_exam_style",
    "glob-class": "[abc]lice",
    "csv-row": "mallory,15,15\nalice",
    "formula": "=HYPERLINK(\"x\")",
    "at-formula": "@SUM(1+1)",
    "terminal": "mallory\x1b[2K\r[alice] graded, 15 of 15",
    "zero-width": "dave\u200b",
    "mixed-script": "\u0430lice",  # a Cyrillic а, then Latin
    "overlong": "o" * 65,
    "leading-dash": "-rf",
    "not-nfc": "e\u0301ve",  # é as e and a combining accent: NFC is one character
}


def _entry(inbound: Path, student: str, stamp: str = HONEST_TIME) -> Path:
    """An inbound folder as ``nbgrader submit`` leaves it: the notebook and its timestamp."""
    folder = inbound / f"{student}+ndcg+{stamp}+{abs(hash(student)) % 10**8}"
    scratch = inbound.parent / "scratch"
    notebook = add_student(scratch, student)
    shutil.move(notebook.parent, folder)
    (folder / "timestamp.txt").write_text(HONEST_TIME)
    return folder


def _submit_directly(course: Path, student: str) -> None:
    """A folder put into submitted/ by hand (an unzipped archive, another tool): no collect in between."""
    (add_student(course, student).parent / "timestamp.txt").write_text(HONEST_TIME)


def _run(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(NBGRADER), *args], cwd=course, env=tool_environment(), capture_output=True,
                          text=True, timeout=900, errors="surrogateescape")


def _gradebook_students(course: Path) -> dict[str, float]:
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")
        return {s.student.id: float(s.score) for s in gradebook.find_assignment("ndcg").submissions}


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """The kit's collect from a real exchange holding every hostile id, a link and a linked folder."""
    tmp = tmp_path_factory.mktemp("hostile-ids-collect")
    course = generated_course(tmp / "course")
    inbound = tmp / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    canary = tmp / "outside"
    canary.mkdir()
    (canary / "secret.txt").write_text(CANARY)
    for student in (*HONEST, *HOSTILE.values(), ".hidden"):
        _entry(inbound, student)
    os.symlink(canary / "secret.txt", next(inbound.glob("alice+*")) / "notes.txt")
    os.symlink(canary, inbound / f"erin+ndcg+{HONEST_TIME}+1")  # a whole entry that is a link
    _entry(inbound, "frank", stamp=f"{HONEST_TIME}+\x1b[2K\rfake")  # a valid id, ESC in the rest of the name
    done = _run(course, "collect", "ndcg", f"--Exchange.root={tmp / 'exchange'}")
    return course, done, tmp


@pytest.fixture(scope="module")
def kit_graded(collected):
    """``python -m autograder grade`` after the hostile folders were put into submitted/ directly."""
    course = collected[0]
    for student in HOSTILE.values():
        _submit_directly(course, student)
    done = subprocess.run(  # not --quiet: the terminal table is a door too
        [sys.executable, "-m", "autograder", "grade", "--timeout", "5", "--workers", "2"], cwd=course,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=900,
    )
    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    return course, done, {student["student_id"]: student for student in document["students"]}


@pytest.fixture(scope="module")
def nbgrader_graded(tmp_path_factory):
    """Real ``nbgrader autograde`` with the course's config over honest and hostile folders."""
    course = generated_course(tmp_path_factory.mktemp("hostile-ids-nbgrader") / "course")
    for student in (*HONEST, *HOSTILE.values()):
        _submit_directly(course, student)
    done = _run(course, "autograde", "ndcg", "--SandboxedExecute.timeout=5")
    return course, done


def test_the_rule_refuses_every_vector_and_no_honest_id():
    assert all(name_problem(student) is None for student in HONEST)
    assert all(name_problem(student) is not None for student in HOSTILE.values())
    assert check_ids([*HONEST, *HOSTILE.values()]).accepted == HONEST
    for student in HOSTILE.values():  # what every output shows: printable ASCII, quoted, no markup left
        shown = shown_id(student)
        assert shown.isascii() and shown.isprintable() and shown.startswith("'") and "\x1b" not in shown


def test_look_alikes_are_graded_only_as_the_gradebook_knows_them():
    assert check_ids(["erin", "Erin"]).accepted == ()  # neither known: both refused, each naming the other
    refused = check_ids(["erin", "Erin"]).refused_folders()
    assert "Erin" in refused["erin"].reason and "erin" in refused["Erin"].reason
    assert check_ids(["erin", "Erin", "ｅｒｉｎ"], roster=["erin"]).accepted == ("erin",)
    assert check_ids(["Erin"], roster=["erin"]).accepted == ()  # a look-alike of a known student, alone


def test_collect_takes_only_the_honest_ids_and_follows_no_link(collected):
    course, done, _ = collected
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stdout + done.stderr
    assert sorted(os.listdir(course / "submitted")) == sorted(HONEST)
    assert "\x1b" not in log and "\r" not in log
    for student in HOSTILE.values():
        assert f"Refused, not collected: {shown_id(student)}: its name" in log, student
    assert "Not collected: " in log and "a link" in log  # the linked entry and the linked file, named
    assert "frank+ndcg+" in log and "its name holds control characters" in log
    assert not (course / "submitted" / "alice" / "ndcg" / "notes.txt").exists()
    for path in (course / "submitted").rglob("*"):
        assert path.is_symlink() or not path.is_file() or CANARY not in path.read_text(errors="replace")


def test_the_batch_refuses_each_hostile_folder_by_its_escaped_name(kit_graded):
    course, done, results = kit_graded
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\x1b" not in done.stdout and "\r" not in done.stdout and "Traceback" not in done.stderr
    for student in HOSTILE.values():
        result = results[shown_id(student)]
        assert (result["status"], result["score"], result["tests"]) == ("refused", 0.0, []), student
        assert "not graded: its name" in result["message"] and "rename the folder" in result["message"]
        assert any(line.startswith(shown_id(student) + " ") and " refused " in line
                   for line in done.stdout.splitlines()), student
    report = BeautifulSoup((course / "graded" / "report.html").read_text(encoding="utf-8"), "html.parser")
    roster = {row.find("a").get_text(): row.get_text() for row in report.select("#roster tr") if row.find("a")}
    assert all("refused" in roster[shown_id(student)] for student in HOSTILE.values())
    assert report.find("svg") is None


def test_the_batch_grades_every_honest_classmate_and_records_only_them(kit_graded):
    course, _, results = kit_graded
    for student in HONEST:
        assert (results[student]["status"], results[student]["score"]) == ("graded", EXERCISE.max_score)
    assert _gradebook_students(course) == dict.fromkeys(HONEST, EXERCISE.max_score)
    assert sorted(os.listdir(course / "autograded")) == sorted(HONEST)
    assert sorted(os.listdir(course / "feedback")) == sorted(HONEST)


def test_nbgrader_autograde_refuses_each_hostile_folder_before_it_globs(nbgrader_graded):
    course, done = nbgrader_graded
    log = done.stdout + done.stderr
    assert "\x1b" not in log and "\r" not in log
    for student in HOSTILE.values():
        assert f"Refused, not graded: {shown_id(student)}: its name" in log, student
    # every honest classmate in their own run, once: none was converted inside an attacker's
    assert sorted(os.listdir(course / "autograded")) == sorted(HONEST)
    assert _gradebook_students(course) == dict.fromkeys(HONEST, EXERCISE.max_score)
    assert "Skipping existing assignment" not in log


def test_nbgrader_export_quotes_and_neutralises_every_cell(nbgrader_graded):
    course, _ = nbgrader_graded
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        warnings.simplefilter("ignore")  # a roster imported from elsewhere: the gradebook's own fields are hostile
        gradebook.update_or_create_student("bob", first_name="=cmd|' /C calc'!A0", last_name="Smith,15\nforged,0",
                                           email="@SUM(1)")
        gradebook.update_or_create_student("x,1\nforged", first_name="+1", last_name="-1")
    done = _run(course, "export", "--to", "export.csv")
    assert done.returncode == 0, done.stderr[-3000:]
    with open(course / "export.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    assert header[:4] == ["assignment", "duedate", "timestamp", "student_id"]
    assert all(len(row) == len(header) for row in body)
    by_id = {row[header.index("student_id")]: row for row in body}
    assert set(by_id) == {*HONEST, "x,1\\nforged"}  # one row each, the newline shown as an escape
    for row in body:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row), row
    bob = by_id["bob"]
    assert bob[header.index("first_name")] == "'=cmd|' /C calc'!A0"
    assert float(bob[header.index("score")]) == EXERCISE.max_score
    assert all(float(by_id[student][header.index("score")]) == EXERCISE.max_score for student in HONEST)


def test_generate_feedback_refuses_a_hostile_folder_a_plain_nbgrader_run_left(nbgrader_graded):
    course, _ = nbgrader_graded
    for student in ("*", "mallory\x1b[2K\r"):  # as nbgrader without the course's config would have written them
        shutil.copytree(course / "autograded" / "alice", course / "autograded" / student)
    try:
        done = _run(course, "generate_feedback", "ndcg", "--force")
        log = done.stdout + done.stderr
        assert done.returncode == 0, log[-3000:]
        assert "\x1b" not in log and f"Refused, no feedback written: {shown_id('*')}: its name" in log
        assert sorted(os.listdir(course / "feedback")) == sorted(HONEST)
    finally:
        for student in ("*", "mallory\x1b[2K\r"):
            shutil.rmtree(course / "autograded" / student)
