"""The students' copy of the walkthroughs in ``notebooks/``: nbgrader's ClearSolutions applied.

The instructor's walkthrough computes with the reference package inside a solution region (so it
runs in this repository); the students' copy, ``release/walkthrough/<name>.ipynb``, has that region
replaced by the course's stub, and runs on the student's own ``dcg`` and ``ndcg``. It is released
through the exchange like any assignment (``nbgrader release_assignment walkthrough``); it is not
graded, so it has no test cells and no gradebook entry.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ...course_config import course_config

#: The exchange's name for the walkthroughs, and their folder in ``release/``.
WALKTHROUGH_ASSIGNMENT = "walkthrough"


def student_walkthrough(root: Path, path: Path) -> nbformat.NotebookNode:
    """The students' copy of the walkthrough at ``path``: solutions stubbed, outputs cleared.

    Parameters
    ----------
    root : Path
        The course directory (its ``nbgrader_config.py`` gives the stub, as for the exam).
    path : Path
        A walkthrough in ``notebooks/``.
    """
    from ...nbgrader_adapter import ClearOutput, ClearSolutions

    config = course_config(root)
    notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    resources: dict[str, object] = {}
    for step in (ClearSolutions, ClearOutput):
        notebook, resources = step(config=config).preprocess(notebook, resources)
    return notebook


def release_walkthroughs(root: Path) -> list[Path]:
    """Write every ``notebooks/*.ipynb``'s students' copy to ``release/walkthrough/``; return the paths."""
    target = root / "release" / WALKTHROUGH_ASSIGNMENT
    written = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        target.mkdir(parents=True, exist_ok=True)
        copy = target / path.name
        nbformat.write(student_walkthrough(root, path), copy)
        written.append(copy)
    return written
