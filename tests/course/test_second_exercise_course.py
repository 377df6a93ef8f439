"""A second real exercise in a course beside nDCG: ``sync``, ``release`` and ``grade`` work on it.

In a copy of the kit, precision@k (the lecture's other measure) is added through its files only: its
package, its entry in the registry, its source notebook. Besides its code it has a part answered by
hand (P@3 of a given ranking, read as a number): an :class:`~autograder.grading.AnsweredPart` with
no ``sync`` hook, whose cells the instructor wrote. In a course holding nDCG as well,
``python -m autograder sync`` then writes both exercises' test cells (and nDCG's Task 1.2 into nDCG
only), ``release --assignment precision`` releases it with nbgrader, and ``grade --assignment
precision`` grades a right and a wrong submission of the release in the sandbox, the hand part
included (the scores are computed here from the formula); nbgrader's own ``autograde`` records the
same scores through the kit and ``generate_feedback`` writes the pages; the release and leak guards of
``tests/course/test_course.py`` (:mod:`release_guards`) pass for both exercises.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from precision_exercise import REFERENCE_AND_GROUPS

from grading_run import ROOT, whole_course

pytestmark = pytest.mark.slow  # end to end: copies the kit, runs nbgrader and grades in the sandbox

ASSIGNMENT = "precision"
NOTEBOOK = "precision.ipynb"
RANKING, K = (2, 0, 1, 0, 3), 3
#: The package: precision@k = |{i <= k : rel_i > 0}| / k, and P@3 of RANKING by hand (an answered part).
EXERCISE_PACKAGE = f'''"""Precision at k: the share of relevant documents among the top k, in code and by hand."""

from __future__ import annotations

import re

from ...grading import AnsweredPart, Call, Case, Diagnosis, Exercise, Status, StudentResult, TestGroup, TestResult


{REFERENCE_AND_GROUPS}

def mark(student_id, cells, release, classmates):
    found = re.search(r"^P_AT_3\\s*=\\s*([0-9.]+)\\s*$", cells.get("p_at_3_answer", ""), re.MULTILINE)
    right = found is not None and abs(float(found.group(1)) - reference(Call("precision", ({RANKING!r}, {K})))) < 1e-3
    test = TestResult(name="p_at_3_by_hand", description="P@3 by hand", points=1.0 if right else 0.0,
                      max_points=1.0, passed=right, message="right" if right else "not P@3 of the ranking",
                      visible=True, cases_passed=int(right), cases=1)
    return StudentResult(student_id=student_id, status=Status.GRADED, score=test.points, max_score=1.0, tests=[test])



EXERCISE = Exercise(
    assignment="precision", notebook="precision.ipynb", title="Precision at k", groups=GROUPS,
    reference=reference, probes=(), diagnose=lambda records: Diagnosis(), catalogue=(),
    definition_html="<p>P@k = |{{i &le; k : rel<sub>i</sub> &gt; 0}}| / k</p>",
    answered=AnsweredPart(
        groups=(TestGroup("p_at_3_by_hand", "P_AT_3", "P@3 by hand", 1.0, True, ()),),
        cell_ids=frozenset({{"p_at_3_answer", "p_at_3_by_hand"}}), published_ids=frozenset(), mark=mark,
    ),
)
'''
REGISTRY_ADDITION = "\nfrom .precision import EXERCISE as PRECISION  # noqa: E402\n\nEXERCISES[PRECISION.assignment] = PRECISION\n"

SOLUTIONS = {
    "right": ("def precision(rels, k):\n    return sum(1 for rel in rels[:k] if rel > 0) / k", "P_AT_3 = 0.667"),
    # dividing by the list's length, not by k; and P@3 counted over the whole list
    "by_length": ("def precision(rels, k):\n    return sum(1 for rel in rels[:k] if rel > 0) / len(rels)",
                  "P_AT_3 = 1.0"),
}


def _meta(grade_id: str, *, solution: bool = False, points: float | None = None) -> dict:
    meta = {"grade": points is not None, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _source_notebook() -> nbformat.NotebookNode:
    """The instructor's notebook: the hand part, the code cell, the (empty) test cells sync fills."""
    return new_notebook(cells=[
        new_markdown_cell(f"# Precision at k\nWork out P@3 of the ranking {list(RANKING)} by hand."),
        new_code_cell("### BEGIN SOLUTION\nP_AT_3 = 0.667\n### END SOLUTION",
                      metadata=_meta("p_at_3_answer", solution=True)),
        new_code_cell("# marked from your answer above", metadata=_meta("p_at_3_by_hand", points=1.0)),
        new_code_cell("### BEGIN SOLUTION\ndef precision(rels, k):\n    return sum(1 for rel in rels[:k] if rel > 0) / k"
                      "\n### END SOLUTION", metadata=_meta("precision", solution=True)),
        new_code_cell("", metadata=_meta("test_helpers")),
        new_code_cell("", metadata=_meta("test_precision_example", points=0.0)),
        new_code_cell("", metadata=_meta("test_precision_cutoff", points=0.0)),
    ])


