"""A second exercise, defined only here, graded, diagnosed and reported end to end by the engine.

Cumulative gain from the same lecture, CG@k = rel_1 + ... + rel_k: if this works without touching
the engine, the engine knows no nDCG.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.grading import Call, Case, Diagnosis, Exercise, Finding, Mistake, TestGroup
from autograder.pipeline import GradeOptions, grade_course
from autograder.sandbox import CallRecord

pytestmark = pytest.mark.slow


def cg_reference(call: Call) -> float:
    rels, k = call.args
    return float(sum(rels[:k]))  # CG@k: the grades of the top k, undiscounted


def _cg(rels: list[float], k: int, what: str, check_unchanged: bool = False, constructed: bool = True) -> Case:
    return Case(Call("cg", (tuple(rels), k)), what, check_unchanged, constructed=constructed)


GROUPS = (
    TestGroup("test_cg_lecture", "cg", "cg of the lecture example", 1.0, True,
              (_cg([1, 0, 2, 1, 0], 5, "lecture example", constructed=False),)),
    TestGroup("test_cg_cutoff", "cg", "cg sums exactly the top k", 2.0, False,
              (_cg([3, 1, 2], 2, "k inside the list"), _cg([1, 2], 5, "k beyond the list"))),
    TestGroup("test_cg_contract", "cg", "cg leaves its input unchanged", 1.0, False,
              (_cg([2, 0, 1], 3, "input unchanged", check_unchanged=True),)),
)
CUTOFF_PROBE = Call("cg", ((1, 1, 1, 1), 2))
CATALOGUE = (Mistake("cg-cutoff-ignored", "Cut-off ignored", "CG@k adds up the grades of the top k documents only."),)


def diagnose_cg(records: Mapping[Call, CallRecord]) -> Diagnosis:
    """Only one mistake is known: summing the whole list (4 instead of 2 on the probe)."""
    diagnosis = Diagnosis()
    record = records.get(CUTOFF_PROBE)
    if record is not None and record.number == 4.0:
        diagnosis.add(Finding("cg-cutoff-ignored", "cg", "Cut-off ignored", "for [1, 1, 1, 1], k=2 your cg returns 4"))
    elif record is not None and record.number != 2.0:
        diagnosis.unexplained["cg"] = "your cg does not match a known mistake"
    return diagnosis


CG = Exercise(
    assignment="cg", notebook="cg.ipynb", title="Cumulative gain", groups=GROUPS, reference=cg_reference,
    probes=(CUTOFF_PROBE,), diagnose=diagnose_cg, catalogue=CATALOGUE,
    definition_html="<p>CG@k = rel<sub>1</sub> + &hellip; + rel<sub>k</sub></p>",
)

STUDENTS = {
    "right": "def cg(rels, k):\n    return float(sum(rels[:k]))",
    "whole_list": "def cg(rels, k):\n    return float(sum(rels))",
    "sorts_input": "def cg(rels, k):\n    rels.sort()\n    return float(sum(sorted(rels, reverse=True)[:k]))",
}


def _points(source: str) -> float:
    """Points earned by a trusted solution, computed here from the reference (a group needs every case)."""
    namespace: dict = {}
    exec(source, namespace)
    total = 0.0
    for group in GROUPS:
        ok = True
        for case in group.cases:
            argument = list(case.call.args[0])
            ok &= namespace["cg"](argument, case.call.args[1]) == cg_reference(case.call)
            ok &= not case.check_unchanged or argument == list(case.call.args[0])
        total += group.points if ok else 0.0
    return total


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _text(page: Path) -> str:
    parser = _Text()
    parser.feed(page.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).split())


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    course = tmp_path_factory.mktemp("cg-course")
    for student, source in STUDENTS.items():
        notebook = new_notebook(cells=[new_markdown_cell("# Cumulative gain"), new_code_cell(source)])
        target = course / "submitted" / student / "cg" / "cg.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    options = GradeOptions(
        CG, submitted=course / "submitted", out=course / "graded", workers=2, timeout=5, gradebook="none",
        progress=False, course_root=course,
    )
    return course, grade_course(options)


def test_scores_follow_the_exercise_cases(run):
    _, result = run
    scores = {s.student_id: s.score for s in result.batch.students}
    assert scores == {student: _points(source) for student, source in STUDENTS.items()}
    assert scores["right"] == 4.0 and scores["whole_list"] < 4.0


def test_diagnosis_comes_from_the_exercise(run):
    _, result = run
    diagnoses = {s.student_id: s.diagnosis.ids for s in result.batch.students}
    assert diagnoses == {"right": [], "whole_list": ["cg-cutoff-ignored"], "sorts_input": []}
    contract = next(t for s in result.batch.students if s.student_id == "sorts_input" for t in s.tests
                    if t.name == "test_cg_contract")
    assert not contract.passed and "changed the caller's list" in contract.message


def test_results_feedback_and_report_are_written(run):
    course, _ = run
    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    assert document["assignment"] == "cg" and document["max_score"] == 4.0 and document["schema_version"] >= 2
    assert [t["name"] for t in document["tests"]] == [g.grade_id for g in GROUPS]
    page = _text(course / "graded" / "feedback" / "whole_list" / "cg.html")
    assert "Feedback on cg: Cumulative gain" in page
    assert "Cut-off ignored" in page and "CG@k adds up the grades of the top k documents only." in page
    assert "CG@k = rel 1 + … + rel k" in page  # the exercise's definition, as HTML
    report = _text(course / "graded" / "report.html")
    assert "Class report: cg (Cumulative gain)" in report
    assert "Cut-off ignored cg-cutoff-ignored 1 whole_list" in report  # mistake, ID, how many, who
    csv = (course / "graded" / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert csv[0] == (
        "student_id,status,final_score,max_score,grader_score,test_cg_lecture,test_cg_cutoff,test_cg_contract,"
        "gradebook_score,manual,penalty"
    )
