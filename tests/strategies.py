"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import base64
import codecs
import functools
import html
import json
import os

from hypothesis import strategies as st

#: Integer grades 0..3, as in TREC-style graded judgements.
grades = st.integers(min_value=0, max_value=3)

#: Fractional grades, e.g. averaged judgements.
fractional_grades = st.floats(min_value=0.0, max_value=4.0, allow_nan=False, allow_infinity=False)

#: A ranked list of integer grades (possibly empty).
rankings = st.lists(grades, min_size=0, max_size=30)

#: A ranked list with at least one document.
nonempty_rankings = st.lists(grades, min_size=1, max_size=30)

#: A ranked list of integer or fractional grades.
any_rankings = st.lists(st.one_of(grades, fractional_grades), min_size=0, max_size=30)

#: A cut-off: None (whole list) or a positive integer that may exceed the list length.
cutoffs = st.one_of(st.none(), st.integers(min_value=1, max_value=40))

# ----- untrusted bytes of a submission folder ----------------------------------------------------
#: A zone word as a student might write it: names, paths, long and odd text.
zone_words = st.one_of(
    st.sampled_from(["UTC", "GMT", "Europe/Berlin", "CEST", ":../x", "../../etc/passwd", "/dev/zero", "+0100",
                     "-99999999999999", "EST5EDT,M3.2.0/2,M11.1.0", "Etc/GMT+1", "a/b/c/d"]),
    st.text(min_size=1, max_size=320).filter(lambda word: " " not in word),
)

#: What a ``timestamp.txt`` may hold: anything, or a timestamp whose zone word is anything.
timestamp_bytes = st.one_of(
    st.binary(max_size=600),
    st.builds(
        lambda when, zone: f"{when:%Y-%m-%d %H:%M:%S.%f} {zone}".encode("utf-8", "surrogateescape"),
        st.datetimes(), zone_words,
    ),
    st.builds(lambda when: f"{when:%Y-%m-%d %H:%M:%S.%f} UTC".encode(), st.datetimes()),
)

#: Any JSON value, a few levels deep.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)

#: Something shaped like a notebook, with any values where nbgrader and nbformat expect some.
notebook_like = st.fixed_dictionaries(
    {"nbformat": st.sampled_from([1, 2, 3, 4, 5, "4", None]), "nbformat_minor": st.integers(-1, 10)},
    optional={
        "cells": st.lists(
            st.one_of(json_values, st.fixed_dictionaries(
                {"cell_type": st.sampled_from(["code", "markdown", "raw", None]), "source": json_values},
                optional={"metadata": json_values},
            )),
            max_size=4,
        ),
        "worksheets": json_values,
        "metadata": json_values,
    },
)

#: A notebook file's bytes: anything, JSON-shaped text, or a notebook-like document.
notebook_bytes = st.one_of(
    st.binary(max_size=2000),
    json_values.map(lambda value: json.dumps(value).encode()),
    notebook_like.map(lambda document: json.dumps(document).encode()),
)

#: Where a deep or wide value goes in a notebook, and the depth (the notebook is level 1) it is put at.
SHAPE_PLACES = {
    "notebook metadata": 3, "code cell metadata": 5, "markdown cell metadata": 5, "output data": 7, "code source": 4,
}


def _shaped(place: str, levels: int, as_list: bool, width: int) -> tuple[bytes, int, int, str]:
    """A small notebook with ``levels`` containers nested at ``place`` and a list of ``width`` numbers at the
    innermost; returns its bytes, its deepest container's level, how many values it holds at least, and ``place``."""
    value: object = [0] * width
    for _ in range(levels):
        value = [value] if as_list else {"k": value}
    code = {"cell_type": "code", "id": "c1", "metadata": {}, "source": "x = 1", "execution_count": None,
            "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"text/plain": "1"}}]}
    markdown = {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "some *text*"}
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [code, markdown]}
    if place == "notebook metadata":
        notebook["metadata"]["x"] = value
    elif place == "code cell metadata":
        code["metadata"]["x"] = value
    elif place == "markdown cell metadata":
        markdown["metadata"]["x"] = value
    elif place == "output data":
        code["outputs"][0]["data"]["application/json"] = value
    else:
        code["source"] = value
    # the base notebook's deepest container is an output's data (level 6); the list of numbers is one more
    deepest = max(6, SHAPE_PLACES[place] + levels)
    return json.dumps(notebook).encode(), deepest, width + levels, place


