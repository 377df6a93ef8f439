"""Threat: a copier who keeps out of the copying report (and a notebook that stops it for the class).

Each copier hands in ada's code and numbers and hides it as the issue's attackers did: the copy
saved as ``ndcg-Copy1.ipynb`` (the grader grades it), a markdown cell whose metadata is a list,
metadata nested 600 deep, the code wrapped in ``exec('''…''')`` (and in a name executed through
``compile``, and nested), and in every spelling of exec the red team found and the cheap encodings
(base64, rot13, hex, joined parts). Beside them: by-hand answers that once stopped the report
(OverflowError) or took its memory, and folders the grader cannot grade. The report must pair
every copier with ada, and name every student it did not compare with the reason, on the page
and in its summary. Nothing runs: the report reads notebooks as data.
"""

from __future__ import annotations

import base64
import codecs
import json
import os

import nbformat
from byhand_answers import answer_cell
from hypothesis import HealthCheck, given, settings
from nbformat.v4 import new_markdown_cell

from autograder.byhand.copied import gather
from autograder.byhand.salt import release_variant
from autograder.exercises.ndcg import EXERCISE as NDCG
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.steps import every_steps

from copying_report import copying_report, report_table
from grading_run import add_raw, add_student, new_course, notebook_path
from solutions import CORRECT_SOLUTIONS
from strategies import notebook_bytes

#: ada's code with every name changed and comments added (a fingerprint sees through that)
ADA_DCG = ("import math\n\n\ndef dcg(grades, cut):\n    # sum of discounted grades, rank by rank\n    total = 0.0\n"
           "    for j in range(min(cut, len(grades))):\n        total += grades[j] / math.log2(j + 2)\n"
           "    return total")
ADA_NDCG = ("def ndcg(grades, cut):\n    best = dcg(sorted(grades, reverse=True), cut)\n"
            "    if best == 0:\n        return 0.0\n    return dcg(grades, cut) / best")
DEPTH = 600


def _wrapped(code: str) -> str:
    return f"exec('''{code}''')"


