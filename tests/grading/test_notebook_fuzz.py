"""The notebook reader takes any bytes: the student's code cells, or that student's problem, never a crash."""

from __future__ import annotations

import copy
import sys

import nbformat
from hypothesis import HealthCheck, given, settings

from autograder.course.notebook_cells.sanitise import sanitise_notebook
from autograder.grading import Status
from autograder.grading.reading.notebook import (
    NotebookFile,
    SubmissionProblem,
    notebook_node,
    read_notebook,
    student_code,
)
from autograder.grading.reading.notebook_shape import MAX_DEPTH, MAX_VALUES

from strategies import notebook_bytes, shaped_notebooks


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


def _with_frames(frames: int, work):
    """``work()`` called ``frames`` Python frames down, as a reader deep inside nbgrader's own call stack is."""
    return _with_frames(frames - 1, work) if frames else work()


@settings(max_examples=120, deadline=None)
@given(shaped_notebooks)
def test_deep_or_wide_json_anywhere_is_refused_and_what_passes_every_reader_takes(shaped):
    data, deepest, values, place = shaped
    file = NotebookFile("ndcg.ipynb", data, "", (0, 0))
    try:
        notebook = notebook_node(file)
    except SubmissionProblem as problem:
        assert problem.status is Status.ERROR
        if deepest <= MAX_DEPTH and values <= MAX_VALUES:  # a source that is no text: nbformat cannot read it
            assert place == "code source", problem.message
            assert "not a Jupyter notebook" in problem.message or "not a valid Jupyter notebook" in problem.message
            return
        assert ("nested deeper than" in problem.message) == (deepest > MAX_DEPTH), problem.message
        return
    assert deepest <= MAX_DEPTH and values <= MAX_VALUES
    # what the reader lets through, nbformat's reader, deepcopy, the sanitiser and nbformat's writer
    # take even 400 frames down (nbgrader's stack is far less deep than that)
    assert sys.getrecursionlimit() - len(_stack()) > 400 + 4 * MAX_DEPTH
    _with_frames(400, lambda: nbformat.reads(data.decode(), as_version=4))
    _with_frames(400, lambda: copy.deepcopy(notebook))
    _with_frames(400, lambda: nbformat.writes(sanitise_notebook(copy.deepcopy(notebook), None)))


def _stack() -> list[object]:
    frame, frames = sys._getframe(), []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames
