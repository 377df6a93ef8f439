"""The student walkthrough in notebooks/ runs top to bottom and shows its figures."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

pytestmark = pytest.mark.slow  # end to end: starts the grader, nbgrader or a kernel

WALKTHROUGHS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.name)
def test_walkthrough_executes_without_errors(path: Path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel uses the inline backend
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 3, "the walkthrough should show its plots"
    text = "".join(o.get("text", "") for o in outputs)
    assert "nDCG@5 = 2.4307 / 3.1309 = 0.7763" in text  # the lecture example, computed by ndcg_ref


def test_walkthroughs_are_committed_without_outputs():
    assert WALKTHROUGHS, "notebooks/ has no walkthrough"
    for path in WALKTHROUGHS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], f"{path.name}: clear the outputs before committing"
