"""A student's by-hand answers, read from the answer cell's text: numbers only, never run.

The answer cell holds four assignments (``IDEAL_RANKING = [3, 2, ...]``, ``DCG_AT_K = 4.12``, ...).
They are read with :mod:`ast` and evaluated only as number literals and the arithmetic a
calculator does (``+ - * /``, parentheses), so a student's code in the cell never runs in the
grader and a formula like ``sorted(...)`` is not an answer.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass, field

#: The answer cell's names, by step.
NAMES = {"ideal": "IDEAL_RANKING", "dcg": "DCG_AT_K", "idcg": "IDCG_AT_K", "ndcg": "NDCG_AT_K"}
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
#: An answer list longer than this is no ranking of the exercise (and keeps a result small).
MAX_LIST = 50


class NotANumber(ValueError):
    """An answer that is not a number a calculator gives (its message names what was found)."""


@dataclass(frozen=True)
class Answers:
    """The four answers, None where a step is unanswered, and why an answer could not be read."""

    ideal: tuple[float, ...] | None = None
    dcg: float | None = None
    idcg: float | None = None
    ndcg: float | None = None
    #: ``{step: one-line message}`` for answers written but not readable as numbers.
    problems: dict[str, str] = field(default_factory=dict)

    def number(self, step: str) -> float | None:
        """The answer of ``step`` ("dcg", "idcg" or "ndcg")."""
        return {"dcg": self.dcg, "idcg": self.idcg, "ndcg": self.ndcg}[step]


def _number(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        value = float(node.value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(node.operand) * (-1.0 if isinstance(node.op, ast.USub) else 1.0)
    elif isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        try:
            value = _OPERATORS[type(node.op)](_number(node.left), _number(node.right))
        except ZeroDivisionError:
            raise NotANumber("divides by zero") from None
    else:
        raise NotANumber(f"write a number (found {type(node).__name__.lower()} code, not a number)")
    if not math.isfinite(value):
        raise NotANumber("is not a finite number")
    return value


def _value(step: str, node: ast.expr) -> float | tuple[float, ...]:
    if step != "ideal":
        return _number(node)
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise NotANumber("write the ideal ranking as a list of grades, e.g. [3, 2, 2, 1, 0]")
    if len(node.elts) > MAX_LIST:
        raise NotANumber(f"has more than {MAX_LIST} grades")
    return tuple(_number(element) for element in node.elts)


def read_answers(source: str) -> Answers:
    """Read the answer cell's text.

    Parameters
    ----------
    source : str
        The answer cell's source as submitted.

    Returns
    -------
    Answers
        The steps answered; an unparsable cell, an answer that is code or ``None`` leaves its step
        unanswered, with a one-line message in :attr:`Answers.problems` for what was written.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return Answers(problems={"cell": f"the answer cell is not valid Python (line {error.lineno}): no answer read"})
    found: dict[str, object] = {}
    problems: dict[str, str] = {}
    steps = {name: step for step, name in NAMES.items()}
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id in steps):
            continue
        step = steps[statement.targets[0].id]
        if isinstance(statement.value, ast.Constant) and statement.value.value in (None, Ellipsis):
            found.pop(step, None)  # a later "= None" takes an answer back
            continue
        try:
            found[step] = _value(step, statement.value)
            problems.pop(step, None)
        except NotANumber as problem:
            found.pop(step, None)
            problems[step] = f"{NAMES[step]} {problem}"
    return Answers(problems=problems, **found)  # type: ignore[arg-type]
