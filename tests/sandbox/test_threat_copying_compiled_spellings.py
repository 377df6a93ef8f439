"""Threat: a copier whose cells spell the copied code in a way the copying report does not read.

The second red-team pass: ada's code copied as parts held in names and joined when run
(``a = '…'; b = '…'; exec(a + b)``), as a literal list of byte values (``bytes([100, 101, …]).decode()``)
and in base32: each scored full marks and was in no pair, since the report reads how a cell spells
its code. Whatever the spelling, the kernel compiles the code: the sandbox's runner records the
texts the student's code compiles while its cells run, the grader keeps that record with the
student's result on both paths (``python -m autograder grade`` and ``nbgrader autograde``), and the
report compares it. Beside them: honest students (never paired), one whose cell compiles 10,000
texts and a 20 MB one (the record stays within its bounds), and one whose functions and a thread of
its own compile every argument they are called with (no hidden input reaches the record: it ends
before the first call is sent).
"""

from __future__ import annotations

import base64
import json
import shutil

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, run_nbgrader
from autograder.grading.compiled import CompiledCode
from autograder.sandbox.runs.protocol import MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_TOTAL

from copying_report import copying_report, report_table
from grading_run import add_student, generated_course, grade, notebook_path
from leaks import leaked, without_by_hand
from solutions import CORRECT_SOLUTIONS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]

#: ada's code with every name changed and comments added (as in test_threat_copying_report_evasion)
ADA_DCG = ("import math\n\n\ndef dcg(grades, cut):\n    # sum of discounted grades, rank by rank\n    total = 0.0\n"
           "    for j in range(min(cut, len(grades))):\n        total += grades[j] / math.log2(j + 2)\n"
           "    return total")
ADA_NDCG = ("def ndcg(grades, cut):\n    best = dcg(sorted(grades, reverse=True), cut)\n"
            "    if best == 0:\n        return 0.0\n    return dcg(grades, cut) / best")


def _named(code: str) -> str:
    # cut inside `def`: neither part holds `def NAME(`, neither parses: no constant of the cell is code
    cut = code.index("def") + 1
    return f"a = {code[:cut]!r}\nb = {code[cut:]!r}\nexec(a + b)"


#: the red team's three spellings the report does not read
SPELLINGS = {
    "named": _named,
    "bytelist": lambda code: f"exec(bytes({list(code.encode())!r}).decode())",
    "base32": lambda code: f"import base64\nexec(base64.b32decode({base64.b32encode(code.encode())!r}))",
}
#: an honest student whose first cell compiles 10,000 texts and one of 20 MB
FLOOD = ("for i in range(10_000):\n    exec(f'value_{i} = {i} * 2  # long enough to be recorded')\n"
         "exec('big = 1\\n' + '#' * 20_000_000)")
#: an honest dcg that compiles every argument it is given, and a thread compiling all it was given, as it goes
LEAKER_DCG = '''import math
import threading
import time

SEEN = []
STARTED = threading.Event()


def _watch():
    while True:
        exec(f"SEEN_NOW = {SEEN[-20:]!r}  # everything the calls brought", {})
        STARTED.set()
        time.sleep(0.002)


threading.Thread(target=_watch, daemon=True).start()
STARTED.wait(10)  # once while the cell runs, whatever the machine's load


def dcg(rels, k):
    SEEN.append(list(rels))
    exec(f"LAST_CALL = {list(rels)!r}, {k!r}  # the arguments of this call", {})
    return sum(rel / math.log2(i + 2) for i, rel in enumerate(rels[:k]))'''
HONEST = ("ada", "gus", "hal", "lea")


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    base = tmp_path_factory.mktemp("compiled-spellings")
    template = generated_course(base / "template")
    add_student(template, "ada", ADA_DCG, ADA_NDCG)
    add_student(template, "gus", *CORRECT_SOLUTIONS["recursion"])
    add_student(template, "hal", *CORRECT_SOLUTIONS["heapq"], extra=(FLOOD,))
    add_student(template, "lea", LEAKER_DCG, CORRECT_SOLUTIONS["loop"][1])
    for name, spell in SPELLINGS.items():
        add_student(template, name, spell(ADA_DCG), spell(ADA_NDCG))
    found = {path: shutil.copytree(template, base / path) for path in ("ungraded", "nbgrader", "batch")}
    run_nbgrader(found["nbgrader"], "autograde", ASSIGNMENT, "--force")
    done = grade(found["batch"], "--sandbox", "required", "--workers", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    return found




def _paired(pairs: str, first: str, second: str) -> bool:
    return f"<td>{first}</td><td>{second}</td>" in pairs or f"<td>{second}</td><td>{first}</td>" in pairs


def _record(course, student: str) -> CompiledCode:
    """The compiled record the grader saved beside the student's autograded notebook (both paths write it)."""
    document = json.loads((course / "autograded" / student / ASSIGNMENT / "ndcg.grader.json").read_text())
    record = CompiledCode.from_json(document["result"]["compiled"])
    assert document["result"]["compiled"]["texts"] == list(record.texts)  # as saved: within the bounds already
    return record


@pytest.mark.parametrize("path", ["batch", "nbgrader"])
def test_every_spelling_of_the_copy_is_paired_and_the_honest_students_are_not(courses, path):
    course = courses[path]
    summary, page = copying_report(course)
    pairs = report_table(page, "code-pairs")
    for copier in SPELLINGS:
        assert _paired(pairs, "ada", copier), (copier, pairs)
        assert ADA_DCG in _record(course, copier).texts
    for honest in HONEST[1:]:
        assert f"<td>{honest}</td>" not in pairs, (honest, pairs)
    # the record was of the code submitted: every student compared with it, only the flood named (for its overflow)
    assert "compiled code" not in summary.replace("\n  hal (compiled code): compiled ", ""), summary
    assert "\n  hal (compiled code): compiled " in summary and "more texts than the grader records" in summary


def test_without_a_grader_run_only_the_spelling_is_compared_and_the_report_says_so(courses):
    """The same class before grading: the three spellings hide the copy (the residual this closes), and
    every student is named as compared by spelling only."""
    course = courses["ungraded"]
    summary, page = copying_report(course)
    pairs = report_table(page, "code-pairs") if 'id="code-pairs"' in page else ""
    for copier in SPELLINGS:
        assert not _paired(pairs, "ada", copier), (copier, pairs)
    for student in (*HONEST, *SPELLINGS):
        assert f"\n  {student} (compiled code): not graded yet" in summary, summary
    assert "only the spelling of the code was compared" in report_table(page, "not-compared")


@pytest.mark.parametrize("path", ["batch", "nbgrader"])
def test_a_flood_of_compiled_texts_is_bounded(courses, path):
    record = _record(courses[path], "hal")
    assert len(record.texts) <= MAX_COMPILED and sum(map(len, record.texts)) <= MAX_COMPILED_TOTAL
    assert all(len(text) <= MAX_COMPILED_CHARS for text in record.texts)
    assert record.dropped >= 10_000 - MAX_COMPILED
    # the grader's saved result stays small, whatever the cell compiled (20 MB among it)
    saved = courses[path] / "autograded" / "hal" / ASSIGNMENT / "ndcg.grader.json"
    assert saved.stat().st_size < 4 * MAX_COMPILED_TOTAL


@pytest.mark.parametrize("path", ["batch", "nbgrader"])
def test_no_argument_of_a_call_reaches_the_record(courses, path):
    course = courses[path]
    record = _record(course, "lea")
    assert record.texts, "the thread's first text, compiled while the cells ran, is recorded"
    assert all(text.startswith("SEEN_NOW = []") for text in record.texts), record.texts
    texts = [text for student in (*HONEST, *SPELLINGS) for text in _record(course, student).texts]
    assert leaked(texts) == []
    if path == "batch":  # results.json carries the records too (Task 1.2's own list, public, left out)
        results = course / "graded" / "results.json"
        assert leaked([without_by_hand(results, results.read_text())]) == []


def test_a_record_of_other_code_than_the_notebook_submitted_now_is_not_used(courses, tmp_path):
    """A notebook changed since the grader ran it (handed in again, not graded yet): its old record says nothing."""
    course = shutil.copytree(courses["batch"], tmp_path / "course", symlinks=True)
    path = notebook_path(course, "named")
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(new_code_cell("changed = True"))
    nbformat.write(notebook, path)
    summary, page = copying_report(course)
    assert not _paired(report_table(page, "code-pairs"), "ada", "named")
    assert "\n  named (compiled code): graded from other code than the notebook submitted now" in summary, summary
    for copier in ("bytelist", "base32"):
        assert _paired(report_table(page, "code-pairs"), "ada", copier)
