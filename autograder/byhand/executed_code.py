"""The code a student's cell holds in string constants (what it may execute), found without running it.

A copy wrapped in ``exec('''…''')`` is one string token to a code fingerprint: the copying report
compares the text inside too. Which call runs the string does not matter: ``exec``,
``get_ipython().run_cell``, a lambda, a name assigned first, ``.strip()`` on the way — spellings
are endless, so *every* string constant of the cell whose text is code (:func:`.string_code.code_in`:
it parses as a module with a function, a class or two statements, as written or after a cheap
decoding: rot13, reversed, base64, hex) is compared as code. A constant is the value of adjacent
string tokens and of string tokens joined by ``+`` (``'''…''' '''…'''``, ``'a' + 'b'``), bytes
decoded as UTF-8, an f-string's literal text (each replacement field read as a name), and
``SEP.join(…)`` of the constants inside the call's brackets (a separator of at most two characters,
so the joined text is no longer than its source). The text found is searched the same way, to
:data:`MAX_DEPTH` levels.

Found on the token stream (:mod:`tokenize`, iterative and in constant memory, whatever the cell's
size): escapes are masked for the tokenizer, whose regular expression keeps memory for each escape of a string;
the cell itself is never given to :func:`ast.parse`, whose memory grows with the input
(a 7 MB ``1+1+…`` takes gigabytes); only a constant's text of bounded size is
(:data:`.string_code.MAX_PARSED_CHARS`). Every text found at one level is a part of that level's
text, or a decoding no longer than it, so the texts found are at most :data:`MAX_DEPTH` times the
cell's length. Code computed at run time (from a file, the network, ``chr`` arithmetic, a key) is
not seen: it is no constant.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

from .string_code import MAX_PARSED_CHARS, StringCode, code_in

#: How many levels of strings inside strings are opened.
MAX_DEPTH = 4
#: The characters of parsed string constants examined in one text (a cell, or a code text found in one): an
#: honest cell holds a few hundred; the red team's 7.3 MiB cell of ``"1+1+…+1"`` constants cost the copying
#: report 62 s. What runs is compared anyway, from the grader's record of the compiled code.
MAX_SEARCHED_CHARS = 256 * 1024
#: The longest separator of ``SEP.join(…)`` that is applied (keeps the joined text within its source).
MAX_SEPARATOR = 2
#: An escape in a line: :mod:`tokenize`'s regular expression for a string keeps about 700 bytes per escape
#: while it matches (3.5 million ``\\n`` in a 7 MB cell: 2.4 GB), so it reads each escape as two plain
#: characters (the same length: the tokens' places do not move) and a string's text is taken from the cell.
_ESCAPE = re.compile(r"\\[^\r\n]")
_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT})
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")
_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
_PREFIX = re.compile(r"[A-Za-z]*")


def _fstring_plain(token: str) -> str:
    """An f-string token as a plain string token: each replacement field becomes a name, ``{{`` a brace."""
    prefix = _PREFIX.match(token).group()  # type: ignore[union-attr]  # matches the empty string at least
    body = token[len(prefix):]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    inner = body[len(quote):len(body) - len(quote)]
    fields = _FIELD.sub(lambda m: {"{{": "{", "}}": "}"}.get(m.group(), "_"), inner)
    return prefix.replace("f", "").replace("F", "") + quote + fields + quote


def _text(token: str) -> str | None:
    """The value of one string token (bytes as UTF-8; None for anything that is no constant)."""
    if "f" in _PREFIX.match(token).group().lower():  # type: ignore[union-attr]
        token = _fstring_plain(token)
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


class _Lines:
    """The cell's lines for :mod:`tokenize`, escapes masked; the original lines kept from the current token on."""

    def __init__(self, source: str) -> None:
        self._stream = io.StringIO(source)
        self._lines: list[str] = []
        self._first = 1  # the row of self._lines[0]

    def readline(self) -> str:
        line = self._stream.readline()
        self._lines.append(line)
        return _ESCAPE.sub("__", line)

    def text(self, token: tokenize.TokenInfo) -> str:
        """The token's text as the cell has it, and the lines before it forgotten."""
        (first, start), (last, end) = token.start, token.end
        del self._lines[:first - self._first]
        self._first = first
        if first == last:
            return self._lines[0][start:end]
        return self._lines[0][start:] + "".join(self._lines[1:last - first]) + self._lines[last - first][:end]


def _tokens(source: str) -> Iterator[tokenize.TokenInfo]:
    """The significant tokens of ``source`` (comments, blank lines, indentation left out), up to an error."""
    lines = _Lines(source)
    try:
        for token in tokenize.generate_tokens(lines.readline):
            text = lines.text(token)
            if token.type not in _SKIPPED:
                yield token._replace(string=text)
    except (tokenize.TokenError, SyntaxError, IndexError):  # the rest of an unfinished cell is no code either
        return


@dataclass(frozen=True)
class Constant:
    """One string constant of a cell: its text, and the parts it was joined from (tried when it is no code)."""

    text: str
    parts: tuple[str, ...] = ()


@dataclass
class _Join:
    """A ``SEP.join(`` being read: its separator, its bracket depth, the constants inside so far."""

    separator: str
    depth: int = 1
    parts: list[str] = field(default_factory=list)


@dataclass
class _Scanner:
    """The constants of a token stream, read one token at a time in constant memory besides them."""

    found: list[Constant] = field(default_factory=list)
    run: list[str] = field(default_factory=list)  # the string tokens of the constant being read
    last: list[str] = field(default_factory=list)  # the last three tokens' kinds: "S" or the token's text
    separator: str | None = None  # the last constant read, a join's separator if ".join(" follows
    join: _Join | None = None

    def _flush(self) -> None:
        if not self.run:
            return
        text = "".join(self.run)
        self.run, self.separator = [], text
        if self.join is not None:
            self.join.parts.append(text)
        else:
            self.found.append(Constant(text))

    def _bracket(self, token: str) -> None:
        if self.join is None:
            if token == "(" and self.last == ["S", ".", "join"] and self.separator is not None \
                    and len(self.separator) <= MAX_SEPARATOR:
                self.join = _Join(self.separator)
            return
        self.join.depth += 1 if token in _OPENING else -1
        if self.join.depth == 0:
            join, self.join = self.join, None
            if join.parts:
                self.found.append(Constant(join.separator.join(join.parts), tuple(join.parts)))

    def feed(self, token: tokenize.TokenInfo) -> None:
        # every other token ends the constant being read: a string token continues it (adjacent, or after "+")
        if token.type == tokenize.STRING:
            self.run.append(_text(token.string) or "")
            kind = "S"
        elif token.type == tokenize.OP and token.string == "+" and self.last[-1:] == ["S"]:
            kind = "+"
        else:
            self._flush()
            kind = token.string
            if token.type == tokenize.OP and token.string in _OPENING | _CLOSING:
                self._bracket(token.string)
        self.last = [*self.last[-2:], kind]

    def close(self) -> list[Constant]:
        self._flush()
        if self.join is not None and self.join.parts:  # an unclosed join: its parts are constants still
            self.found.extend(Constant(part) for part in self.join.parts)
        return self.found


def constants(source: str) -> list[Constant]:
    """The string constants of ``source`` in order (see the module for what makes one constant)."""
    scanner = _Scanner()
    for token in _tokens(source):
        scanner.feed(token)
    return scanner.close()


def _codes(source: str) -> list[StringCode]:
    """The code of ``source``'s constants: a join's whole text if it is code, else its parts'.

    The constants short enough to be parsed (:data:`.string_code.MAX_PARSED_CHARS`) are parsed up to five
    times each (as written and decoded), 12–16 s of CPU per MB of ``"1+1+…"`` constants: only the first
    :data:`MAX_SEARCHED_CHARS` characters of them are examined; a longer constant is only searched
    with one regular expression, whatever comes before it.
    """
    codes: list[StringCode] = []
    parsed = 0
    for constant in constants(source):
        if len(constant.text) <= MAX_PARSED_CHARS:
            parsed += len(constant.text)
            if parsed > MAX_SEARCHED_CHARS:
                continue
        code = code_in(constant.text)
        whole = code.compared or code.parsed or not constant.parts  # a join that is no code: its parts may be
        codes.extend([code] if whole else map(code_in, constant.parts))
    return list(dict.fromkeys(codes))  # the same text twice is compared once


def executed_code(source: str, depth: int = 0) -> list[str]:
    """The code texts ``source`` holds in string constants, outermost first, nested ones after.

    Parameters
    ----------
    source : str
        A cell's code (any text: what does not tokenize ends the search there).
    depth : int
        How many levels of strings lie above ``source`` (the search stops at :data:`MAX_DEPTH`).

    Returns
    -------
    list of str
        Each constant's text that is code (:func:`.string_code.code_in`), and the code inside those.

    Examples
    --------
    >>> executed_code("run('''def dcg(r, k):\\n    return exec(\\"total = sum(r[:k]); print(total)\\")''')")
    ['def dcg(r, k):\\n    return exec("total = sum(r[:k]); print(total)")', 'total = sum(r[:k]); print(total)']
    """
    if depth >= MAX_DEPTH:
        return []
    codes = _codes(source)
    # only a text with a quote in it can hold a string (a cheap test: most texts found have none)
    nested = [inner for code in codes if "'" in code.text or '"' in code.text
              for inner in executed_code(code.text, depth + 1)]
    return [code.text for code in codes if code.compared] + nested
