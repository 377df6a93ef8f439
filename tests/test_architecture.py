"""The layers of the grading package, pinned: who may import whom, that no import goes round in a
circle, and how big a module may grow.

sandbox  <  grading (the engine)  <  output, exercises, distributed  <  gradebook  <  course  <  byhand
    <  pipeline  <  demo  <  cli

The sandbox is the security boundary and uses the standard library only; the engine knows no
exercise by name; output reads the engine's records and knows no exercise either. ``byhand`` is one
feature across the layers above the engine (the by-hand task's salt, paper sheets and copying report):
it uses the course and reaches an exercise only through the hook its answered part carries. nbgrader is
reached through one module, ``nbgrader_adapter`` (beside ``errors`` and ``files``, below everything
that uses it): the only one that imports it.
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
        "autograder/sandbox/inside/runner.py imports IPython.core.interactiveshell",
        "autograder/sandbox/inside/runner.py imports IPython.core.inputtransformer2",
        # the zygote imports the runner beside it, as the sandbox mounts both (/opt/grader/)
        "autograder/sandbox/inside/zygote.py imports runner",
    }
    # and the kit's error classes (errors.py, itself standard library only): its refusal is a KitError
    found = _violations(
        "sandbox", lambda n: _top(n) in STDLIB or n.startswith("autograder.sandbox") or n == "autograder.errors"
    )
    assert set(found) - exceptions == set()


#: Each part of the package, the parts of the package it may import (besides itself) and the
#: third-party packages it may use, as docs/architecture.md states the layers: a part imports only
#: what is below it.
LAYERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "errors": (frozenset(), frozenset()),
    "files": (frozenset({"errors"}), frozenset()),
    # the runner imports IPython inside the sandbox (checked by the two sandbox tests above and below)
    "sandbox": (frozenset({"errors"}), frozenset({"IPython"})),
    # nbgrader's names, hooks and private parts the kit uses, behind a version check
    "nbgrader_adapter": (frozenset(), frozenset({"nbgrader"})),
    "grading": (frozenset({"sandbox", "files", "errors"}), frozenset({"nbformat", "tqdm"})),
    # the course's nbgrader_config.py, loaded once per version (the gradebook and course/ read it)
    "course_config": (frozenset({"errors"}), frozenset({"traitlets"})),
    "output": (frozenset({"grading", "nbgrader_adapter", "files", "errors"}),
               frozenset({"jinja2", "markupsafe", "matplotlib"})),
    # nbformat: an answered part's sync hook writes its cells into the source notebook
    "exercises": (frozenset({"grading", "sandbox", "files", "errors"}), frozenset({"ndcg_ref", "numpy", "nbformat"})),
    "distributed": (frozenset({"grading", "sandbox", "files", "errors"}), frozenset({"distributed"})),
    # the gradebook, one feature: sqlalchemy and psycopg for nbgrader's tables, written in bulk (rows.py);
    # nbgrader's late-penalty step (nbconvert, traitlets) and the release's cell order (nbformat)
    "gradebook": (frozenset({"output", "grading", "nbgrader_adapter", "course_config", "files", "errors"}),
                  frozenset({"sqlalchemy", "psycopg", "nbformat", "nbconvert", "traitlets"})),
    "course": (frozenset({"gradebook", "course_config", "output", "exercises", "grading", "sandbox",
                          "nbgrader_adapter", "files", "errors"}),
               frozenset({"nbformat", "nbconvert", "traitlets", "sqlalchemy"})),
    # the by-hand feature: copydetect (with the numpy arrays it takes) is the copying report's code similarity
    "byhand": (frozenset({"course", "gradebook", "course_config", "output", "exercises", "grading", "files",
                          "errors"}), frozenset({"nbformat", "copydetect", "numpy"})),
    "pipeline": (frozenset({"byhand", "course", "gradebook", "course_config", "distributed", "output", "exercises",
                            "grading", "sandbox", "files", "errors"}), frozenset()),
    "demo": (frozenset({"pipeline", "course", "exercises", "sandbox", "files", "errors"}), frozenset()),
    "cli": (frozenset({"demo", "pipeline", "byhand", "course", "gradebook", "course_config", "distributed", "output",
                       "exercises", "grading", "sandbox", "files", "errors"}), frozenset()),
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
                # inside the sandbox the zygote imports the runner beside it (/opt/grader/runner.py)
                ok = ok or (layer == "sandbox" and path.name == "zygote.py" and name == "runner")
            if not ok:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


#: Modules outside the adapter that may import nbgrader, and why: none.
NBGRADER_IMPORTS_ELSEWHERE: set[str] = set()


def test_only_the_adapter_imports_nbgrader():
    # an nbgrader upgrade is checked against one module (its version check, its hooks, the private parts)
    found = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(PACKAGE)
        if path != PACKAGE / "nbgrader_adapter.py"
        for name in _imports(path)
        if _top(name) == "nbgrader"
    }
    assert found - NBGRADER_IMPORTS_ELSEWHERE == set()


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
    names = _imports(PACKAGE / "sandbox" / "inside" / "runner.py")
    assert {name for name in names if _top(name) not in STDLIB} == {
        "IPython.core.inputtransformer2", "IPython.core.interactiveshell"
    }


def test_the_zygote_is_a_standard_library_script_beside_the_runner():
    # it runs inside the sandbox as a script too (python -I -S zygote.py) and imports the runner beside it
    names = _imports(PACKAGE / "sandbox" / "inside" / "zygote.py")
    assert {name for name in names if _top(name) not in STDLIB} == {"runner"}


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
PYTHON_IN_STRINGS = {"autograder/exercises/ndcg/catalogue.py", "autograder/sandbox/isolation/preflight.py"}


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


#: Blocks that nest (an ``elif`` continues its ``if``: it is no deeper).
BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
#: Deepest nesting of blocks in a function, and its longest body in lines (docstring aside), before it
#: must say why next to it (ruff has no stable rule for either; its complexity rules are in pyproject.toml).
MAX_NESTING = 3
MAX_LINES = 60


def _nesting(statements: list[ast.stmt], depth: int = 0) -> int:
    """How deep blocks nest in ``statements`` (a nested function or class is measured on its own)."""
    deepest = depth
    for node in statements:
        if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            deepest = max(deepest, _nesting(node.body, depth + 1), _nesting(node.orelse, depth))
        elif isinstance(node, BLOCKS):
            inner = [*getattr(node, "body", []), *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for part in (*getattr(node, "handlers", []), *getattr(node, "cases", [])) for s in part.body]
            deepest = max(deepest, _nesting(inner, depth + 1))
    return deepest


def _body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = function.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return (function.end_lineno or function.lineno) - body[0].lineno + 1


def _reason_above(lines: list[str], function: ast.FunctionDef | ast.AsyncFunctionDef, word: str) -> bool:
    """Whether the comment just above ``function`` (its decorators aside) starts with ``# why <word>:`` and a reason."""
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)]) - 1
    comment = []
    for line in reversed(lines[:first]):
        if not line.strip().startswith("#"):
            break
        comment.insert(0, line.strip())
    return bool(comment) and comment[0].startswith(f"# why {word}:") and len(" ".join(comment)) > 30


