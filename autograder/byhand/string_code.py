"""Whether the text of a string constant is Python code, also after a cheap decoding, decided in bounded time.

The copying report compares a string's text as code when it *is* code, whatever the cell does with
it (:mod:`.executed_code`). "Is code": the text (its common indentation removed, blank ends
stripped) parses as a module that defines a function or class, or holds at least
:data:`MIN_STATEMENTS` statements of which one is more than a bare name or constant. A message, a
sentence of a docstring or a numpydoc section does not parse; a short text that does (``"x = 1"``,
a list of words one per line) is one statement or bare names, and is left out — and would be
harmless if taken: copydetect ignores matches shorter than 25 tokens. A text that parses but is
below that threshold (``exec("…")`` alone) is not compared itself, but the strings inside it are
searched (:class:`StringCode`'s ``compared``).

Bounds, because every text here is a student's: :func:`ast.parse` only sees a text of at most
:data:`MAX_PARSED_CHARS` characters (its memory grows with the text: about 14–23 MB at that size,
whatever the nesting, measured on the worst shapes: ``- - - … 1``, ``a.a.a…``, ``x if y else …``;
nesting the parser refuses is no code). A longer text is code when a line of it starts with
``def NAME`` or ``class NAME`` (one regular expression, linear), and is searched for strings
inside in any case (tokenizing is linear). The decodings (rot13, reversed,
base64, hex; what ``codecs.decode(s, 'rot13')``, ``s[::-1]``, ``base64.b64decode(s)`` and
``bytes.fromhex(s)`` undo, however the cell spells the call) are tried only on texts up to that
size, each linear, each result no longer than the text, and the first one that is code is taken.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import codecs
import re
import textwrap
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: The longest text given to Python's parser (a copied solution is a few thousand characters).
MAX_PARSED_CHARS = 64 * 1024
#: The shortest text looked at: copydetect ignores matches under 25 tokens, and a token is a character at least,
#: so no shorter text (nor a string inside it) can make a match.
MIN_CHARS = 25
#: How many statements make code when none of them defines a function or class.
MIN_STATEMENTS = 2
_DEFINES = re.compile(r"\b(?:def|class)[ \t]+[A-Za-z_]\w*[ \t]*[(:]")
_BASE64 = re.compile(r"[A-Za-z0-9+/\-_=\s]{8,}")
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}\s*){4,}")
#: Names that make a text that parses look like Python rather than a decoding's gibberish that happens to parse.
PYTHON_NAMES = frozenset(name for name in dir(builtins) if name[0] != "_") | {
    "__import__", "get_ipython", "run_cell", "base64", "codecs", "b64decode", "fromhex", "decode", "join", "strip"}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BARE = (ast.Name, ast.Constant, ast.Attribute)


@dataclass(frozen=True)
class StringCode:
    """A string constant's text: compared as code or only searched for strings inside; parsed or not."""

    text: str
    compared: bool
    parsed: bool
    #: how many of its names are Python's own (:data:`PYTHON_NAMES`): chooses among decodings that parse
    likeness: int = 0


def _parsed(text: str) -> StringCode | None:
    try:
        with warnings.catch_warnings():  # a student's text may warn ("invalid decimal literal"): no code either way
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
    nodes = list(ast.walk(tree))  # iterative; the nodes are bounded by the text's size
    doing = [s for s in tree.body if not (isinstance(s, ast.Expr) and isinstance(s.value, _BARE))]
    compared = any(isinstance(node, _DEFINITIONS) for node in nodes) or (len(tree.body) >= MIN_STATEMENTS
                                                                        and bool(doing))
    likeness = sum(getattr(node, "id", getattr(node, "attr", None)) in PYTHON_NAMES for node in nodes)
    return StringCode(text, compared=compared, parsed=True, likeness=likeness)


def as_code(text: str) -> StringCode:
    """The text as code (indentation and blank ends normalised), and whether it is compared as code.

    Parameters
    ----------
    text : str
        Any text (a string constant's value).

    Returns
    -------
    StringCode
        The text, compared as code or only searched for strings inside (see the module for the rule
        and its bounds).

    Examples
    --------
    >>> as_code("\\n    x = 1\\n    print(x)\\n")
    StringCode(text='x = 1\\nprint(x)', compared=True, parsed=True, likeness=1)
    >>> as_code("exec(text)").compared, as_code("Returns the DCG at k.").compared
    (False, False)
    >>> as_code("def dcg(r, k):\\n    return XX sum(r)").compared  # a copy broken on purpose
    True
    """
    if len(text) > MAX_PARSED_CHARS:  # not parsed: compared if it defines something, searched anyway
        return StringCode(text, compared=_DEFINES.search(text) is not None, parsed=False)
    code = textwrap.dedent(text).strip()
    return _parsed(code) or StringCode(code, compared=_DEFINES.search(code) is not None, parsed=False)


def _rot13(text: str) -> str | None:
    return codecs.encode(text, "rot13")


def _reversed(text: str) -> str | None:
    return text[::-1]


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _base64(text: str) -> str | None:
    if not _BASE64.fullmatch(text):
        return None
    compact = "".join(text.split())
    try:  # the standard alphabet and the URL-safe one, padding forgiven
        return _utf8(base64.b64decode(compact + "=" * (-len(compact) % 4), altchars=b"-_" if "-" in compact
                                      or "_" in compact else None))
    except (binascii.Error, ValueError):
        return None


def _hex(text: str) -> str | None:
    if not _HEX.fullmatch(text.strip()):
        return None
    try:
        return _utf8(bytes.fromhex(text))
    except ValueError:
        return None


#: The cheap decodings tried on a text that is no code itself, in this order.
DECODINGS: tuple[Callable[[str], str | None], ...] = (_rot13, _reversed, _base64, _hex)


def _decoded(text: str) -> Iterator[str]:
    if len(text) <= MAX_PARSED_CHARS:
        for decode in DECODINGS:
            value = decode(text)
            if value:
                yield value


def code_in(text: str) -> StringCode:
    """The code a string constant's text is, as written or after one cheap decoding.

    Parameters
    ----------
    text : str
        A string constant's value.

    Returns
    -------
    StringCode
        The first of the text and its decodings (:data:`DECODINGS`) that is compared as code; else, of
        those that parse, the one with the most Python keywords and builtins' names; else the text
        itself (both only searched for strings inside), as :func:`as_code` gives them.

    Examples
    --------
    >>> code_in(codecs.encode("def dcg(r, k):\\n    return sum(r[:k])", "rot13"))
    StringCode(text='def dcg(r, k):\\n    return sum(r[:k])', compared=True, parsed=True, likeness=1)
    """
    if len(text) < MIN_CHARS:
        return StringCode(text, compared=False, parsed=False)
    written = as_code(text)
    if written.compared and written.likeness:  # code as written, with Python's names: no decoding is better
        return written
    parsed = [code for code in [written, *map(as_code, _decoded(text))] if code.parsed]
    # of those that parse, the compared ones first, then the one most like Python (rot13 of code can parse
    # too: its names are nobody's); one, not all: a bound per level. A text that parses in no way is taken
    # as written (a decoding that does not parse is no decoding).
    best = max(parsed, key=lambda code: (code.compared, code.likeness), default=None)
    return best or written