def _kit(path: Path) -> Path:
    """A copy of the kit with precision@k added through its files."""
    shutil.copytree(ROOT / "autograder", path / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    package = path / "autograder" / "exercises" / ASSIGNMENT / "__init__.py"
    package.parent.mkdir()
    package.write_text(EXERCISE_PACKAGE, encoding="utf-8")
    registry = path / "autograder" / "exercises" / "__init__.py"
    registry.write_text(registry.read_text(encoding="utf-8") + REGISTRY_ADDITION, encoding="utf-8")
    return path


def _command(kit: Path, course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit), str(ROOT)]),  # the copy first
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=environment,
                          capture_output=True, text=True, timeout=600)


def _run(kit: Path, course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = _command(kit, course, *args, "--allow-readable-course")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def _grade_ids(path: Path) -> list[str]:
    return [c.metadata.get("nbgrader", {}).get("grade_id", "") for c in nbformat.read(path, as_version=4).cells]


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict[str, object]:
    kit = _kit(tmp_path_factory.mktemp("kit"))
    course = whole_course(tmp_path_factory.mktemp("course") / "course")
    source = course / "source" / ASSIGNMENT / NOTEBOOK
    source.parent.mkdir(parents=True)
    nbformat.write(_source_notebook(), source)
    ndcg_before = (course / "source" / "ndcg" / "ndcg.ipynb").read_bytes()
    synced = _run(kit, course, "sync")
    released = _run(kit, course, "release", "--assignment", ASSIGNMENT)
    release = course / "release" / ASSIGNMENT / NOTEBOOK
    for student, (code, by_hand) in SOLUTIONS.items():
        notebook = nbformat.read(release, as_version=4)
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in ("precision", "p_at_3_answer"):
                cell.source = code if grade_id == "precision" else by_hand
        target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    _run(kit, course, "grade", "--quiet", "--assignment", ASSIGNMENT, "--sandbox", "required", "--gradebook", "none",
         "--timeout", "5", "--workers", "2")
    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    return {"kit": kit, "course": course, "synced": synced.stdout, "released": released.stdout, "ndcg_before": ndcg_before,
            "students": {s["student_id"]: s for s in document["students"]}}


def test_sync_writes_each_exercise_its_own_cells(course):
    assert "ndcg: test cells already in sync" in course["synced"]
    assert "precision: updated: test_helpers, test_precision_example, test_precision_cutoff" in course["synced"]
    root = course["course"]
    assert (root / "source" / "ndcg" / "ndcg.ipynb").read_bytes() == course["ndcg_before"]
    ids = _grade_ids(root / "source" / ASSIGNMENT / NOTEBOOK)
    # its own cells, in its author's order: none of nDCG's Task 1.2 (whose sync hook is nDCG's alone)
    assert ids == ["", "p_at_3_answer", "p_at_3_by_hand", "precision", "test_helpers", "test_precision_example",
                   "test_precision_cutoff"]


def test_release_regenerates_the_named_exercise_and_says_where_it_stands(course):
    assert "release/ regenerated: precision" in course["released"]
    assert "not in the exchange yet: students get precision" in course["released"]
    release = nbformat.read(course["course"] / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    sources = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells if "nbgrader" in c.metadata}
    assert "BEGIN SOLUTION" not in sources["precision"]
    assert "check_value(precision, [3, 1, 0], 2" not in sources["test_precision_cutoff"]  # hidden: stripped
    assert "check_value(precision, [1, 0, 2, 1, 0], 5" in sources["test_precision_example"]


#: Run with the copy of the kit first on the path: the guards of tests/course/test_course.py on the course's
#: release/ (every exercise's files), for each exercise the copy registers.
GUARDS = """
import json, sys
from pathlib import Path
from release_guards import leaks, outputs
from autograder.exercises import EXERCISES
release = Path(sys.argv[1])
print(json.dumps({name: leaks(release, exercise) + outputs(release, exercise) for name, exercise in EXERCISES.items()}))
"""


def test_the_release_and_leak_guards_pass_for_every_exercise(course):
    kit, root = course["kit"], course["course"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit), str(ROOT / "tests"), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", GUARDS, str(root / "release")], env=environment, cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"ndcg": [], "precision": []}


def test_nbgrader_autograde_and_feedback_work_on_it_through_the_kit(course):
    # nbgrader's own autograde loads the course's config, which grades through the kit (the copy with
    # precision@k): the gradebook gets the same scores as results.json
    from autograder.course.materials.nbgrader_commands import gradebook_scores

    kit, root = course["kit"], course["course"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit), str(ROOT)]),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", ASSIGNMENT, "--force"],
                          cwd=root, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    scores = gradebook_scores(root, ASSIGNMENT)
    assert {student: score for student, (score, _) in scores.items()} == pytest.approx(
        {student: result["score"] for student, result in course["students"].items()})
    assert {maximum for _, maximum in scores.values()} == {4.0}
    # and nbgrader's feedback command writes each student's page of it
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "generate_feedback", ASSIGNMENT, "--force"],
                          cwd=root, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for student, result in course["students"].items():
        page = (root / "feedback" / student / ASSIGNMENT / "precision.html").read_text(encoding="utf-8")
        assert f'<strong id="final-score">{result["score"]:g} / 4</strong>' in page, student
        assert "P@3 by hand" in page and "precision divides by k" in page, student