#: A notebook with a deep (up to 1,500 levels of objects or lists) or wide (up to 250,000 values)
#: structure somewhere: its bytes, its deepest level, a lower bound of its number of values, and where.
shaped_notebooks = st.builds(
    _shaped, st.sampled_from(sorted(SHAPE_PLACES)),
    st.one_of(st.integers(0, 80), st.integers(0, 1500)), st.booleans(),
    st.sampled_from([0, 3, 1000, 250_000]),
)


#: A student folder's name as the file system gives it: any bytes but ``/`` and NUL (a byte that is
#: not UTF-8 becomes a lone surrogate, as ``os.fsdecode`` and unzip leave it), or any text.
folder_names = st.one_of(
    st.binary(min_size=1, max_size=200)
    .filter(lambda name: b"/" not in name and b"\0" not in name and name not in (b".", b".."))
    .map(os.fsdecode),
    st.text(min_size=1, max_size=200).filter(lambda name: "/" not in name and name not in (".", "..")),
)

#: Pieces of markdown and HTML that an attacker would combine: tags, handlers, schemes, entities,
#: link and reference syntax, math and code spans.
_markup_pieces = st.sampled_from([
    "<", ">", "</", "<!--", "-->", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>", "<script>", "</script>",
    "<iframe srcdoc='<script>x</script>'>", "<a href='javascript:x'>", "<b>", "</b>", "<sub>", "<br/>",
    "<B onclick=x>", "<details open ontoggle=x>", "javascript:", "JaVaScRiPt:", "jav&#x09;ascript&colon;",
    "data:text/html,", "vbscript:", "&#106;avascript:", "&lt;", "&amp;", "&#60;", "[", "]", "(", ")", "](", "]:",
    "![", "[x]: ", "\n", "\n\n", " ", "    ", "`", "```", "$", "$$", "\\", "\\href{javascript:x}{y}", "\"", "'", "=",
    "http://example.org", "mailto:a@b", "#top", "attachment:a.png", "text", "onerror=", "\t", "\x00",
])

#: Markdown as a hostile student would write it.
hostile_markdown = st.lists(st.one_of(_markup_pieces, st.text(max_size=3)), max_size=40).map("".join)


# ----- a list of numbers as a leak might spell it (tests/leaks.py) -------------------------------
def _spelled_number(value: float) -> st.SearchStrategy[str]:
    plain = [repr(float(value)), f"{value:g}", f"{float(value)!r}".rstrip("0")]  # 1.0, 1, 1.
    if float(value).is_integer():
        plain.append(str(int(value)))
    return st.sampled_from(plain).flatmap(lambda text: st.sampled_from(
        [text, f"np.float64({text})", f"np.int64({text})" if "." not in text else text, f"float({text})"]
    ))


def spelled_sequences(values: tuple[float, ...]) -> st.SearchStrategy[str]:
    """``values`` written as code or a person might: any separator, brackets or none, numpy's reprs, escaped."""
    numbers = st.tuples(*(_spelled_number(v) for v in values))
    separators = st.sampled_from([", ", ",", " ", "; ", "\n", "\t", " | ", ",\n  ", "  "])
    brackets = st.sampled_from([("[", "]"), ("(", ")"), ("", ""), ("array([", "])"), ("{", "}"), ("<td>", "</td>")])
    spelled = st.tuples(numbers, separators, brackets).map(
        lambda parts: parts[2][0] + parts[1].join(parts[0]) + parts[2][1]
    )
    escape = st.sampled_from([
        lambda text: text, lambda text: json.dumps(text), lambda text: html.escape(text),
        lambda text: html.escape(json.dumps(text)),
    ])
    return st.tuples(spelled, escape, st.sampled_from(["your dcg got ", "ValueError: ", "", "rels="])).map(
        lambda parts: parts[2] + parts[1](parts[0]) + " and was wrong"
    )

