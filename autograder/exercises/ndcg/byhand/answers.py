"""A student's by-hand answers, read from the answer cell's text: numbers only, never run, within bounds.

The answer cell holds four assignments (``IDEAL_RANKING = [3, 2, ...]``, ``DCG_AT_K = 4.12``, ...).
They are read with :mod:`ast` and evaluated only as number literals and the arithmetic a
calculator does (``+ - * /``, parentheses), so a student's code in the cell never runs in the
grader and a formula like ``sorted(...)`` is not an answer.

Everything in the cell is the student's, so the reader is bounded before it builds anything:
``ast.parse`` itself takes about 200 bytes of memory per character of a long sum (a 7 MB cell of
``1+1+…`` took the grader to 1.5 GB) and recurses on deep nesting, so the cell's length, its token
count and how deeply it nests brackets and signs are checked on the token stream first (iterative,
constant memory); then each answer's size in nodes, each number's size and every intermediate
result. An answer outside a bound is refused with a one-line message; the cell as a whole only
when it is too long or too deep to read at all.
"""

from __future__ import annotations

import ast
import io
import math
import operator
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field

#: The answer cell's names, by step.
NAMES = {"ideal": "IDEAL_RANKING", "dcg": "DCG_AT_K", "idcg": "IDCG_AT_K", "ndcg": "NDCG_AT_K"}
_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
#: An answer list longer than this is no ranking of the exercise (and keeps a result small).
MAX_LIST = 50
#: The answer cell's length: the release's cell with four answers and a line of working each is
#: under 1,000 characters; more is not read at all (``ast.parse`` is the memory hog, not the numbers).
MAX_CELL_CHARS = 10_000
#: Brackets and signs nested deeper than this (``((((…``, ``-(-(-…``, ``- - - …``) are no calculation.
MAX_DEPTH = 20
#: Nodes of one answer: a DCG@5 worked out as five fractions is about 20; a list of 50 grades 51.
MAX_NODES = 120
#: Tokens of one line: far above an answer worked out term by term, far below a sum that nests too deeply to read.
MAX_LINE_TOKENS = 400
#: Any number written or computed on the way: far above every DCG of a list of grades 0–3.
MAX_MAGNITUDE = 1e9
#: The characters of one number literal (``4.1234567890123`` is 15).
MAX_LITERAL = 30
_SIGNS = frozenset({"-", "+", "~"})
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


class NotANumber(ValueError):
    """The reader's refusal: an answer that is not a number a calculator gives (its message says why)."""


@dataclass(frozen=True)
class Answers:
    """The four answers, None where a step is unanswered, and why an answer could not be read."""

    ideal: tuple[float, ...] | None = None
    dcg: float | None = None
    idcg: float | None = None
    ndcg: float | None = None
    #: ``{step: one-line message}`` for answers written but not readable as numbers ("cell": the whole cell).
    problems: dict[str, str] = field(default_factory=dict)

    def number(self, step: str) -> float | None:
        """The answer of ``step`` ("dcg", "idcg" or "ndcg")."""
        return {"dcg": self.dcg, "idcg": self.idcg, "ndcg": self.ndcg}[step]


def _checked(value: float) -> float:
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise NotANumber(f"is larger than any answer of this task (beyond {MAX_MAGNITUDE:g})")
    return value


def _literal(node: ast.Constant) -> float:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kinds = {str: "text", bytes: "bytes", bool: "a truth value", complex: "a complex number"}
        kind = kinds.get(type(value), "a value")
        raise NotANumber(f"must be a number such as 2.43, not {kind} ({_shown(value)})")
    if isinstance(value, int) and abs(value) > MAX_MAGNITUDE:  # compared as an int: no float overflow
        raise NotANumber(f"is larger than any answer of this task (beyond {MAX_MAGNITUDE:g})")
    return _checked(float(value))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 20 else text[:17] + "..."


