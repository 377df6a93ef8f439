"""The layers of the grading package, pinned: who may import whom, and how big a module may grow.

sandbox  <  grading (the engine)  <  output  <  course, exercises, pipeline, cli

The sandbox is the security boundary and uses the standard library only; the engine knows no
exercise by name; output reads the engine's records and knows no exercise either.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "autograder"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def _imports(path: Path) -> list[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names += [module] if node.module else [f"{module}.{alias.name}" for alias in node.names]
    return names


def _violations(folder: str, allowed) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(PACKAGE / folder)
        for name in _imports(path)
        if not allowed(name)
    ]


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_sandbox_uses_the_standard_library_only():
    # the runner imports IPython inside the sandbox, only for a cell with %magic or !shell syntax:
    # that is the student's environment (as in their kernel), not the grader's
    exceptions = {
        "autograder/sandbox/runner.py imports IPython.core.interactiveshell",
        "autograder/sandbox/runner.py imports IPython.core.inputtransformer2",
    }
    found = _violations("sandbox", lambda n: _top(n) in STDLIB or n.startswith("autograder.sandbox"))
    assert set(found) - exceptions == set()


def test_the_engine_knows_no_exercise_and_nothing_above_it():
    def allowed(name: str) -> bool:
        if name.startswith(("autograder.grading", "autograder.sandbox", "autograder.files", "autograder.errors")):
            return True
        return _top(name) in STDLIB or _top(name) in {"nbformat", "tqdm"}

    assert _violations("grading", allowed) == []
    engine = "\n".join(p.read_text(encoding="utf-8") for p in _modules(PACKAGE / "grading"))
    assert "ndcg" not in engine.lower(), "the engine names the nDCG exercise"


def test_the_dask_executor_knows_the_engine_and_the_sandbox_only():
    def allowed(name: str) -> bool:
        if name.startswith(("autograder.distributed", "autograder.grading", "autograder.sandbox", "autograder.files",
                            "autograder.errors")):
            return True
        return _top(name) in STDLIB or _top(name) == "distributed"

    assert _violations("distributed", allowed) == []


def test_output_reads_records_and_knows_no_exercise():
    def allowed(name: str) -> bool:
        if name.startswith(("autograder.grading", "autograder.output", "autograder.files", "autograder.errors")):
            return True
        # sqlalchemy and psycopg: nbgrader's gradebook, written in bulk on its own tables (gradebook_rows.py)
        return _top(name) in STDLIB or _top(name) in {"jinja2", "markupsafe", "matplotlib", "nbgrader", "sqlalchemy",
                                                      "psycopg"}

    assert _violations("output", allowed) == []


def test_importing_the_sandbox_loads_no_third_party_module():
    code = "import sys, autograder.sandbox; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-I", "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    # names starting with "_" are the interpreter's own and pip's editable-install hooks
    foreign = {_top(name) for name in done.stdout.split() if not name.startswith("_")} - STDLIB - {"autograder"}
    assert foreign == set()


def test_the_runner_is_a_standard_library_script():
    # it runs inside the sandbox as a script (python -I runner.py): no package imports at all
    names = _imports(PACKAGE / "sandbox" / "runner.py")
    assert {name for name in names if _top(name) not in STDLIB} == {
        "IPython.core.inputtransformer2", "IPython.core.interactiveshell"
    }


@pytest.mark.parametrize("folder", ["autograder", "ndcg_ref"])
def test_no_module_is_over_400_lines(folder):
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _modules(ROOT / folder)
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