def _precision(rels: tuple[int, ...], k: int) -> float:
    return sum(1 for rel in rels[:k] if rel > 0) / k


def _by_length(rels: tuple[int, ...], k: int) -> float:
    return sum(1 for rel in rels[:k] if rel > 0) / len(rels)


def _expected_score(function, by_hand: float) -> float:
    """The points a function and a P@3 answer earn: each group needs all its cases."""
    groups = ((1.0, [((1, 0, 2, 1, 0), 5)]), (2.0, [((3, 1, 0), 2), ((1, 2), 4)]))
    code = sum(points for points, cases in groups
               if all(abs(function(rels, k) - _precision(rels, k)) < 1e-12 for rels, k in cases))
    return code + (1.0 if abs(by_hand - _precision(RANKING, K)) < 1e-3 else 0.0)


def test_grade_grades_the_release_of_the_second_exercise(course):
    students = course["students"]
    assert students["right"]["score"] == pytest.approx(_expected_score(_precision, 0.667))
    assert students["by_length"]["score"] == pytest.approx(_expected_score(_by_length, 1.0))
    assert students["right"]["max_score"] == pytest.approx(4.0)


def test_the_by_hand_commands_say_in_one_line_that_it_has_no_by_hand_part(course):
    # precision's hand part has no by-hand hook (no variant per student): no paper sheets, and the
    # copying report compares its code only; nDCG's by-hand commands are unchanged beside it
    kit, where = course["kit"], course["course"]
    roster = where / "roster.csv"
    roster.write_text("student_id\nright\nby_length\n", encoding="utf-8")
    sheets = _command(kit, where, "variants", "--roster", str(roster), "--out", "paper", "--assignment", ASSIGNMENT)
    assert sheets.returncode == 2 and sheets.stdout == "" and not (where / "paper").exists()
    assert sheets.stderr == (f"error: {ASSIGNMENT} has no by-hand part (a variant per student): nothing to do for "
                             "it; exercises with one: ndcg\n")
    copying = _command(kit, where, "copying", "--assignment", ASSIGNMENT, "--out", "graded/copying-precision.html")
    assert copying.returncode == 0, copying.stderr
    first = copying.stdout.splitlines()[0]
    assert first.startswith(f"{ASSIGNMENT} has no by-hand part: only code compared. {len(SOLUTIONS)} students: ")
    page = (where / "graded" / "copying-precision.html").read_text(encoding="utf-8")
    assert 'id="code-pairs"' in page and 'id="copied-answers"' not in page and "Task 1.2" not in page
