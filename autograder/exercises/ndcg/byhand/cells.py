"""The by-hand notebook's cells as text: the task, the derivation cell, the answer cell, the steps.

The derivation cell is :mod:`.derive`'s functions copied verbatim with the published salt and pool,
so the student's kernel and the grader derive the same list (a test checks the copy). Reading it
gives away no value: it only hashes the id and picks a list from the pool.
"""

from __future__ import annotations

import ast
import functools
import inspect

from . import derive
from .answers import NAMES
from .marking import MAX_SCORE, STEPS
from .steps import TOLERANCE

STUDENT_CELL_ID = "byhand_student"
DERIVATION_ID = "byhand_variant"
ANSWERS_ID = "byhand_answers"
TASK_ID = "byhand_task"
_FUNCTIONS = (derive.universe_size, derive.candidate, derive.fair_indices, derive.fair_pick, derive.student_list,
              derive.login_name, derive.current_student, derive._id_problem, derive.id_problem,
              derive.notebook_student)


def task_markdown() -> str:
    """The task's wording, with the points split and the tolerance."""
    split = ", ".join(f"{step.description.split(' (')[0]} {step.points:g}" for step in STEPS)
    return (
        f"## Task 1.2 — nDCG by hand ({MAX_SCORE:g} points)\n\n"
        "*After exams WS 17/18 and WS 19/20, Task 1.2; WS 23/24, Task 1.3.* Every student gets **their own "
        "ranked list** of graded relevances (0–3), derived from your student id: type it once in the cell below "
        "(`STUDENT_ID = \"ab123\"`, the login name you hand your notebook in under), then run the read-only "
        "cell after it; "
        f"the cut-off is k = {derive.CUTOFF}. Work out by hand (a calculator is fine, code is not):\n\n"
        "1. the **ideal ranking**: your grades sorted best first;\n"
        "2. **DCG@k** with gain $rel_i$ and discount $\\log_2(i+1)$;\n"
        "3. **iDCG@k**: the DCG@k of the ideal ranking;\n"
        "4. **nDCG@k** = DCG@k / iDCG@k.\n\n"
        f"Points: {split}. An answer counts when it is within {TOLERANCE:g} of the exact value (two decimals are "
        "enough). nDCG@k also counts when it is your own DCG@k / iDCG@k, so one mistake costs only its steps "
        "(when DCG@k is below iDCG@k and one of them is worked out from your list). "
        "Answers are read as numbers (`+ - * /` allowed), never run as code. The grader derives your list again "
        "from the id your submission is filed under, whatever the cells below printed: with another id "
        "typed here, your answers are for another student's list."
    )


def student_source() -> str:
    """The cell where the student types their id once: the only input of the list the notebook shows.

    A solution cell, so that nbgrader records it (autograde drops the id of a cell it does not know):
    the release shows nbgrader's stub in place of the solution region, which the student replaces.
    """
    return (
        "# Task 1.2: your student id, typed once: the login name you hand your notebook in under (your\n"
        "# JupyterHub or course-machine account), also when you work on your own computer.\n"
        "# Replace the lines below with it, e.g.   STUDENT_ID = \"ab123\"\n"
        "### BEGIN SOLUTION\n"
        "STUDENT_ID = __import__('pwd').getpwuid(__import__('os').getuid())[0]  # the instructor's version only\n"
        "### END SOLUTION\n"
    )


