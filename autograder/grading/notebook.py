"""Find and read one student's notebook, and extract the code the student wrote.

Only the student's own code cells are run: the cells named in ``skip_ids`` (the release's test,
helper and other read-only cells) are skipped whatever the student did to them (edited,
deleted, emptied), because the tests are run by the grader from the exercise's cases.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .model import Status

#: Larger notebooks are refused rather than loaded (outputs of a print flood, say).
MAX_NOTEBOOK_BYTES = 50 * 1024**2


class SubmissionProblem(Exception):
    """A submission that cannot be graded; ``status`` is :attr:`Status.MISSING` or :attr:`Status.ERROR`."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class StudentCode:
    """The code cells of one submission, ready for the runner."""

    path: Path
    sha256: str
    cells: list[str]
    note: str | None = None


def locate_notebook(student_dir: Path, assignment: str, notebook: str) -> tuple[Path, str | None]:
    """Return the notebook to grade and a note if it is not the expected file.

    A single notebook with another name (``exercise (1).ipynb`` for ``exercise.ipynb``) is graded, with a note; none or
    several raise :class:`SubmissionProblem` with status ``missing``.
    """
    folder = student_dir / assignment
    expected = folder / notebook
    if expected.is_file():
        return expected, None
    if not folder.is_dir():
        expected_path = f"{assignment}/{notebook}"
        raise SubmissionProblem(Status.MISSING, f"no folder {assignment}/ in the submission (expected {expected_path})")
    found = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    if len(found) == 1:
        return found[0], f"graded {found[0].name} (expected {notebook})"
    names = ", ".join(p.name for p in found) or "no notebook at all"
    raise SubmissionProblem(Status.MISSING, f"no {notebook} in {assignment}/ (found {names})")


def _transform(source: str) -> str:
    """Turn IPython syntax (``%magic``, ``!cmd``) into plain Python calling ``get_ipython()``."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # leave it to the runner to report the syntax error
        return source


def read_student_code(path: Path, skip_ids: frozenset[str]) -> StudentCode:
    """Read the notebook at ``path`` and return the student's code cells.

    Raises
    ------
    SubmissionProblem
        With status ``error`` for a file that is empty, too large, not UTF-8, not JSON or not
        a notebook; the message says which.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SubmissionProblem(Status.ERROR, f"cannot read {path.name}: {error.strerror}") from error
    if not data.strip():
        raise SubmissionProblem(Status.ERROR, f"{path.name} is empty ({len(data)} bytes): the upload probably failed")
    if len(data) > MAX_NOTEBOOK_BYTES:
        size, limit = len(data) / 1024**2, MAX_NOTEBOOK_BYTES // 1024**2
        raise SubmissionProblem(Status.ERROR, f"{path.name} is {size:.0f} MiB, over the {limit} MiB limit")
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        message = f"{path.name} is not a text file (not UTF-8 at byte {error.start})"
        raise SubmissionProblem(Status.ERROR, message) from error
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise SubmissionProblem(
            Status.ERROR, f"{path.name} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "the file is truncated or was edited outside Jupyter"
        ) from error
    try:
        notebook = nbformat.reads(text, as_version=4)
        cells = []
        for cell in notebook.cells:
            if cell.get("cell_type") != "code":
                continue
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in skip_ids:
                continue
            source = cell.get("source", "")
            if isinstance(source, list):
                source = "".join(source)
            if not isinstance(source, str):
                raise TypeError("a code cell's source is not text")
            cells.append(_transform(source))
    except Exception as error:
        message = f"{path.name} is JSON but not a Jupyter notebook ({type(error).__name__}: {error})"
        raise SubmissionProblem(Status.ERROR, message) from error
    return StudentCode(path=path, sha256=digest, cells=cells)