def _deep(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value




def test_every_copier_is_paired_with_ada_and_every_student_left_out_is_named(tmp_path):
    course = new_course(tmp_path / "course")
    salt, pool = release_variant(course, NDCG)
    ada_numbers = answer_cell(every_steps(student_list("ada", salt, pool), CUTOFF)["right"])
    add_student(course, "ada", ADA_DCG, ADA_NDCG)
    add_student(course, "gus", *CORRECT_SOLUTIONS["recursion"])  # honest, his own code
    copiers = {
        "bob": add_student(course, "bob", ADA_DCG, ADA_NDCG, name="ndcg-Copy1.ipynb", by_hand=None),
        "cyd": add_student(course, "cyd", ADA_DCG, ADA_NDCG, by_hand=None),
        "dee": add_student(course, "dee", ADA_DCG, ADA_NDCG, by_hand=None),
        "eve": add_student(course, "eve", _wrapped(ADA_DCG), _wrapped(ADA_NDCG), by_hand=None),
        "fay": add_student(course, "fay", f"import builtins\nsource = '''{ADA_DCG}'''\n"
                                          "builtins.exec(compile(source, 'dcg', 'exec'))",
                           f'exec("exec({ADA_NDCG!r})")', by_hand=None),
    }
    for path in copiers.values():
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "byhand_answers":
                cell.source = ada_numbers
        nbformat.write(notebook, path)
    listed = nbformat.read(copiers["cyd"], as_version=4)
    listed.cells.append(new_markdown_cell("my notes"))
    document = json.loads(nbformat.writes(listed))
    document["cells"][-1]["metadata"] = ["a", "list"]  # nbformat refuses it; the grader grades it
    copiers["cyd"].write_text(json.dumps(document), encoding="utf-8")
    deep = json.loads(copiers["dee"].read_text(encoding="utf-8"))
    deep["cells"].append({"cell_type": "markdown", "metadata": _deep(DEPTH), "source": "notes"})
    copiers["dee"].write_text(json.dumps(deep), encoding="utf-8")
    # answers that once stopped the report for everyone, and folders no grader reads
    add_student(course, "hal", *CORRECT_SOLUTIONS["heapq"], by_hand=None)
    _answer(course, "hal", "DCG_AT_K = " + "9" * 400)
    add_student(course, "ivy", *CORRECT_SOLUTIONS["fractions_and_helpers"], by_hand=None)
    _answer(course, "ivy", "DCG_AT_K = " + "+".join(["1"] * 1_500))
    add_raw(course, "jon", b'{"cells": [')
    add_student(course, "kim", name="one.ipynb")
    add_student(course, "kim", name="two.ipynb")
    add_student(course, "ada\u200b", ADA_DCG, ADA_NDCG)  # a look-alike id: refused by the grader, named here
    (course / "submitted" / "lou" / "ndcg").mkdir(parents=True)  # the release itself, hard-linked
    os.link(course / "release" / "ndcg" / "ndcg.ipynb", notebook_path(course, "lou"))

    summary, page = copying_report(course)
    pairs = report_table(page, "code-pairs")
    for copier in ("bob", "eve", "fay"):
        assert f"<td>ada</td><td>{copier}</td>" in pairs, (copier, pairs)
    left_out = report_table(page, "not-compared")
    # metadata nested 600 deep, and a cell's metadata that is a list (which nbformat's reader, so nbgrader's
    # path, cannot read): compared like the others, or refused (as both grading paths refuse them) and named
    for hidden in ("cyd", "dee"):
        assert f"<td>ada</td><td>{hidden}</td>" in pairs or f"<td>{hidden}</td><td>everything</td>" in left_out
    assert "<td>ada</td><td>gus</td>" not in pairs and "<td>gus</td><td>ada</td>" not in pairs
    copied = report_table(page, "copied-answers")
    assert "<td>bob</td><td>ada</td>" in copied and "<td>eve</td><td>ada</td>" in copied
    # everyone left out is named with the reason, on the page and in the summary
    reasons = {"hal": "a number of more than 30 characters", "ivy": "more than 400 numbers and signs",
               "jon": "not valid JSON", "kim": "found one.ipynb, two.ipynb", "lou": "a hard link to a file of the course"}
    for student, reason in reasons.items():
        assert f"<td>{student}</td>" in left_out and reason in left_out, (student, left_out)
        assert student in summary.split("not compared")[1] and reason in summary, summary
    assert "<td>&#39;ada\\u200b&#39;</td><td>everything</td><td>not graded: " in left_out, left_out
    assert "\n  'ada\\u200b' (everything): not graded: " in summary and "\u200b" not in summary
    assert summary.startswith("13 students:")
    assert any(f"{compared} of 13 students compared" in page for compared in (7, 8, 9))  # cyd, dee either way


#: the red team's spellings of exec (round 5) and the cheap obfuscations: each hid the copy once
EVASIONS = {
    "strip": lambda s: f"exec('''{s}'''.strip())",
    "str-call": lambda s: f"exec(str('''{s}'''))",
    "annotated": lambda s: f"code: str = '''{s}'''\nexec(code)",
    "walrus": lambda s: f"exec(code := '''{s}''')",
    "run-cell": lambda s: f"get_ipython().run_cell('''{s}''')",
    "lambda": lambda s: f"(lambda t: exec(t, globals()))('''{s}''')",
    "base64": lambda s: f"import base64\nexec(base64.b64decode({base64.b64encode(s.encode())!r}))",
    "rot13": lambda s: f"import codecs\nexec(codecs.decode({codecs.encode(s, 'rot13')!r}, 'rot13'))",
    "hex": lambda s: f"exec(bytes.fromhex({s.encode().hex()!r}).decode())",
    "joined": lambda s: f"exec(''.join({[s[i:i + 20] for i in range(0, len(s), 20)]!r}))",
}


def test_a_copy_in_a_string_is_paired_however_the_cell_runs_it(tmp_path):
    """Every spelling of exec, and a decoded constant: the string's code is compared, not the call."""
    course = new_course(tmp_path / "course")
    add_student(course, "ada", ADA_DCG, ADA_NDCG)
    add_student(course, "gus", *CORRECT_SOLUTIONS["recursion"])  # honest: paired with none of them
    for name, wrap in EVASIONS.items():
        add_student(course, name, wrap(ADA_DCG), wrap(ADA_NDCG), by_hand=None)
    _, page = copying_report(course)
    pairs = report_table(page, "code-pairs")
    for copier in EVASIONS:
        assert f"<td>ada</td><td>{copier}</td>" in pairs or f"<td>{copier}</td><td>ada</td>" in pairs, (copier, pairs)
    assert "<td>gus</td>" not in pairs


def _answer(course, student: str, source: str) -> None:
    path = notebook_path(course, student)
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "byhand_answers":
            cell.source = source
    nbformat.write(notebook, path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=notebook_bytes)
def test_any_notebook_bytes_are_compared_or_named_never_an_error(tmp_path, data):
    """Whatever file a student hands in, the report compares it or names them with a reason, and goes on."""
    course = tmp_path / "course"
    if not course.exists():
        new_course(course)
        add_student(course, "ada", ADA_DCG, ADA_NDCG)
    add_raw(course, "zed", data)
    found = gather(course, NDCG, course / "submitted")
    # nobody here was graded: each compared student is named for that alone ("compiled code": spelling only)
    left_out = {row.student_id: row for row in found.not_compared if row.part != "compiled code"}
    assert "ada" in found.code and "ada" not in left_out
    assert "zed" in found.code or left_out["zed"].part == "everything"
    assert all(row.reason and "\n" not in row.reason for row in found.not_compared)
