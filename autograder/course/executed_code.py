"""The code a student's cell hands to ``exec``, ``eval`` or ``compile`` as string constants, found without running it.

A copy wrapped in ``exec('''…''')`` is one string token to a code fingerprint: the copying report
compares the text inside too. Found on the token stream (:mod:`tokenize`, iterative and in
constant memory, whatever the cell's size): a string constant (or adjacent ones) that is the first
argument of a call of ``exec``, ``eval`` or ``compile`` (also as ``builtins.exec``), or that a name
was assigned at the start of a statement and the name is that argument (``code = '''…'''``, then
``exec(code)``). The text found is searched the same way, to :data:`MAX_DEPTH` levels. Code built at
run time (decoded, joined from parts, read from a file) is not seen: it is no constant.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The functions that run or compile a string as code.
EXECUTING = frozenset({"exec", "eval", "compile"})
#: How many levels of strings inside executed strings are opened.
MAX_DEPTH = 4
_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT})
_STARTS = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})


@dataclass
class _Scan:
    """What one pass over a text found: executed constants, executed names, names assigned constants."""

    constants: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    assigned: dict[str, list[str]] = field(default_factory=dict)


def _text(token: str) -> str | None:
    """The value of one string token (None for an f-string or anything that is no constant)."""
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


def _tokens(source: str) -> Iterator[tokenize.TokenInfo]:
    """The significant tokens of ``source`` (comments, blank lines, indentation left out), up to an error."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in _SKIPPED or token.type in _STARTS:
                yield token
    except (tokenize.TokenError, SyntaxError):  # the rest of an unfinished cell is no code either
        return


def _scan(source: str) -> _Scan:
    found = _Scan()
    # a small window of the stream: the token before the call's "(", and the state of what follows it
    before: tokenize.TokenInfo | None = None
    last: tokenize.TokenInfo | None = None
    strings: list[str] = []
    state = ""  # "call": after exec( ; "name": after exec(NAME ; "assign": after NAME = at a statement's start
    target = ""
    brackets = 0  # parentheses around the constant: exec(("…")), code = ("…" "…")
    for token in _tokens(source):
        if state in ("call", "assign") and token.type == tokenize.STRING:
            strings.append(token.string)
        elif state in ("call", "assign") and token.string == "(" and not strings:
            brackets += 1
        elif state in ("call", "assign") and token.string == ")" and strings and brackets:
            brackets -= 1
        elif state == "call" and token.type == tokenize.NAME and not strings:
            state, target = "name", token.string
        else:
            ends_call = token.type == tokenize.OP and token.string in (",", ")")
            ends_statement = token.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or token.string == ";"
            if state == "call" and strings and ends_call:
                found.constants.append("".join(filter(None, map(_text, strings))))
            elif state == "name" and ends_call:
                found.names.add(target)
            elif state == "assign" and strings and ends_statement:
                found.assigned.setdefault(target, []).append("".join(filter(None, map(_text, strings))))
            state, strings, brackets = "", [], 0
            if token.type == tokenize.OP and token.string == "(" and last is not None and \
                    last.type == tokenize.NAME and last.string in EXECUTING:
                state = "call"
            elif token.type == tokenize.OP and token.string == "=" and last is not None and \
                    last.type == tokenize.NAME and (before is None or before.type in _STARTS or before.string == ";"):
                state, target = "assign", last.string
        before, last = last, token
    return found


def executed_code(source: str, depth: int = 0) -> list[str]:
    """The texts ``source`` runs as code from string constants, outermost first, nested ones after.

    Parameters
    ----------
    source : str
        A cell's code (any text: what does not tokenize ends the search there).
    depth : int
        How many levels of executed strings lie above ``source`` (the search stops at :data:`MAX_DEPTH`).

    Returns
    -------
    list of str
        Each executed constant's text, and the texts executed inside those.

    Examples
    --------
    >>> executed_code("exec('''def dcg(r, k):\\n    return exec(\\"x = 1\\")''')")
    ['def dcg(r, k):\\n    return exec("x = 1")', 'x = 1']
    """
    if depth >= MAX_DEPTH:
        return []
    found = _scan(source)
    texts = found.constants + [text for name in sorted(found.names) for text in found.assigned.get(name, [])]
    nested = [inner for text in texts for inner in executed_code(text, depth + 1)]
    return [text for text in texts if text] + nested