def _unexplained(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path:function`` and what is over a limit, for each function over one that does not say why."""
    found = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            name = f"{path.relative_to(root)}:{node.name}"
            if (depth := _nesting(node.body)) > MAX_NESTING and not _reason_above(lines, node, "nested"):
                found.append(f"{name} nests {depth} deep")
            if (length := _body_lines(node)) > MAX_LINES and not _reason_above(lines, node, "long"):
                found.append(f"{name} is {length} lines long")
    return found


def test_the_nesting_and_length_check_finds_a_deep_long_function(tmp_path):
    deep = "def f(x):\n    for a in x:\n        if a:\n            while a:\n                with a:\n                    pass\n"
    chain = "def e(a):\n    if a:\n        pass\n    elif a:\n        pass\n    elif a:\n        if a:\n            pass\n"
    long = "def g():\n" + "    x = 1\n" * (MAX_LINES + 1)
    explained = "# why nested: a reason long enough to read\n" + deep.replace("def f", "def h")
    path = tmp_path / "module.py"
    path.write_text(deep + chain + long + explained, encoding="utf-8")
    assert _unexplained([path], tmp_path) == ["module.py:f nests 4 deep", f"module.py:g is {MAX_LINES + 1} lines long"]


def test_no_function_nests_deep_or_runs_long_without_saying_why():
    assert _unexplained(_modules(PACKAGE)) == []


def test_no_two_test_files_share_a_name():
    """pytest imports a test file by its name (rootdir mode, no packages): two files of one name in
    different folders pass apart under xdist but stop `pytest -m serial`, which collects every file."""
    names: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


#: The imports of one exercise by name that ``course/`` and the by-hand feature may hold: none (issue 35).
#: nDCG's by-hand task is reached through the hook its answered part carries (``AnsweredPart.by_hand``).
COURSE_IMPORTS_OF_AN_EXERCISE: set[str] = set()


def test_the_course_imports_no_new_exercise_by_name():
    # the course reaches exercises through the registry (autograder.exercises: EXERCISES, exercise_for)
    # and the hooks an Exercise carries, so a second exercise needs no edit in course/
    found = {
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in ("course", "byhand")
        for path in _modules(PACKAGE / folder)
        for name in _imports(path)
        if name.startswith("autograder.exercises.")
    }
    assert found - COURSE_IMPORTS_OF_AN_EXERCISE == set(), "course/ imports an exercise by name: give it a hook"
    assert COURSE_IMPORTS_OF_AN_EXERCISE - found == set(), "gone from course/: take it off the list"


#: Inside a package, the order of its sub-packages: each may import only those listed (and itself).
SUBPACKAGES: dict[str, dict[str, frozenset[str]]] = {
    "course": {
        "setup": frozenset(),  # the course directory: root, lock, secret, privacy, roster, offerings
        "notebook_cells": frozenset(),  # generated test cells, sanitising, nbgrader's cell preprocessors
        "handback": frozenset(),  # feedback pages, their release, the exports
        "autograde": frozenset({"setup", "notebook_cells", "handback"}),  # nbgrader autograde in the sandbox
        "materials": frozenset({"setup", "notebook_cells"}),  # commands and release, examples, demo
    },
}


@pytest.mark.parametrize("package", sorted(SUBPACKAGES))
def test_sub_packages_import_only_those_below_them(package):
    order = SUBPACKAGES[package]
    folder = PACKAGE / package
    assert {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()} == set(order)
    wrong = []
    for inner, allowed in order.items():
        for path in _modules(folder / inner):
            for name in _imports(path):
                parts = name.split(".")
                inside = parts[:2] == ["autograder", package] and len(parts) > 2 and parts[2] in order
                if inside and parts[2] not in allowed | {inner}:
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


#: Folders of the package with more than MAX_MODULES modules, and why.
MAX_MODULES = 12
CROWDED: dict[str, str] = {
    "autograder/output": "13 modules since look.py (who needs a look) joined: about twelve; the words modules "
    "(late_words, mark_words, timestamps, safe_text, markup) are the sub-package to make if it grows",
}


def test_no_folder_holds_more_than_twelve_modules():
    # a reader finds a module by its sub-package's name: one job per folder, a dozen modules at most
    crowded = {
        str(folder.relative_to(ROOT))
        for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if (p / "__init__.py").is_file())]
        if len([p for p in folder.glob("*.py") if p.name != "__init__.py"]) > MAX_MODULES
    }
    assert crowded == set(CROWDED)


#: Module names the package holds twice (none: keep it so).
SHARED_NAMES: set[str] = set()


def test_no_two_modules_share_a_name():
    # a name says which module it is, in a traceback, a search or a conversation
    names: dict[str, int] = {}
    for path in _modules(PACKAGE):
        if path.name != "__init__.py":
            names[path.name] = names.get(path.name, 0) + 1
    assert {name for name, count in names.items() if count > 1} == SHARED_NAMES
