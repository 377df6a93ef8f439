"""Record an assignment's cells in the gradebook the way ``nbgrader generate_assignment`` does.

nbgrader's autograde, its formgrader and a later ``generate_assignment --force`` all expect the
gradebook to know every cell of the released notebook (grade, solution, task and source cells,
with checksums). A course graded by the batch command before anyone ran ``generate_assignment`` on
its gradebook (a fresh clone, a new machine) would otherwise get grade cells only, and nbgrader
then refuses to regenerate the release ("Cannot add or remove cells ... because there are
submissions"). So the batch command runs nbgrader's own preprocessors, in ``generate_assignment``'s
order up to ``SaveCells``, on the source notebook, with the course's configuration.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import nbformat

from ..course_config import course_config
from ..errors import CourseError
from .database import DEFAULT_COURSE, open_gradebook


class MissingSource(CourseError):
    """The course has no source notebook to record the cells from."""


def notebook_is_recorded(db_url: str, assignment: str, notebook_id: str) -> bool:
    """Whether the gradebook at ``db_url`` knows ``notebook_id``'s source cells, as generate_assignment leaves it."""
    from ..nbgrader_adapter import MissingEntry

    with open_gradebook(db_url) as gradebook:
        try:
            notebook = gradebook.find_notebook(notebook_id, assignment)
        except MissingEntry:
            return False
        return len(notebook.source_cells) > 0


def record_assignment_cells(root: Path, db_url: str, assignment: str, notebook: str) -> bool:
    """Record ``source/<assignment>/<notebook>``'s cells in the gradebook unless they are there already.

    Parameters
    ----------
    root : Path
        The course directory (its ``nbgrader_config.py`` configures the preprocessors).
    db_url : str
        The gradebook.
    assignment, notebook : str
        The assignment and the notebook's file name.

    Returns
    -------
    bool
        True if the cells were recorded now, False if the gradebook had them.

    Raises
    ------
    MissingSource
        If the course has no source notebook (a course of release/ only).
    CourseError
        If nbgrader refuses the notebook (e.g. cells changed although submissions exist).
    """

    from ..nbgrader_adapter import (
        CheckCellMetadata,
        ClearOutput,
        ClearSolutions,
        ComputeChecksums,
        IncludeHeaderFooter,
        InstantiateTests,
        LockCells,
        SaveCells,
    )

    notebook_id = Path(notebook).stem
    if notebook_is_recorded(db_url, assignment, notebook_id):
        return False
    source = root / "source" / assignment / notebook
    if not source.is_file():
        raise MissingSource(
            f"no {source.relative_to(root)}: the gradebook got the grade cells only "
            "(nbgrader's generate_assignment records the rest)"
        )
    config = course_config(root)
    nb = nbformat.read(source, as_version=nbformat.NO_CONVERT)
    # as generate_assignment's init_assignment: the assignment first, under the course's id
    course_id = config.CourseDirectory.get("course_id", "")
    with open_gradebook(db_url, course_id or DEFAULT_COURSE) as gradebook:
        gradebook.update_or_create_assignment(assignment)
    resources = {
        "nbgrader": {"db_url": db_url, "assignment": assignment, "notebook": notebook_id},
        "metadata": {"path": str(source.parent)},
    }
    # generate_assignment's list up to SaveCells: SaveCells records what the earlier steps made of
    # each cell (the stubbed solutions, the checksums), which is what autograde compares against.
    steps = (
        IncludeHeaderFooter, InstantiateTests, LockCells, ClearSolutions, ClearOutput,
        CheckCellMetadata, ComputeChecksums, SaveCells,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for step in steps:
                nb, resources = step(config=config).preprocess(nb, resources)
        except RuntimeError as error:  # SaveCells: cells changed although submissions exist
            raise CourseError(f"cannot record {assignment}/{notebook} in the gradebook: {error}") from error
    return True
