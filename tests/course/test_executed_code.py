"""The code a cell holds in string constants, as the copying report finds it: any text, never run."""

from __future__ import annotations

import base64
import codecs
import resource

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.byhand.copied import code_pairs, compared_code
from autograder.byhand.executed_code import MAX_DEPTH, executed_code
from autograder.byhand.string_code import MAX_PARSED_CHARS

from strategies import answer_expressions, copy_wrappers, wrapped_copy

COPY = "def dcg(rels, k):\n    return sum(r / (i + 1) for i, r in enumerate(rels[:k]))"
#: ada's code, with a loop: long enough for copydetect's fingerprints (25 tokens and more)
ADA = ("import math\n\n\ndef dcg(grades, cut):\n    total = 0.0\n    for j in range(min(cut, len(grades))):\n"
       "        total += grades[j] / math.log2(j + 2)\n    return total\n\n\n"
       "def ndcg(grades, cut):\n    best = dcg(sorted(grades, reverse=True), cut)\n"
       "    if best == 0:\n        return 0.0\n    return dcg(grades, cut) / best")
LINES = COPY.split("\n")


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
    # the red team's spellings (round 5): whatever runs the string, its text is compared
    f"exec('''{COPY}'''.strip())",
    f"exec(str('''{COPY}'''))",
    f"code: str = '''{COPY}'''\nexec(code)",
    f"exec(code := '''{COPY}''')",
    f"get_ipython().run_cell('''{COPY}''')",
    f"(lambda t: exec(t, globals()))('''{COPY}''')",
    # any string that is code, and the cheap decodings
    f'"""{COPY}"""',
    f"text = '''{COPY}'''\nprint(text)",
    f"exec(f'''{COPY}''')",
    f"exec({COPY[:30]!r} + {COPY[30:]!r})",
    f"exec('\\n'.join({LINES!r}))",
    f"exec(''.join({[line + chr(10) for line in LINES]!r}))",
    f"import base64\nexec(base64.b64decode({base64.b64encode(COPY.encode()).decode()!r}))",
    f"exec(__import__('base64').urlsafe_b64decode({base64.urlsafe_b64encode(COPY.encode())!r}))",
    f"import codecs\nexec(codecs.decode({codecs.encode(COPY, 'rot13')!r}, 'rot_13'))",
    f"exec(bytes.fromhex({COPY.encode().hex()!r}).decode())",
    f"exec({COPY[::-1]!r}[::-1])",
    f"import textwrap\nexec(textwrap.dedent('''\n    {COPY.replace(chr(10), chr(10) + '    ')}\n'''))",
])
def test_the_copy_in_a_string_is_found(cell):
    assert COPY in executed_code(cell)


@pytest.mark.parametrize("text", [
    '"""Compute the DCG at k.\n\nParameters\n----------\nrels : list of float\n    The grades."""',
    "print('Error: the list is empty, give at least one grade.')",
    "raise ValueError(f'k must be positive, got {k}')",
    "msg = 'x = 1'",  # one statement is no code to compare
    "words = '''apple\nbanana\ncherry'''",  # bare names, one a line
    '""">>> dcg([3, 2], 2)\n4.26"""',
])
def test_ordinary_docstrings_and_messages_are_not_compared_as_code(text):
    assert executed_code(text) == []


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=300), answer_expressions,
                      answer_expressions.map(lambda inner: f"exec({inner!r})")))
def test_any_text_gives_texts_no_longer_than_it_never_an_error(text):
    found = executed_code(text)
    assert all(isinstance(inner, str) for inner in found)
    assert sum(map(len, found)) <= MAX_DEPTH * len(text)


@settings(max_examples=150, deadline=None)
@given(cell=wrapped_copy(ADA))
def test_a_copy_in_any_generated_wrapper_stays_paired_with_the_original(cell):
    pairs, _ = code_pairs({"ada": compared_code(ADA), "cop": compared_code(cell)}, "", 0.8)
    assert [(pair.first, pair.second) for pair in pairs] == [("ada", "cop")], cell


def test_every_wrapper_hides_the_copy_from_the_cell_s_own_tokens():
    """Without the strings' code the wrapped copy is no pair: each wrapper is a real evasion."""
    for wrap in copy_wrappers:
        cell = wrap(ADA)
        pairs, _ = code_pairs({"ada": ADA, "cop": cell}, "", 0.8)
        assert not pairs, cell


def test_a_huge_string_is_searched_in_bounded_time_and_its_copy_found():
    padding = "pass\n" * (MAX_PARSED_CHARS // 2)
    cell = f"exec({COPY + chr(10) + padding!r})\n" + "x = 'a' + 'b'\n" * 20_000
    found = executed_code(cell)
    assert any(COPY in text for text in found)
    assert sum(map(len, found)) <= MAX_DEPTH * len(cell)


def test_a_cell_of_escapes_is_searched_without_gigabytes():
    """3.5 million escapes took tokenize 2.4 GB: they are masked, and the copy beside them is still found."""
    cell = "x = '" + "\\n" * 3_500_000 + "'\n" + f"exec({COPY!r})"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert COPY in executed_code(cell)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 300 * 1024  # KiB: under 300 MB more


def test_the_constants_examined_in_one_text_are_bounded(monkeypatch):
    """The red team's second round: a 7.3 MiB cell of ``"1+1+…+1"`` constants cost the copying report 62 s."""
    from autograder.byhand import executed_code as module

    examined = []
    real = module.code_in
    monkeypatch.setattr(module, "code_in", lambda text: examined.append(len(text)) or real(text))
    cell = ('"' + "+".join("1" * 15) + '",\n') * (2 * 1024**2 // 32)  # 2 MiB of constants that parse
    module.executed_code(cell + f"exec({COPY!r})")
    assert 0 < sum(examined) <= module.MAX_SEARCHED_CHARS + len(COPY)
