"""HTML built from text: messages with inline ``code``, and an exercise's definition without its solution.

Messages (test results, diagnosis counterexamples, notes) are plain text that marks code with
Markdown backticks (``your notebook does not define a function `dcg` ``). They may carry text a
student chose (an exception message, a folder name), so they are escaped *first*; only then does
each backtick span become ``<code>``: no markup can come from a message, ever.

An exercise's definition is HTML written by the course author. Parts that give the solution away
(a one-line implementation) carry ``class="solution"`` and are shown only when a tutor asks for
them (``python -m autograder grade --show-solution``, after the deadline).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from markupsafe import Markup, escape

from .safe_text import printable

#: The class that marks a part of the definition as the solution.
SOLUTION_CLASS = "solution"
#: A Markdown code span: text between two backticks, on one line.
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
#: Elements that have no end tag.
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
})


def message_html(text: str) -> Markup:
    """A message as HTML: escaped (and made :func:`~.text.printable`), then each `code` span as ``<code>``.

    Examples
    --------
    >>> message_html("your notebook does not define a function `dcg`")
    Markup('your notebook does not define a function <code>dcg</code>')
    >>> message_html("raised `<b>` & more <script>")
    Markup('raised <code>&lt;b&gt;</code> &amp; more &lt;script&gt;')
    >>> message_html("an odd ` backtick")
    Markup('an odd ` backtick')
    """
    # escaped text holds no "<" of its own, so the only tags are the ones added here
    escaped = str(escape(printable(text)))
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", escaped))


class _SolutionCutter(HTMLParser):
    """Copies HTML as written, leaving out every element with the solution class (and what it holds)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # entities are copied as written
        self.kept: list[str] = []
        #: The solution element being left out, and how many of its tag are open inside it.
        self.cutting: str | None = None
        self.depth = 0

    def _keep(self, text: str) -> None:
        if self.cutting is None:
            self.kept.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cutting is not None:
            self.depth += tag == self.cutting
            return
        classes = " ".join(value or "" for name, value in attrs if name == "class").split()
        if SOLUTION_CLASS not in classes:
            self.kept.append(self.get_starttag_text() or "")
        elif tag not in _VOID:
            self.cutting, self.depth = tag, 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(value or "" for name, value in attrs if name == "class").split()
        if SOLUTION_CLASS not in classes:
            self._keep(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if self.cutting is None:
            self.kept.append(f"</{tag}>")
        elif tag == self.cutting:
            self.depth -= 1
            if not self.depth:
                self.cutting = None

    def handle_data(self, data: str) -> None:
        self._keep(data)

    def handle_entityref(self, name: str) -> None:
        self._keep(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._keep(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        self._keep(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self._keep(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self._keep(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self._keep(f"<![{data}]>")


def without_solution(html: str) -> str:
    """``html`` without the elements marked ``class="solution"`` (tags, text and all).

    Examples
    --------
    >>> without_solution('<p>DCG sums gains.<span class="solution"> In Python: <code>sum(g)</code>.</span></p>')
    '<p>DCG sums gains.</p>'
    >>> without_solution('<p>a &amp; b<br/></p><!-- note -->')
    '<p>a &amp; b<br/></p><!-- note -->'

    Raises
    ------
    ValueError
        When a solution element is not closed: everything after it would silently disappear.
    """
    cutter = _SolutionCutter()
    cutter.feed(html)
    cutter.close()
    if cutter.cutting is not None:
        raise ValueError(f'the definition has a <{cutter.cutting} class="{SOLUTION_CLASS}"> without its end tag')
    return "".join(cutter.kept)
