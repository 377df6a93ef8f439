"""Render the nbgrader test cells of an exercise's notebook from its cases.

The instructor notebook (``source/<assignment>/<notebook>``) is edited by hand except for its
test cells: the helper cell ``test_helpers`` and one grade cell per
:class:`~autograder.grading.TestGroup`, whose sources are written by :func:`sync_source`
(``python -m autograder sync``). Hidden cases
go between nbgrader's ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` markers, which
``nbgrader generate_assignment`` strips from the student version.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat

from ...errors import CourseError
from ...grading import Call, Case, Exercise, Expect, TestGroup
from ...grading.definition.exercise import MAX_ROUNDING
from ...grading.reading import helper_cell
from ...grading.scoring import passes_without_reference

HELPER_ID = "test_helpers"
#: The last line of a hidden test cell, the only one students see below its docstring.
HIDDEN_NOTE = "pass  # hidden tests: they run when your notebook is graded"


def helper_source(exercise: Exercise) -> str:
    """The helper cell: ``check_value``, ``check_number`` and ``check_same``, which the test cells call.

    They judge as the grader does (:mod:`autograder.grading.scoring`): a value check takes the
    numeric value of any result that has one (a 0-d array, a Decimal); only ``check_number``, the
    contract, asks for a plain number. The cell is :mod:`autograder.grading.reading.helper_cell` below its
    :data:`~autograder.grading.reading.helper_cell.CELL_START` line, read as text, with the exercise's
    tolerances in place of the names that stand for them.
    """
    text = Path(helper_cell.__file__).read_text(encoding="utf-8")
    _, marker, cell = text.partition(helper_cell.CELL_START)
    if not marker:
        raise CourseError(f"{helper_cell.__file__} has no line {helper_cell.CELL_START.strip()!r}")
    values = {"REL_TOL": exercise.rel_tol, "NOISE_REL_TOL": exercise.noise_rel_tol, "ABS_TOL": exercise.abs_tol,
              "MAX_ROUNDING": MAX_ROUNDING}
    return re.sub(rf"\b({'|'.join(values)})\b", lambda m: repr(values[m.group(1)]), cell.rstrip("\n"))


def _argument(value: object) -> str:
    return repr(list(value)) if isinstance(value, tuple) else repr(value)


def _arguments(call: Call) -> str:
    return ", ".join(_argument(a) for a in call.args)


def _own(case: Case) -> str:
    if case.own_ratio is None:
        return ""
    top, bottom = case.own_ratio
    return f", own=({top.function}, ({_arguments(top)},), ({_arguments(bottom)},))"


def _case_line(exercise: Exercise, case: Case) -> str:
    unchanged = ", unchanged=True" if case.check_unchanged else ""
    provenance = f"provenance={case.provenance!r}{_own(case)}"
    if case.expect is Expect.NUMBER:
        return f"check_number({case.function}, {_arguments(case.call)}, {provenance}{unchanged})"
    if case.expect is Expect.SAME_AS and case.companion is not None:
        factor = f", factor={case.factor!r}" if case.factor != 1.0 else ""
        return (
            f"check_same({case.function}, ({_arguments(case.call)},), ({_arguments(case.companion)},), "
            f"{provenance}, reference={exercise.expected(case)!r}{factor})"
        )
    return (
        f"check_value({case.function}, {_arguments(case.call)}, expected={exercise.expected(case)!r}, "
        f"{provenance}{unchanged})"
    )


def title_line(group: TestGroup) -> str:
    """A test cell's first line: a docstring saying what it checks and what it is worth."""
    points = f"{group.points:g} point{'s' if group.points != 1 else ''}"
    return f'"""{group.description} ({points})."""'


def hidden_cell_source(group: TestGroup) -> str:
    """A hidden test cell as students see it (in the release, and after grading): what it checks, not how."""
    return f"{title_line(group)}\n{HIDDEN_NOTE}"