def _what(node: ast.AST) -> str:
    """The student's terms for what they wrote instead of a number."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"a name ({ast.unparse(node)[:20]})"
    if isinstance(node, ast.Call):
        return "a function call: write the number it gives"
    if isinstance(node, ast.BinOp):
        return "the operator " + {ast.Pow: "**", ast.FloorDiv: "//", ast.Mod: "%"}.get(type(node.op), "used")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return "a list"
    return "a formula or a name"


def _number(node: ast.expr) -> float:
    """The value of a calculator expression (at most :data:`MAX_NODES` nodes deep, checked before)."""
    if isinstance(node, ast.Constant):
        return _literal(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _number(node.operand) * (-1.0 if isinstance(node.op, ast.USub) else 1.0)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _number(node.left), _number(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise NotANumber("divides by zero")
        return _checked(_OPERATORS[type(node.op)](left, right))
    raise NotANumber(f"must be a number such as 2.43 (+ - * / are fine), not {_what(node)}")


def _value(step: str, node: ast.expr) -> float | tuple[float, ...]:
    for nodes, _ in enumerate(ast.walk(node), start=1):  # iterative: counts a long sum without recursing into it
        if nodes > MAX_NODES:
            raise NotANumber(f"is too long a calculation (more than {MAX_NODES} numbers and signs): write the number")
    if step != "ideal":
        return _number(node)
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise NotANumber("must be a list of grades such as [3, 2, 2, 1, 0], not a formula or a name")
    if len(node.elts) > MAX_LIST:
        raise NotANumber(f"has more than {MAX_LIST} grades")
    try:
        return tuple(_number(element) for element in node.elts)
    except NotANumber as problem:
        raise NotANumber(f"must be a list of grades such as [3, 2, 2, 1, 0]: a grade {problem}") from None


def _too_big(source: str) -> str | None:
    """Why the cell cannot be read at all (too long, too deep), from its tokens; None when it can be parsed."""
    if len(source) > MAX_CELL_CHARS:
        return f"the answer cell has {len(source):,} characters, more than {MAX_CELL_CHARS:,}: write only the answers"
    depth = signs = tokens = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens = 0 if token.type == tokenize.NEWLINE else tokens + 1
            if tokens > MAX_LINE_TOKENS:
                return (f"line {token.start[0]} of the answer cell has more than {MAX_LINE_TOKENS} numbers and signs: "
                        "write the number")
            if token.type != tokenize.OP:
                signs = 0
                continue
            depth += (token.string in _OPENING) - (token.string in _CLOSING)
            # a sign after an operand is a binary operator; a run of signs and brackets nests
            signs = signs + 1 if token.string in _SIGNS else signs if token.string in _OPENING else 0
            if depth + signs > MAX_DEPTH:
                return f"the answer cell nests brackets and signs more than {MAX_DEPTH} deep: write the numbers"
    except (tokenize.TokenError, SyntaxError):  # ast.parse names the line
        return None
    return None


def _literal_too_long(statement: ast.stmt) -> bool:
    """Whether a number literal of ``statement`` is written with more than :data:`MAX_LITERAL` characters."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)):
            end = node.end_col_offset if node.end_lineno == node.lineno else None
            written = end - node.col_offset if end is not None else MAX_LITERAL + 1
            if written > MAX_LITERAL or len(repr(node.value)) > MAX_LITERAL:
                return True
    return False


def read_answers(source: str) -> Answers:
    """Read the answer cell's text, within the bounds above; never raises for anything the student wrote.

    Parameters
    ----------
    source : str
        The answer cell's source as submitted.

    Returns
    -------
    Answers
        The steps answered; an unparsable, too long or too deeply nested cell, an answer that is
        code, too large or ``None`` leaves its step unanswered, with a one-line message in
        :attr:`Answers.problems` for what was written.
    """
    refused = _too_big(source)
    if refused is not None:
        return Answers(problems={"cell": f"{refused}; no answer read"})
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        line = f" (line {error.lineno})" if error.lineno else ""
        return Answers(problems={"cell": f"the answer cell is not valid Python{line}: no answer read"})
    except (ValueError, RecursionError, MemoryError):  # a NUL byte; nesting the token bound let through
        return Answers(problems={"cell": "the answer cell cannot be read as Python: no answer read"})
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
            if _literal_too_long(statement):
                raise NotANumber(f"has a number of more than {MAX_LITERAL} characters: two decimals are enough")
            found[step] = _value(step, statement.value)
            problems.pop(step, None)
        except NotANumber as problem:
            found.pop(step, None)
            problems[step] = f"`{NAMES[step]}` {problem}"
    return Answers(problems=problems, **found)  # type: ignore[arg-type]
