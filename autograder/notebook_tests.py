"""Render the nbgrader test cells of the exam notebook from :mod:`autograder.cases`.

The instructor notebook ``source/ndcg/ndcg.ipynb`` is edited by hand except for its test cells:
the helper cell ``test_helpers`` and one grade cell per :class:`~autograder.cases.TestGroup`,
whose sources are written by :func:`sync_source` (``python -m autograder sync``). Hidden cases
go between nbgrader's ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` markers, which
``nbgrader generate_assignment`` strips from the student version.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from .cases import ABS_TOL, GROUPS, REL_TOL, Case, TestGroup, expected

HELPER_ID = "test_helpers"

_HELPER_SOURCE = f'''"""Helpers used by the test cells below. Run this cell; do not change it."""
import copy
import math
import numbers


def check_value(function, rels, k, expected, provenance, unchanged=False):
    """Check that function(rels, k) returns a number close to `expected`."""
    original = copy.deepcopy(rels)
    result = function(rels, k)
    call = f"{{function.__name__}}({{original!r}}, {{k!r}})"
    if isinstance(result, bool) or not isinstance(result, numbers.Real):
        raise AssertionError(f"{{call}} returned {{result!r}} ({{type(result).__name__}}); expected a number [{{provenance}}]")
    if not math.isclose(result, expected, rel_tol={REL_TOL!r}, abs_tol={ABS_TOL!r}):
        raise AssertionError(f"{{call}} returned {{result!r}}; expected {{expected!r}} [{{provenance}}]")
    if unchanged and rels != original:
        raise AssertionError(f"{{call}} changed its input list to {{rels!r}}; do not modify `rels` [{{provenance}}]")'''


def _case_line(case: Case) -> str:
    unchanged = ", unchanged=True" if case.check_unchanged else ""
    return (
        f"check_value({case.function}, {list(case.rels)!r}, {case.k!r}, {expected(case)!r}, "
        f"{case.provenance!r}{unchanged})"
    )


def render_group(group: TestGroup) -> str:
    """Return the source of the grade cell for ``group``."""
    points = f"{group.points:g} point{'s' if group.points != 1 else ''}"
    lines = [f'"""{group.description} ({points})."""']
    body = [_case_line(case) for case in group.cases]
    if group.visible:
        lines += body
    else:
        lines += ["# Hidden tests: they run when your notebook is graded.", "### BEGIN HIDDEN TESTS", *body, "### END HIDDEN TESTS"]
    return "\n".join(lines)


def rendered_cells() -> dict[str, str]:
    """Map each generated cell's ``grade_id`` to its source."""
    cells = {HELPER_ID: _HELPER_SOURCE}
    cells.update({group.grade_id: render_group(group) for group in GROUPS})
    return cells


def _grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def out_of_sync(notebook: nbformat.NotebookNode) -> list[str]:
    """Return the ids of generated cells that are missing from ``notebook`` or differ from the cases.

    Also checks each grade cell's points against its group.
    """
    wanted = rendered_cells()
    points = {group.grade_id: group.points for group in GROUPS}
    present = {_grade_id(cell): cell for cell in notebook.cells}
    stale = []
    for grade_id, source in wanted.items():
        cell = present.get(grade_id)
        if cell is None or cell.source != source:
            stale.append(grade_id)
        elif grade_id in points and cell.metadata["nbgrader"].get("points") != points[grade_id]:
            stale.append(grade_id)
    return stale


def sync_source(path: Path) -> list[str]:
    """Rewrite the generated cells of the notebook at ``path``; return the ids that changed.

    Raises
    ------
    ValueError
        If the notebook lacks a cell for one of the test groups (add the cell with its
        ``grade_id`` in Jupyter's nbgrader toolbar first, then sync).
    """
    notebook = nbformat.read(path, as_version=4)
    wanted = rendered_cells()
    points = {group.grade_id: group.points for group in GROUPS}
    found = {_grade_id(cell) for cell in notebook.cells}
    missing = sorted(set(wanted) - found)
    if missing:
        raise ValueError(f"{path} has no cell with grade_id {', '.join(missing)}; add it, then sync again")
    changed = out_of_sync(notebook)
    for cell in notebook.cells:
        grade_id = _grade_id(cell)
        if grade_id in changed:
            cell.source = wanted[grade_id]
            if grade_id in points:
                cell.metadata["nbgrader"]["points"] = points[grade_id]
    if changed:
        nbformat.write(notebook, path)
    return changed
