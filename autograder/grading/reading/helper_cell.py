"""The helper cell of an exercise's notebook, as a module: linted, type-checked, imported by the grader.

Everything below :data:`CELL_START` is the source of the notebook's ``test_helpers`` cell, which
nbgrader's own Execute runs in the student's kernel: standard library only, nothing from this
package. :func:`autograder.course.notebook_cells.generated_cells.helper_source` reads this file as text and
puts the exercise's tolerances in place of the four names defined above the line, so the cell
holds plain numbers. The grader imports :func:`check_not_vacuous` from here
(:mod:`..scoring`): the evidence rule is written once, for the notebook and the grader alike.

The cell's text is fixed: the released notebooks and the gradebook hold it, and a submission's
SHA-256 covers it, so an edit below the line changes every notebook (``make release``).
"""

from ..definition.exercise import MAX_ROUNDING

#: Stand-ins for the exercise's tolerances (:class:`~..definition.exercise.Exercise`), replaced by its values as
#: whole words in the cell's text (so are the decimals of :data:`MAX_ROUNDING`).
REL_TOL = 1e-9
NOISE_REL_TOL = 1e-5
ABS_TOL = 1e-12
#: The line after which the file is the cell.
CELL_START = "# ---- the cell: everything below this line ----\n"

# ---- the cell: everything below this line ----
"""Helpers used by the test cells below. Run this cell; do not change it."""
import copy
import math
import numbers


def _call(function, args, provenance, unchanged=False, plain=False):
    """Call function(*args); return the call as text and the number it returned."""
    originals = copy.deepcopy(args)
    result = function(*args)
    call = f"{function.__name__}({', '.join(map(repr, originals))})"
    kind = type(result).__name__
    if result is None or isinstance(result, (bool, str, bytes, list, tuple, dict)):
        raise AssertionError(f"{call} returned {result!r} ({kind}); expected a number [{provenance}]")
    if plain and not isinstance(result, numbers.Real):
        raise AssertionError(f"{call} returned {result!r} ({kind}), not a plain number (float) [{provenance}]")
    try:
        value = float(result)
    except Exception:
        raise AssertionError(f"{call} returned {result!r} ({kind}); expected a number [{provenance}]") from None
    if unchanged and args[0] != originals[0]:
        raise AssertionError(f"{call} changed its input list to {args[0]!r}; do not modify it [{provenance}]")
    return call, value


def _close(a, b):
    """The grader's tolerance: float32 noise is forgiven, a rounded result is not (autograder within_tolerance)."""
    if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL):
        return True
    if not math.isclose(a, b, rel_tol=NOISE_REL_TOL, abs_tol=ABS_TOL):
        return False
    return not any(math.isclose(a, round(a, n), rel_tol=1e-15, abs_tol=0.0) for n in range(MAX_ROUNDING))


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
        raise AssertionError(f"{call} returned {value!r}; expected {expected!r} [{provenance}]")
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
            f"{call} returned {value!r}, but {other_call} returned {other_value!r}: they should agree"
            + (f" (times {factor!r})" if factor != 1.0 else "") + f" [{provenance}]"
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
            f"the values of {function.__name__} here say nothing: 0 where the definition's are not, or "
            "matching only a dcg that gives every ranking the same value"
        )
