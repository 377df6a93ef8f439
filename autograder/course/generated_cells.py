"""Render the nbgrader test cells of an exercise's notebook from its cases.

The instructor notebook (``source/<assignment>/<notebook>``) is edited by hand except for its
test cells: the helper cell ``test_helpers`` and one grade cell per
:class:`~autograder.grading.TestGroup`, whose sources are written by :func:`sync_source`
(``python -m autograder sync``). Hidden cases
go between nbgrader's ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` markers, which
``nbgrader generate_assignment`` strips from the student version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat

from ..errors import CourseError
from ..grading import Call, Case, Exercise, Expect, TestGroup
from ..grading.exercise import MAX_ROUNDING
from ..grading.scoring import indirect

HELPER_ID = "test_helpers"
#: The last line of a hidden test cell, the only one students see below its docstring.
HIDDEN_NOTE = "pass  # hidden tests: they run when your notebook is graded"


def helper_source(exercise: Exercise) -> str:
    """The helper cell: ``check_value``, ``check_number`` and ``check_same``, which the test cells call.

    They judge as the grader does (:mod:`autograder.grading.scoring`): a value check takes the
    numeric value of any result that has one (a 0-d array, a Decimal); only ``check_number``, the
    contract, asks for a plain number.
    """
    return f'''"""Helpers used by the test cells below. Run this cell; do not change it."""
import copy
import math
import numbers


def _call(function, args, provenance, unchanged=False, plain=False):
    """Call function(*args); return the call as text and the number it returned."""
    originals = copy.deepcopy(args)
    result = function(*args)
    call = f"{{function.__name__}}({{', '.join(map(repr, originals))}})"
    kind = type(result).__name__
    if result is None or isinstance(result, (bool, str, bytes, list, tuple, dict)):
        raise AssertionError(f"{{call}} returned {{result!r}} ({{kind}}); expected a number [{{provenance}}]")
    if plain and not isinstance(result, numbers.Real):
        raise AssertionError(f"{{call}} returned {{result!r}} ({{kind}}), not a plain number (float) [{{provenance}}]")
    try:
        value = float(result)
    except Exception:
        raise AssertionError(f"{{call}} returned {{result!r}} ({{kind}}); expected a number [{{provenance}}]") from None
    if unchanged and args[0] != originals[0]:
        raise AssertionError(f"{{call}} changed its input list to {{args[0]!r}}; do not modify it [{{provenance}}]")
    return call, value


def _close(a, b):
    """The grader's tolerance: float32 noise is forgiven, a rounded result is not (autograder within_tolerance)."""
    if math.isclose(a, b, rel_tol={exercise.rel_tol!r}, abs_tol={exercise.abs_tol!r}):
        return True
    if not math.isclose(a, b, rel_tol={exercise.noise_rel_tol!r}, abs_tol={exercise.abs_tol!r}):
        return False
    return not any(math.isclose(a, round(a, n), rel_tol=1e-15, abs_tol=0.0) for n in range({MAX_ROUNDING}))


def _own(own, provenance):
    """own = (helper, top, bottom): helper(*top) and helper(*bottom)."""
    helper, top, bottom = own
    return _call(helper, top, provenance)[1], _call(helper, bottom, provenance)[1]


def _judge(value, primary, own, provenance):
    """(passed, passed only through the own ratio, the own values differ) of one value."""
    try:
        numerator, denominator = _own(own, provenance) if own is not None else (None, None)
    except Exception:  # the helper itself fails (a stub): no evidence either way, as in the grader
        numerator, denominator = None, None
    through_own = not primary and bool(denominator) and _close(value, numerator / denominator)
    return primary or through_own, through_own, numerator is not None and numerator != denominator


def check_value(function, *args, expected, provenance, unchanged=False, own=None):
    """Check that function(*args) returns a number close to `expected` (or to the ratio `own` names).

    Returns what `check_not_vacuous` needs: the value, `expected`, and how it passed.
    """
    call, value = _call(function, args, provenance, unchanged)
    passed, through_own, distinct = _judge(value, _close(value, expected), own, provenance)
    if not passed:
        raise AssertionError(f"{{call}} returned {{value!r}}; expected {{expected!r}} [{{provenance}}]")
    return value, expected, through_own, distinct


def check_number(function, *args, provenance, unchanged=False):
    """Check that function(*args) returns a plain number, whatever its value."""
    _call(function, args, provenance, unchanged, plain=True)


def check_same(function, args, other, provenance, reference, factor=1.0, own=None):
    """Check that function(*args) returns `factor` times what function(*other) returns (or the ratio `own` names).

    Returns what `check_not_vacuous` needs: the value, the definition's value `reference`, how it passed.
    """
    call, value = _call(function, args, provenance)
    other_call, other_value = _call(function, other, provenance)
    passed, through_own, distinct = _judge(value, _close(value, factor * other_value), own, provenance)
    if not passed:
        raise AssertionError(
            f"{{call}} returned {{value!r}}, but {{other_call}} returned {{other_value!r}}: they should agree"
            + (f" (times {{factor!r}})" if factor != 1.0 else "") + f" [{{provenance}}]"
        )
    return value, reference, through_own, distinct


def check_not_vacuous(function, seen):
    """A group passed on properties or own ratios counts only if that evidence says something.

    Not if every value is 0 where the definition's is not (0 == 2 * 0 holds for a stub), nor if
    a value matched only the ratio of a dcg that gives a ranking and its ideal the same value.
    """
    nonzero = any(value != 0 and reference != 0 for value, reference, _, _ in seen)
    through_own = any(through for _, _, through, _ in seen)
    if not nonzero or (through_own and not any(distinct for _, _, _, distinct in seen)):
        raise AssertionError(
            f"the values of {{function.__name__}} here say nothing: 0 where the definition's are not, or "
            "matching only a dcg that gives every ranking the same value"
        )'''


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


def render_group(exercise: Exercise, group: TestGroup) -> str:
    """Return the source of the grade cell for ``group``."""
    lines = [title_line(group)]
    body = [_case_line(exercise, case) for case in group.cases]
    if any(indirect(case) for case in group.cases):
        # as the grader: evidence other than the reference value must say something (not all 0, not constant)
        body = ["_seen = []"] + [
            f"_seen.append({line})" if indirect(case) else line for case, line in zip(group.cases, body, strict=True)
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