def derivation_source(salt: str, pool: str, earlier: tuple[str, ...] = ()) -> str:
    """The read-only cell that shows the student's list: constants, the copied functions, the output.

    ``earlier``: the salts of earlier releases of this offering (a salt changed after students had
    handed in); a notebook fetched before the change is marked against the list it showed.
    """
    constants = "\n".join(
        f"{name} = {getattr(derive, name)!r}" for name in ("LENGTH", "CUTOFF", "RELEVANT", "TOP_GRADE"))
    functions = "\n\n\n".join(inspect.getsource(function).strip() for function in _FUNCTIONS)
    # the module's own imports, so that the cell's code is all derive.py's (linted, type-checked)
    imports = "".join(
        f"{ast.unparse(node)}\n" for node in ast.parse(inspect.getsource(derive)).body if isinstance(node, ast.Import))
    return (
        '"""Your own ranked list for Task 1.2, derived from STUDENT_ID above. Run this cell; do not change it."""\n'
        f"{imports}\n"
        f"SALT = {salt!r}\n"
        + (f"EARLIER_SALTS = {tuple(earlier)!r}  # of earlier releases: their lists stay yours\n" if earlier else "")
        + f"{constants}\nPOOL = {pool!r}\n\n\n{functions}\n\n\n"
        "STUDENT = notebook_student(globals().get('STUDENT_ID', ''))\n"
        "RELS = list(student_list(STUDENT, SALT, POOL))\nK = CUTOFF\n"
        'print(f"student {STUDENT}: your ranked list is RELS = {RELS}, k = K = {K}")\n'
        'print("rank i:     " + "  ".join(f"{i:>2}" for i in range(1, len(RELS) + 1)))\n'
        'print("grade rel_i:" + "  ".join(f"{r:>2}" for r in RELS))\n'
    )


def answers_source() -> str:
    """The answer cell as in the source notebook (nbgrader replaces the solution region in the release)."""
    return (
        "# Your answers to Task 1.2, worked out by hand: numbers (two decimals are enough), not code.\n"
        "# Replace the line below with:\n"
        "#   IDEAL_RANKING = [...]   # your grades sorted best first\n"
        "#   DCG_AT_K = ...\n#   IDCG_AT_K = ...\n#   NDCG_AT_K = ...\n"
        "### BEGIN SOLUTION\n"
        "IDEAL_RANKING = sorted(RELS, reverse=True)  # the instructor's version only: students write numbers\n"
        "DCG_AT_K = sum(r / __import__('math').log2(i + 2) for i, r in enumerate(RELS[:K]))\n"
        "IDCG_AT_K = sum(r / __import__('math').log2(i + 2) for i, r in enumerate(IDEAL_RANKING[:K]))\n"
        "NDCG_AT_K = DCG_AT_K / IDCG_AT_K\n"
        "### END SOLUTION\n"
    )


def _value_check(step: str) -> list[str]:
    """The hidden lines that check a step's value when nbgrader's own Execute grades the notebook.

    The kit never runs them (its grader reads the answers as data, :mod:`.answered_part`); they are for a
    course that autogrades with plain nbgrader, where a cell without them gives full points to any
    number. The list is derived again from the published salt and pool and the id the submission is
    filed under (:func:`.derive.current_student` reads it from the autograded folder), the values
    from the course's definition (gain rel_i, discount log2(i+1), the whole list sorted, cut at k),
    with the notebook's tolerance and the same follow-through as :func:`.marking.step_passes`.
    """
    name = NAMES[step]
    lines = [
        "# checked when graded: your list derived again from the id your submission is filed under",
        "_rels = [float(g) for g in student_list(current_student(), SALT, POOL)]",
        "_ideal = sorted(_rels, reverse=True)",
        "_dcg = sum(g / __import__('math').log2(i + 2) for i, g in enumerate(_rels[:CUTOFF]))",
        "_idcg = sum(g / __import__('math').log2(i + 2) for i, g in enumerate(_ideal[:CUTOFF]))",
        f"_tol = {TOLERANCE!r} + 1e-12",
    ]
    wrong = f"f'{name} = {{{name}!r}} is not {{_what}}'"
    if step == "ideal":
        lines += ["_what = 'the ideal ranking of your list'",
                  f"assert [float(g) for g in {name}] in (_ideal, _ideal[:CUTOFF]), {wrong}"]
    elif step == "ndcg":
        lines += [
            "_right = _dcg / _idcg if _idcg else 0.0",
            *_worked_values(),
            "_own = [globals().get('DCG_AT_K'), globals().get('IDCG_AT_K')]",
            "_own = [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None for v in _own]",
            "_follows = (None not in _own and 0 < _own[0] < _own[1] and _own[1] - _own[0] > _tol"
            " and (any(abs(_own[0] - v) <= _tol for v in _dcgs) or any(abs(_own[1] - v) <= _tol for v in _idcgs))"
            " and abs(NDCG_AT_K - _own[0] / _own[1]) <= _tol)",
            "_what = 'nDCG@k of your list, nor your own DCG_AT_K / IDCG_AT_K'",
            f"assert abs({name} - _right) <= _tol or _follows, {wrong}",
        ]
    else:
        label = {"dcg": "DCG@k", "idcg": "iDCG@k"}[step]
        lines += [f"_what = '{label} of your list (within {TOLERANCE:g})'",
                  f"assert abs({name} - _{step}) <= _tol, {wrong}"]
    return ["### BEGIN HIDDEN TESTS", *lines, "### END HIDDEN TESTS"]


