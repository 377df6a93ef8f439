"""The code a cell executes from string constants, as the copying report finds it: any text, never run."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.course.executed_code import MAX_DEPTH, executed_code

from strategies import answer_expressions

COPY = "def dcg(rels, k):\n    return sum(r / (i + 1) for i, r in enumerate(rels[:k]))"


@pytest.mark.parametrize("cell", [
    f"exec('''{COPY}''')",
    f"exec(r'''{COPY}''')",
    f"exec(b'''{COPY}''')",
    f"exec(('''{COPY}'''))",
    f"import builtins\nbuiltins.exec('''{COPY}''')",
    f"exec(compile('''{COPY}''', '<copy>', 'exec'))",
    f"code = '''{COPY}'''\nexec(code)",
    f"if True:\n    code = ('''{COPY}''')\n    exec(compile(code, 'x', 'exec'), globals())",
    f"exec({'exec(' + repr(COPY) + ')'!r})",  # nested
    f"exec('''{COPY[:30]}''' '''{COPY[30:]}''')",  # adjacent constants
])
def test_the_executed_copy_is_found(cell):
    assert COPY in executed_code(cell)


@pytest.mark.parametrize("cell", [
    f'"""{COPY}"""',  # a docstring is not executed
    f"text = '''{COPY}'''\nprint(text)",
    f"exec(f'''{COPY}''')",  # an f-string is built at run time
    "exec(code)",  # a name never assigned a constant
])
def test_strings_that_are_not_executed_constants_are_not_added(cell):
    assert COPY not in executed_code(cell)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=300), answer_expressions,
                      answer_expressions.map(lambda inner: f"exec({inner!r})")))
def test_any_text_gives_texts_no_longer_than_it_never_an_error(text):
    found = executed_code(text)
    assert all(isinstance(inner, str) for inner in found)
    assert sum(map(len, found)) <= MAX_DEPTH * len(text)
