"""Task 1.2's cells in the exam notebook: written from :mod:`.cells` into the source, read back from a release.

The by-hand part is the first graded part of ``source/ndcg/ndcg.ipynb``, before the implementation:
the task, the cell where the student types their id (``STUDENT_ID``), the read-only cell that derives
their list from that id and the published salt and pool, the answer cell and one grade cell per step.
:func:`sync_by_hand` writes those cells (keeping the salt the source publishes), as ``sync`` writes the
test cells: it is the part's :attr:`~autograder.grading.AnsweredPart.sync` hook, so the course calls it
through the exercise and never by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat.notebooknode import NotebookNode

from ....errors import CourseError
from ....grading.reading.notebook_shape import grade_id_of as grade_id
from . import cells
from .marking import STEPS

#: The salt of a course that has not chosen one (``python -m autograder variants`` chooses one per roster).
DEFAULT_SALT = "ir-ranking-evaluation-byhand-0"
#: The pool every student's list is drawn from (published in the derivation cell).
POOL_FILE = Path(__file__).resolve().parent / "pool.b64"
#: The by-hand part goes before the first of these cells (the implementation part's conventions and tasks).
ANCHORS = ("conventions", "task_1_3")


def _meta(cell_id: str, *, grade: bool = False, solution: bool = False, points: float | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"grade": grade, "grade_id": cell_id, "locked": not solution, "schema_version": 3,
                            "solution": solution}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def by_hand_cells(salt: str, pool: str, earlier: tuple[str, ...] = ()) -> list[NotebookNode]:
    """The by-hand part's cells in order: task, student id, derivation, answers, one grade cell per step.

    ``earlier``: the salts of this offering's earlier releases (:func:`.cells.derivation_source`).
    """
    block = [
        nbformat.v4.new_markdown_cell(cells.task_markdown(), metadata=_meta(cells.TASK_ID)),
        nbformat.v4.new_code_cell(cells.student_source(), metadata=_meta(cells.STUDENT_CELL_ID, solution=True)),
        nbformat.v4.new_code_cell(cells.derivation_source(salt, pool, earlier), metadata={
            **_meta(cells.DERIVATION_ID), "jupyter": {"source_hidden": True}}),
        nbformat.v4.new_code_cell(cells.answers_source(), metadata=_meta(cells.ANSWERS_ID, solution=True)),
        *(nbformat.v4.new_code_cell(cells.step_source(step.grade_id),
                                    metadata=_meta(step.grade_id, grade=True, points=step.points)) for step in STEPS),
    ]
    for cell in block:  # ids from the grade ids: the same notebook every time it is written
        cell.id = cell.metadata["nbgrader"]["grade_id"].replace("_", "-")
    return block


def _earlier(notebook: NotebookNode) -> tuple[str, ...]:
    """The earlier salts a notebook's derivation cell keeps."""
    for cell in notebook.cells:
        if grade_id(cell) == cells.DERIVATION_ID:
            return cells.earlier_salts(cell.source)
    return ()


def published_variant(notebook: NotebookNode) -> tuple[str, str]:
    """The salt and pool a notebook's derivation cell publishes.

    Raises
    ------
    CourseError
        If the notebook has no derivation cell publishing them.
    """
    for cell in notebook.cells:
        if grade_id(cell) == cells.DERIVATION_ID:
            try:
                return cells.published(cell.source)
            except (ValueError, SyntaxError) as error:
                raise CourseError(f"the notebook's derivation cell is damaged: {error}") from None
    raise CourseError(f"the notebook has no cell {cells.DERIVATION_ID!r}: regenerate the release (make release)")


def sync_by_hand(path: Path, salt: str | None = None, *, keep_earlier: bool = False) -> list[str]:
    """Write the by-hand cells into the source notebook at ``path``; return the ids that changed.

    The salt the notebook publishes is kept unless ``salt`` is given (a new one for a roster), and
    so are the earlier salts it keeps; with ``keep_earlier``, a new salt adds the one it replaces to
    them (students handed in lists of it: those stay theirs), else a new salt keeps none (a new
    offering starts afresh). A notebook without the part gets it before its first :data:`ANCHORS` cell.

    Raises
    ------
    CourseError
        If the notebook has neither the part nor a cell to put it before.
    """
    notebook = nbformat.read(path, as_version=4)
    present = {grade_id(cell): index for index, cell in enumerate(notebook.cells)}
    current = published_variant(notebook)[0] if cells.DERIVATION_ID in present else None
    earlier = _earlier(notebook) if current is not None else ()
    if salt is None:
        salt = current if current is not None else DEFAULT_SALT
    elif salt != current and not keep_earlier:
        earlier = ()  # a new offering's salt: nothing handed in under the old one counts
    elif salt != current and current is not None and current not in earlier:
        earlier = (*earlier, current)
    wanted = by_hand_cells(salt, POOL_FILE.read_text(encoding="ascii").strip(), tuple(s for s in earlier if s != salt))
    changed = []
    if all(grade_id(cell) in present for cell in wanted):
        for cell in wanted:
            old = notebook.cells[present[grade_id(cell)]]
            if old.source != cell.source or old.metadata.get("nbgrader") != cell.metadata["nbgrader"]:
                old.source, old.metadata["nbgrader"] = cell.source, cell.metadata["nbgrader"]
                changed.append(str(grade_id(cell)))
    else:
        anchor = next((present[name] for name in ANCHORS if name in present), None)
        if anchor is None:
            raise CourseError(f"{path} has no cell {' or '.join(ANCHORS)} to put the by-hand part before")
        ids = {grade_id(cell) for cell in wanted}
        before = [cell for cell in notebook.cells[:anchor] if grade_id(cell) not in ids]
        after = [cell for cell in notebook.cells[anchor:] if grade_id(cell) not in ids]
        notebook.cells = before + wanted + after
        changed = [str(grade_id(cell)) for cell in wanted]
    if changed:
        nbformat.write(notebook, path)
    return changed