def _worked_values() -> list[str]:
    """Hidden lines: ``_dcgs`` and ``_idcgs``, what the right way and each hand mistake give on the list.

    The same values as :func:`.steps.every_steps` (a test runs these lines against it): the
    follow-through of :func:`.marking.follows_through` needs one of the student's own values among them.
    """
    return [
        "_m = __import__('math')",
        "_discounts = (lambda i: _m.log2(i + 1), lambda i: _m.log(i + 1), lambda i: _m.log10(i + 1),"
        " lambda i: _m.log2(i) if i > 1 else 1.0)",
        "_ways = [(lambda g: g, d) for d in _discounts] + [(lambda g: 2.0 ** g - 1.0, _discounts[0])]",
        "_sum = lambda gain, discount, grades, n: sum(gain(g) / discount(i) for i, g in enumerate(grades[:n], 1))",
        "_dcgs = [_sum(gain, discount, _rels, CUTOFF) for gain, discount in _ways]",
        "_idcgs = [_sum(gain, discount, _ideal, CUTOFF) for gain, discount in _ways] + [_dcg, _sum(_ways[0][0], "
        "_discounts[0], sorted(_rels[:CUTOFF], reverse=True), CUTOFF), _sum(_ways[0][0], _discounts[0], _ideal, "
        "len(_ideal))]",
    ]


def step_source(grade_id: str) -> str:
    """A step's grade cell: a format check the student can run; its value is checked (hidden) when graded."""
    step = next(s for s in STEPS if s.grade_id == grade_id)
    name = NAMES[step.step]
    if step.step == "ideal":
        check = f"assert isinstance({name}, list) and {name}, 'write {name} as a list of grades, e.g. [3, 2, 1, 0]'"
    else:
        check = f"assert isinstance({name}, (int, float)), 'write {name} as a number, e.g. 0.87'"
    # nbgrader validate reports only grade cells: the first step's says what is wrong with STUDENT_ID
    typed = "globals().get('STUDENT_ID', '')"
    checked = [f"assert id_problem({typed}) is None, id_problem({typed})"] if step.step == STEPS[0].step else []
    unit = "point" if step.points == 1 else "points"
    title = f"Task 1.2: {step.description} ({step.points:g} {unit}); its value is checked when your notebook is graded."
    return "\n".join([
        f'"""{title}"""', *checked, check, *_value_check(step.step), f"print('{name} is answered:', {name})"])


@functools.lru_cache(maxsize=8)  # the release's one cell, read for every student
def earlier_salts(derivation: str) -> tuple[str, ...]:
    """The salts of earlier releases a derivation cell keeps (``EARLIER_SALTS``), read without running it.

    A cell without them (most) keeps none; anything but a tuple of strings there counts as none.
    """
    for statement in ast.parse(derivation).body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == "EARLIER_SALTS"):
            try:
                value = ast.literal_eval(statement.value)
            except ValueError:
                return ()
            if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
                return value
            return ()
    return ()


@functools.lru_cache(maxsize=8)  # the release's one cell, read for every student (4 ms a parse)
def published(derivation: str) -> tuple[str, str]:
    """The salt and pool a derivation cell publishes, read without running it.

    Raises
    ------
    ValueError
        If the cell does not assign ``SALT`` and ``POOL`` as string literals.
    """
    found: dict[str, str] = {}
    for statement in ast.parse(derivation).body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            value = statement.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                found[target.id] = value.value
    if "SALT" not in found or "POOL" not in found:
        raise ValueError("the derivation cell does not publish SALT and POOL as string literals")
    return found["SALT"], found["POOL"]
