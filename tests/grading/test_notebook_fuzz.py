"""The notebook reader takes any bytes: the student's code cells, or that student's problem, never a crash."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from autograder.grading import Status
from autograder.grading.notebook import SubmissionProblem, read_notebook, student_code

from strategies import notebook_bytes


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(notebook_bytes)
def test_any_bytes_give_code_cells_or_a_problem(tmp_path, data):
    folder = tmp_path / "submitted" / "student" / "ndcg"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ndcg.ipynb").write_bytes(data)
    try:
        file = read_notebook(tmp_path / "submitted", "student", "ndcg", "ndcg.ipynb", max_bytes=1000)
        cells = student_code(file, frozenset())
    except SubmissionProblem as problem:
        assert problem.status in (Status.ERROR, Status.MISSING)
        assert problem.message.strip()
        return
    assert file.data == data and len(data) <= 1000
    assert isinstance(cells, list) and all(isinstance(cell, str) for cell in cells)
