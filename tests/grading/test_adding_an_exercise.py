"""Adding an exercise takes exactly the files docs/architecture.md lists, and then it is graded.

In a copy of the kit (a temporary folder), precision@k is added by writing the files the guide's
"Adding an exercise" list names and nothing else; a correct and a wrong submission are then graded
in the real sandbox by ``python -m autograder grade``. The scores are computed here from the formula.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from precision_exercise import REFERENCE_AND_GROUPS

from grading_run import ROOT

pytestmark = pytest.mark.slow  # end to end: copies the kit and grades in the sandbox

ASSIGNMENT = "precision"
NOTEBOOK = "precision.ipynb"
#: The new exercise's package: precision@k = |{i <= k : rel_i > 0}| / k, over the top k of a ranking.
EXERCISE_PACKAGE = '''"""Precision at k: the share of relevant documents among the top k."""

from __future__ import annotations

from ...grading import Call, Case, Diagnosis, Exercise, TestGroup


''' + REFERENCE_AND_GROUPS + '''
EXERCISE = Exercise(
    assignment="precision", notebook="precision.ipynb", title="Precision at k", groups=GROUPS,
    reference=reference, probes=(), diagnose=lambda records: Diagnosis(), catalogue=(),
    definition_html="<p>P@k = |{i &le; k : rel<sub>i</sub> &gt; 0}| / k</p>",
)
'''
REGISTRY_ENTRY = "PRECISION.assignment: PRECISION"
REGISTRY_IMPORT = "from .precision import EXERCISE as PRECISION\n"

SOLUTIONS = {
    "right": "def precision(rels, k):\n    return sum(1 for rel in rels[:k] if rel > 0) / k",
    # a common mistake: dividing by the list's length, not by k
    "by_length": "def precision(rels, k):\n    return sum(1 for rel in rels[:k] if rel > 0) / len(rels)",
}


def _precision(rels: tuple[int, ...], k: int) -> float:
    return sum(1 for rel in rels[:k] if rel > 0) / k


def _by_length(rels: tuple[int, ...], k: int) -> float:
    return sum(1 for rel in rels[:k] if rel > 0) / len(rels)


def _expected_score(function) -> float:
    """The groups' points a function earns: each group needs all its cases (the cases as in the package)."""
    groups = (
        (1.0, [((1, 0, 2, 1, 0), 5)]),
        (2.0, [((3, 1, 0), 2), ((1, 2), 4)]),
    )
    return sum(points for points, cases in groups
               if all(abs(function(rels, k) - _precision(rels, k)) < 1e-12 for rels, k in cases))


def documented_files() -> list[str]:
    """The file paths listed under "Adding an exercise" in docs/architecture.md, placeholders filled."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Adding an exercise", 1)[1].split("\n## ", 1)[0]
    paths = re.findall(r"^\d+\. `([^`]+)`", section, re.MULTILINE)
    return [p.replace("<assignment>", ASSIGNMENT).replace("<notebook>", NOTEBOOK) for p in paths]


def _source_notebook() -> nbformat.NotebookNode:
    """The students' notebook: the definition, then a cell for their function."""
    return new_notebook(cells=[
        new_markdown_cell("# Precision at k\nP@k is the share of relevant documents (grade > 0) among the top k."),
        new_code_cell("def precision(rels, k):\n    raise NotImplementedError"),
    ])


def _registered(text: str) -> str:
    """The registry's source with the new exercise added as its author would: an import, an entry in the dict.

    Found by the syntax tree, not by the registry's exact lines: however the dict is laid out, the entry goes
    in before its closing brace.
    """
    tree = ast.parse(text)
    found = [node.value for node in tree.body if isinstance(node, ast.AnnAssign | ast.Assign)
             and "EXERCISES" in {t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                                 if isinstance(t, ast.Name)}]
    if len(found) != 1 or not isinstance(found[0], ast.Dict):
        raise AssertionError("autograder/exercises/__init__.py no longer sets EXERCISES to a dict literal: "
                             "update this test and the guide together")
    lines = text.splitlines(keepends=True)
    closing = found[0]
    assert closing.end_lineno is not None and closing.end_col_offset is not None
    line = lines[closing.end_lineno - 1]
    brace = closing.end_col_offset - 1  # the dict's closing brace
    if line[:brace].strip():  # entries before it on its line: `{NDCG.assignment: NDCG}`
        lines[closing.end_lineno - 1] = line[:brace].rstrip().rstrip(",") + f", {REGISTRY_ENTRY}" + line[brace:]
    else:  # the brace on a line of its own, after one entry per line
        lines.insert(closing.end_lineno - 1, f"    {REGISTRY_ENTRY},\n")
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    after = imports[-1].end_lineno or 0
    lines.insert(after, REGISTRY_IMPORT)
    return "".join(lines)


def _add_exercise(kit: Path) -> None:
    """Write the new exercise's files into ``kit``: exactly the documented ones."""
    written = {
        f"autograder/exercises/{ASSIGNMENT}/__init__.py": EXERCISE_PACKAGE,
        f"source/{ASSIGNMENT}/{NOTEBOOK}": nbformat.writes(_source_notebook()),
    }
    registry = kit / "autograder" / "exercises" / "__init__.py"
    written["autograder/exercises/__init__.py"] = _registered(registry.read_text(encoding="utf-8"))
    assert sorted(written) == sorted(documented_files())  # nothing more, nothing less than the guide says
    for relative, content in written.items():
        target = kit / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def _changed_files(original: Path, kit: Path) -> set[str]:
    """Files of ``kit`` that are new or differ from ``original``'s (caches left out)."""
    changed = set()
    for path in kit.rglob("*"):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(kit)
        before = original / relative
        if not before.is_file() or before.read_bytes() != path.read_bytes():
            changed.add(relative.as_posix())
    return changed


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    kit = tmp_path_factory.mktemp("kit")
    shutil.copytree(ROOT / "autograder", kit / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    _add_exercise(kit)
    course = tmp_path_factory.mktemp("course")
    for student, solution in SOLUTIONS.items():
        notebook = _source_notebook()
        notebook.cells[1].source = solution
        target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit), str(ROOT)])}  # the copy first
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--quiet", "--assignment", ASSIGNMENT, "--sandbox", "required",
         "--gradebook", "none", "--timeout", "5", "--workers", "2"],
        cwd=course, env=environment, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads((course / "graded" / "results.json").read_text())
    return kit, {s["student_id"]: s for s in document["students"]}


def test_the_guide_lists_the_files_an_exercise_takes():
    assert documented_files() == [
        f"autograder/exercises/{ASSIGNMENT}/__init__.py", "autograder/exercises/__init__.py",
        f"source/{ASSIGNMENT}/{NOTEBOOK}",
    ]


def test_only_the_listed_files_were_added_or_changed(graded):
    kit, _ = graded
    assert _changed_files(ROOT, kit) == set(documented_files())


def test_the_new_exercise_is_graded_from_its_formula(graded):
    _, students = graded
    assert students["right"]["score"] == pytest.approx(_expected_score(_precision))
    assert students["by_length"]["score"] == pytest.approx(_expected_score(_by_length))
    assert students["by_length"]["score"] < students["right"]["score"]
