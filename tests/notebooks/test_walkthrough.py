"""The walkthroughs in notebooks/ run top to bottom, and their students' copies run on the student's own code."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from autograder.course.materials.walkthrough import WALKTHROUGH_ASSIGNMENT, student_walkthrough
from ndcg_ref import dcg, idcg, ndcg

from conftest import ROOT
from grading_run import CORRECT_DCG, CORRECT_NDCG

pytestmark = pytest.mark.slow  # end to end: starts a kernel

WALKTHROUGHS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LECTURE = [1, 0, 2, 1, 0]
#: The line the walkthrough prints for the lecture example, from the reference.
LECTURE_LINE = f"nDCG@5 = {dcg(LECTURE, 5):.4f} / {idcg(LECTURE, 5):.4f} = {ndcg(LECTURE, 5):.4f}"


def _run(notebook: nbformat.NotebookNode, folder: Path) -> list[dict]:
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]


def _check_outputs(outputs: list[dict]) -> None:
    assert not [o for o in outputs if o.output_type == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 3, "the walkthrough should show its plots"
    assert LECTURE_LINE in "".join(o.get("text", "") for o in outputs)


def _students_copy(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "release" / WALKTHROUGH_ASSIGNMENT / path.name, as_version=4)


def _without_the_reference(folder: Path) -> Path:
    """A folder in which ``import ndcg_ref`` fails (the kernel's working directory comes first on sys.path)."""
    (folder / "ndcg_ref.py").write_text('raise ImportError("a students\' copy must not need ndcg_ref")\n')
    return folder


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_walkthrough_executes_without_errors(path: Path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel uses the inline backend
    _check_outputs(_run(nbformat.read(path, as_version=4), path.parent))


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_the_students_copy_is_regenerated_from_the_walkthrough(path: Path):
    assert _students_copy(path) == student_walkthrough(ROOT, path), "run `make release`"


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_the_students_copy_has_no_solution(path: Path):
    text = (ROOT / "release" / WALKTHROUGH_ASSIGNMENT / path.name).read_text()
    assert "ndcg_ref" in path.read_text()  # the instructor's copy computes with it ...
    for secret in ("ndcg_ref", "BEGIN SOLUTION", "END SOLUTION", "log2(i + 2)"):
        assert secret not in text  # ... the students' copy does not show it


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_the_students_copy_runs_on_the_students_functions(path: Path, tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = _students_copy(path)
    stubs = [cell for cell in notebook.cells if "raise NotImplementedError()" in cell.source]
    assert len(stubs) == 1
    stubs[0].source = f"{CORRECT_DCG}\n\n\n{CORRECT_NDCG}\n"
    _check_outputs(_run(notebook, _without_the_reference(tmp_path)))


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_the_students_copy_stops_until_the_functions_are_pasted(path: Path, tmp_path):
    with pytest.raises(CellExecutionError, match="NotImplementedError"):
        _run(_students_copy(path), _without_the_reference(tmp_path))


def test_walkthroughs_are_committed_without_outputs():
    assert WALKTHROUGHS, "notebooks/ has no walkthrough"
    for path in [*WALKTHROUGHS, *(_students_copy(p) for p in WALKTHROUGHS)]:
        cells = path.cells if isinstance(path, nbformat.NotebookNode) else nbformat.read(path, as_version=4).cells
        for cell in cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], "clear the outputs before committing"
