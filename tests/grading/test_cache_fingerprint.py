"""The resume cache is invalidated by what grading uses: the exercise, the grader, the reference functions.

A change to a part of the reference package that the cases never call (its TREC reader) keeps
every saved result; a change to a reference function they call re-grades.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

import ndcg_ref
from autograder.exercises.ndcg import EXERCISE
from autograder.files import code_digest, code_files


@pytest.fixture
def reference_copy(tmp_path, monkeypatch):
    """A copy of the reference package under another name, imported from ``tmp_path`` (edits stay there)."""
    name = "ndcg_ref_copy_for_cache_test"
    shutil.copytree(Path(ndcg_ref.__file__).parent, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module, tmp_path / name
    for loaded in [key for key in sys.modules if key == name or key.startswith(f"{name}.")]:
        del sys.modules[loaded]


def test_the_trec_reader_is_no_part_of_the_reference_functions(reference_copy):
    module, folder = reference_copy
    before = code_digest(module.dcg, module.ndcg)
    with (folder / "trec" / "reading.py").open("a", encoding="utf-8") as reader:
        reader.write("\n# a change to the TREC reader\n")
    assert code_digest(module.dcg, module.ndcg) == before


@pytest.mark.parametrize("changed", ["measures.py", "_validate.py"])
def test_a_change_to_a_reference_function_or_what_it_imports_changes_the_digest(reference_copy, changed):
    module, folder = reference_copy
    before = code_digest(module.dcg, module.ndcg)
    with (folder / changed).open("a", encoding="utf-8") as source:
        source.write("\n# a change the reference functions run with\n")
    assert code_digest(module.dcg, module.ndcg) != before


def test_the_exercise_fingerprint_covers_the_functions_its_cases_call():
    # the cases' reference values come from ndcg_ref.dcg and ndcg_ref.ndcg: their code is in the fingerprint
    called = {case.function for group in EXERCISE.groups for case in group.cases}
    assert called == {"dcg", "ndcg"}
    assert code_digest(*(getattr(ndcg_ref, name) for name in sorted(called))) in EXERCISE.fingerprint
    reading = Path(ndcg_ref.__file__).parent / "trec" / "reading.py"
    assert reading not in code_files(ndcg_ref.dcg, ndcg_ref.ndcg)


def test_an_exercise_without_a_fingerprint_gets_one_from_its_code(tmp_path, monkeypatch):
    # issue 35.1: "" as the default let the resume cache reuse results an exercise since changed would grade otherwise
    from dataclasses import replace

    package = tmp_path / "exercise_for_fingerprint_test"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reference.py").write_text("def reference(call):\n    return 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("exercise_for_fingerprint_test.reference")
        first = replace(EXERCISE, reference=module.reference, fingerprint="").fingerprint
        assert first and first == replace(EXERCISE, reference=module.reference, fingerprint="").fingerprint
        (package / "reference.py").write_text("def reference(call):\n    return 2.0\n")
        importlib.reload(module)
        assert replace(EXERCISE, reference=module.reference, fingerprint="").fingerprint != first
        assert replace(EXERCISE, fingerprint="given").fingerprint == "given"  # one an exercise gives is kept
    finally:
        for loaded in [key for key in sys.modules if key.startswith("exercise_for_fingerprint_test")]:
            del sys.modules[loaded]