def without_hidden_tests(source: str) -> str:
    """``source`` without its ``### BEGIN HIDDEN TESTS`` … ``### END HIDDEN TESTS`` blocks, as the release has it.

    The rule of nbgrader's ``ClearHiddenTests``: the marker lines and every line between them go.
    """
    kept, hidden = [], False
    for line in source.splitlines():
        if line.strip() == "### BEGIN HIDDEN TESTS":
            hidden = True
        elif line.strip() == "### END HIDDEN TESTS":
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def render_group(exercise: Exercise, group: TestGroup) -> str:
    """Return the source of the grade cell for ``group``."""
    lines = [title_line(group)]
    body = [_case_line(exercise, case) for case in group.cases]
    if any(passes_without_reference(case) for case in group.cases):
        # as the grader: evidence other than the reference value must say something (not all 0, not constant)
        body = ["_seen = []"] + [
            f"_seen.append({line})" if passes_without_reference(case) else line
            for case, line in zip(group.cases, body, strict=True)
        ] + [f"check_not_vacuous({group.function}, _seen)"]
    if group.visible:
        # says so when every check passed (a failing check raises before this line)
        lines += [*body, f"print({('passed: ' + group.description)!r})"]
    else:
        lines += ["### BEGIN HIDDEN TESTS", *body, "### END HIDDEN TESTS"]
        # what students see: nothing that looks like a result (the docstring is not the cell's value)
        lines += [HIDDEN_NOTE]
    return "\n".join(lines)


def rendered_cells(exercise: Exercise) -> dict[str, str]:
    """Map each generated cell's ``grade_id`` to its source."""
    cells = {HELPER_ID: helper_source(exercise)}
    cells.update({group.grade_id: render_group(exercise, group) for group in exercise.groups})
    return cells


def nbgrader_metadata(cell: nbformat.NotebookNode) -> dict[str, Any]:
    """A cell's nbgrader metadata ({} where there is none, or where a student made it something else)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    """A cell's nbgrader ``grade_id``, if it has one."""
    value = nbgrader_metadata(cell).get("grade_id")
    return value if isinstance(value, str) else None


def out_of_sync(notebook: nbformat.NotebookNode, exercise: Exercise) -> list[str]:
    """Return the ids of generated cells that are missing from ``notebook`` or differ from the cases.

    Also checks each grade cell's points against its group.
    """
    wanted = rendered_cells(exercise)
    points = {group.grade_id: group.points for group in exercise.groups}
    present = {grade_id(cell): cell for cell in notebook.cells}
    stale = []
    for cell_id, source in wanted.items():
        cell = present.get(cell_id)
        recorded = cell.metadata["nbgrader"].get("points") if cell is not None else None
        wrong_points = cell_id in points and recorded != points[cell_id]
        if cell is None or cell.source != source or wrong_points:
            stale.append(cell_id)
    return stale


def sync_source(path: Path, exercise: Exercise) -> list[str]:
    """Rewrite the generated cells of the notebook at ``path``; return the ids that changed.

    Raises
    ------
    CourseError
        If the notebook lacks a cell for one of the test groups (add the cell with its
        ``grade_id`` in Jupyter's nbgrader toolbar first, then sync).
    """
    notebook = nbformat.read(path, as_version=4)
    wanted = rendered_cells(exercise)
    points = {group.grade_id: group.points for group in exercise.groups}
    found = {grade_id(cell) for cell in notebook.cells}
    missing = sorted(set(wanted) - found)
    if missing:
        raise CourseError(f"{path} has no cell with grade_id {', '.join(missing)}; add it, then sync again")
    changed = out_of_sync(notebook, exercise)
    for cell in notebook.cells:
        cell_id = grade_id(cell)
        if cell_id in changed:
            cell.source = wanted[cell_id]
            if cell_id in points:
                cell.metadata["nbgrader"]["points"] = points[cell_id]
    if changed:
        nbformat.write(notebook, path)
    return changed


def locked_cell_ids(exercise: Exercise, notebook: nbformat.NotebookNode) -> frozenset[str]:
    """The grade ids of a notebook's read-only code cells (tests, helpers, figures): not the student's code."""
    ids = {HELPER_ID, *(group.grade_id for group in exercise.groups)}
    if exercise.answered is not None:  # read as data, never run as the student's code
        ids |= exercise.answered.cell_ids
    for cell in notebook.cells:
        meta = nbgrader_metadata(cell)
        if cell.cell_type == "code" and grade_id(cell) and not meta.get("solution"):
            ids.add(meta["grade_id"])
    return frozenset(ids)


def student_code_cells(notebook: nbformat.NotebookNode, locked: frozenset[str]) -> list[nbformat.NotebookNode]:
    """The student's own code cells, in order (those the grader runs)."""
    return [cell for cell in notebook.cells if cell.cell_type == "code" and grade_id(cell) not in locked]


def skipped_cell_ids(exercise: Exercise, release: Path | None) -> frozenset[str]:
    """:func:`locked_cell_ids` of the release notebook (the exercise's own ids alone where there is none)."""
    if release is None or not release.is_file():
        return locked_cell_ids(exercise, nbformat.v4.new_notebook())
    return locked_cell_ids(exercise, nbformat.read(release, as_version=4))