# ----- what a student may write into the by-hand answer cell --------------------------------------
#: Pieces of an answer: numbers of every size and spelling, operators, brackets, names, code.
_answer_pieces = st.one_of(
    st.sampled_from(["1", "0", "2.43", "1e400", "1e-400", "9" * 400, "0x1F", "1_000", "1j", ".5", "-", "+", "*",
                     "/", "**", "//", "%", "~", "(", ")", "[", "]", ",", " ", "\n", "not ", "lambda:", "x", ".a",
                     "'s'", "f'{1}'", "None", "True", "...", "__import__('os')", "#", "\\", "\0", ":=", "if 1 else "]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers().map(str),
)


def _repeated(piece: str, count: int, tail: str = "") -> str:
    return piece * count + tail


#: An answer's right-hand side: anything, pieces in any order, or a piece repeated up to far beyond the
#: reader's bounds (``1+1+…`` of 7 MB is the issue's attack; sums, ``((((…``, ``-(-(-…``, ``[[[…``).
answer_expressions = st.one_of(
    st.text(max_size=200),
    st.lists(_answer_pieces, max_size=60).map("".join),
    st.builds(lambda n: "+".join(["1"] * n), st.integers(1, 20_000)),
    st.builds(lambda n: _repeated("(", n, "1") + ")" * n, st.integers(1, 5_000)),
    st.builds(lambda n: _repeated("-(", n, "1") + ")" * n, st.integers(1, 5_000)),
    st.builds(lambda n, sign: _repeated(sign, n, "1"), st.integers(1, 20_000), st.sampled_from(["-", "+", "~", "not "])),
    st.builds(lambda n: _repeated("[", n) + "]" * n, st.integers(1, 5_000)),
    st.builds(lambda n: "9" * n, st.integers(1, 6_000)),
    st.builds(lambda n: "1" + "**1" * n, st.integers(1, 5_000)),
    st.builds(lambda n: "1/" * n + "1", st.integers(1, 5_000)),
)

#: A whole answer cell: assignments of the four names to such expressions, with other lines between.
answer_cells = st.lists(
    st.tuples(st.sampled_from(["IDEAL_RANKING", "DCG_AT_K", "IDCG_AT_K", "NDCG_AT_K", "x"]), answer_expressions),
    max_size=4,
).map(lambda lines: "\n".join(f"{name} = {value}" for name, value in lines))


# Ways to hide copied code in a string that a cell runs (the copying report must see through each):
# every one takes a piece of code and gives a cell that would run it.
copy_wrappers = (
    lambda s: f"exec({s!r})",
    lambda s: f"exec({s!r}.strip())",
    lambda s: f"exec(str({s!r}))",
    lambda s: f"code: str = {s!r}\nexec(code)",
    lambda s: f"exec(code := {s!r})",
    lambda s: f"get_ipython().run_cell({s!r})",
    lambda s: f"(lambda t: exec(t, globals()))({s!r})",
    lambda s: f"exec(compile({s!r}, '<copy>', 'exec'), globals())",
    lambda s: f"getattr(__builtins__, 'exec')({s!r})",
    lambda s: f"def run():\n    exec({s!r}, globals())\n\n\nrun()",
    lambda s: f"exec({s.encode()!r}.decode())",
    lambda s: "exec(f" + repr(s.replace("{", "{{").replace("}", "}}")) + ")",
    lambda s: f"exec({s[: len(s) // 2]!r} + {s[len(s) // 2:]!r})",
    lambda s: f"exec({s[: len(s) // 3]!r} {s[len(s) // 3:]!r})",
    lambda s: f"exec('\\n'.join({s.split(chr(10))!r}))",
    lambda s: f"exec(''.join({[s[i:i + 40] for i in range(0, len(s), 40)]!r}))",
    lambda s: f"import base64\nexec(base64.b64decode({base64.b64encode(s.encode()).decode()!r}))",
    lambda s: f"exec(__import__('base64').urlsafe_b64decode({base64.urlsafe_b64encode(s.encode())!r}))",
    lambda s: f"import codecs\nexec(codecs.decode({codecs.encode(s, 'rot13')!r}, 'rot13'))",
    lambda s: f"exec(bytes.fromhex({s.encode().hex()!r}).decode())",
    lambda s: f"exec({s[::-1]!r}[::-1])",
)


def wrapped_copy(code: str) -> st.SearchStrategy[str]:
    """``code`` inside one to three of :data:`copy_wrappers`, one around the other."""
    return st.lists(st.sampled_from(copy_wrappers), min_size=1, max_size=3).map(
        lambda wraps: functools.reduce(lambda inner, wrap: wrap(inner), wraps, code))
