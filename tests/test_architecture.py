"""The layers of the grading package, pinned: who may import whom, that no import goes round in a
circle, and how big a module may grow.

sandbox  <  grading (the engine)  <  output, exercises, distributed  <  course  <  pipeline  <  demo  <  cli

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


#: Each part of the package, the parts of the package it may import (besides itself) and the
#: third-party packages it may use, as docs/architecture.md states the layers: a part imports only
#: what is below it.
LAYERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "errors": (frozenset(), frozenset()),
    "files": (frozenset({"errors"}), frozenset()),
    # the runner imports IPython inside the sandbox (checked by the two sandbox tests above and below)
    "sandbox": (frozenset(), frozenset({"IPython"})),
    "grading": (frozenset({"sandbox", "files", "errors"}), frozenset({"nbformat", "tqdm"})),
    # sqlalchemy and psycopg: nbgrader's gradebook, written in bulk on its own tables (gradebook_rows.py)
    "output": (frozenset({"grading", "files", "errors"}),
               frozenset({"jinja2", "markupsafe", "matplotlib", "nbgrader", "sqlalchemy", "psycopg"})),
    "exercises": (frozenset({"grading", "sandbox", "files", "errors"}), frozenset({"ndcg_ref", "numpy"})),
    "distributed": (frozenset({"grading", "sandbox", "files", "errors"}), frozenset({"distributed"})),
    # copydetect (with the numpy arrays it takes): the code-similarity part of the copying report
    "course": (frozenset({"output", "exercises", "grading", "sandbox", "files", "errors"}),
               frozenset({"nbgrader", "nbformat", "nbconvert", "traitlets", "sqlalchemy", "copydetect", "numpy"})),
    "pipeline": (frozenset({"course", "distributed", "output", "exercises", "grading", "sandbox", "files", "errors"}),
                 frozenset()),
    "demo": (frozenset({"pipeline", "course", "exercises", "sandbox", "files", "errors"}), frozenset()),
    "cli": (frozenset({"demo", "pipeline", "course", "distributed", "output", "exercises", "grading", "sandbox",
                       "files", "errors"}), frozenset()),
    "__main__": (frozenset({"cli"}), frozenset()),
    "__init__": (frozenset(), frozenset()),
}


def _layer(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_every_part_of_the_package_is_a_known_layer():
    assert {_layer(path) for path in _modules(PACKAGE)} == set(LAYERS)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_what_is_below_it(layer):
    parts, third_party = LAYERS[layer]
    wrong = []
    for path in _modules(PACKAGE):
        if _layer(path) != layer:
            continue
        for name in _imports(path):
            if name.startswith("autograder."):
                ok = name.split(".")[1] in parts | {layer}
            else:
                ok = _top(name) in STDLIB | third_party
            if not ok:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_the_engine_names_no_exercise():
    engine = "\n".join(p.read_text(encoding="utf-8") for p in _modules(PACKAGE / "grading"))
    assert "ndcg" not in engine.lower(), "the engine names the nDCG exercise"


def _module_file(name: str) -> Path | None:
    """The file of module ``name`` in the package; for ``package.attribute`` the package's."""
    parts = name.split(".")
    while parts:
        path = ROOT.joinpath(*parts)
        for candidate in (path.with_suffix(".py"), path / "__init__.py"):
            if candidate.is_file():
                return candidate
        parts.pop()
    return None


def _import_graph(folder: Path) -> dict[Path, set[Path]]:
    graph: dict[Path, set[Path]] = {}
    for path in _modules(folder):
        targets = (_module_file(name) for name in _imports(path) if _top(name) == folder.name)
        graph[path] = {target for target in targets if target is not None and target != path}
    return graph


def _cycle(graph: dict[Path, set[Path]]) -> list[Path]:
    """One import cycle in ``graph`` (a path that comes back to its start), or [] if there is none."""
    state: dict[Path, int] = {}  # 1: on the current path, 2: done
    path: list[Path] = []

    def visit(node: Path) -> list[Path]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_cycle_finder_finds_a_cycle():
    a, b, c = Path("a.py"), Path("b.py"), Path("c.py")
    assert _cycle({a: {b}, b: {c}, c: {a}}) == [a, b, c, a]
    assert _cycle({a: {b}, b: {c}, c: set()}) == []


@pytest.mark.parametrize("folder", ["autograder", "ndcg_ref"])
def test_no_module_imports_itself_through_others(folder):
    # type-only imports count too: a reader follows them just the same
    cycle = _cycle(_import_graph(ROOT / folder))
    assert [str(path.relative_to(ROOT)) for path in cycle] == []


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


#: Where a string may hold Python, and why: the catalogue's mutants are student code with mistakes
#: on purpose (data the tests run); the sandbox's preflight check is one short script run with -c.
PYTHON_IN_STRINGS = {"autograder/exercises/ndcg/catalogue.py", "autograder/sandbox/preflight.py"}


def _holds_python(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
    else:
        return False
    return any(text.startswith(word) or f"\n{word}" in text for word in ("def ", "import ", "class "))


def test_no_program_inside_a_string():
    # a program in a string is never linted or type-checked: it lives in a module, read as text if need be
    found = {
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _modules(PACKAGE)
        if str(path.relative_to(ROOT)) not in PYTHON_IN_STRINGS
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _holds_python(node)
    }
    assert found == set()
