"""Finding the hidden cases' lists in any text the grader leaves, however they are spelled.

A leak is a hidden list's numbers, in order, inside one list of numbers as the text spells it:
``[1, 0, 2]``, ``(1, 0, 2)``, ``1 0 2``, ``1.0;0.0;2.0``, ``array([1., 0., 2.])``,
``[np.int64(1), np.int64(0), np.int64(2)]``, one number a line, JSON-escaped or HTML-escaped, with
more numbers before or after it (``print(*rels, k)``). Texts are read as runs of numbers broken by
words and brackets, compared as values, not as strings. A hidden list that also occurs inside a
visible case's or a probe's list is no evidence, and a one-element list is none either: ``[0]`` is
in any code that indexes a list.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

import nbformat

#: Spellings that wrap a number or a list without carrying information: numpy's scalars and arrays,
#: ``float(1)``; the wrapper goes, what it wraps stays (one level: a list holds no parentheses).
_WRAPPED = re.compile(
    r"\b(?:np\.|numpy\.)?(?:array|float\d*|int\d*|uint\d*|Decimal)\(([^()]*?)(?:,\s*dtype=[\w.]+)?\)"
)
#: Escapes that stand for a separator in JSON and Python strings (a newline between two numbers).
_ESCAPES = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[nrt\\\"'])")
#: A word or a bracket (each ends a run of numbers), or a number; a sign is punctuation (grades are >= 0).
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|[][(){}<>]|\d*\.\d+(?:[eE][-+]?\d+)?|\d+\.?(?:[eE][-+]?\d+)?")


def number_runs(text: str) -> list[tuple[float, ...]]:
    """The maximal runs of numbers in ``text`` with no word or bracket between them, as values."""
    for _ in range(2):  # a page may escape a text that was escaped already
        text = html.unescape(text)
    text = _ESCAPES.sub(" ", text)
    for _ in range(2):  # an array of numpy scalars: two levels of wrappers
        text = _WRAPPED.sub(r" \1 ", text)
    runs: list[tuple[float, ...]] = []
    current: list[float] = []
    for token in _TOKEN.findall(text):
        if token[0].isdigit() or token[0] == ".":
            current.append(float(token))
            continue
        if current:
            runs.append(tuple(current))
        current = []
    if current:
        runs.append(tuple(current))
    return runs


def _contains(run: tuple[float, ...], part: tuple[float, ...]) -> bool:
    width = len(part)
    return any(
        all(math.isclose(a, b, rel_tol=0, abs_tol=1e-12) for a, b in zip(run[i:i + width], part, strict=True))
        for i in range(len(run) - width + 1)
    )


def _lists(calls: Iterable[object]) -> list[tuple[float, ...]]:
    """The list arguments of ``calls`` (``Call``s), as values."""
    return [tuple(float(v) for v in arg) for call in calls for arg in call.args if isinstance(arg, tuple)]  # type: ignore[attr-defined]


def hidden_sequences() -> list[tuple[float, ...]]:
    """The hidden cases' lists that are evidence of a leak wherever they appear (see the module's docstring)."""
    from autograder.exercises.ndcg import EXERCISE
    from autograder.exercises.ndcg.diagnosis import ALL_PROBES

    def calls(visible: bool) -> list[object]:
        return [
            call for group in EXERCISE.groups if group.visible is visible
            for case in group.cases for call in (case.call, *case.extra_calls)
        ]

    shown = _lists(calls(True)) + _lists(ALL_PROBES)
    hidden = set(_lists(calls(False)))
    return sorted(rels for rels in hidden if len(rels) > 1 and not any(_contains(s, rels) for s in shown))


def leaked(texts: Iterable[str], secrets: list[tuple[float, ...]] | None = None) -> list[tuple[float, ...]]:
    """The ``secrets`` (default: :func:`hidden_sequences`) found in any of ``texts``."""
    secrets = hidden_sequences() if secrets is None else secrets
    runs = [run for text in texts for run in number_runs(text)]
    return [secret for secret in secrets if any(_contains(run, secret) for run in runs)]


def without_by_hand(path: Path, text: str) -> str:
    """``text`` (a notebook or a feedback page at ``path``) without Task 1.2.

    Task 1.2 shows the student's own list and its values, derived from the id and the published salt:
    public, never a hidden input, though a list of grades 0-3 may happen to hold one.
    """
    if path.suffix == ".ipynb":
        notebook = nbformat.reads(text, as_version=4)
        notebook.cells = [c for c in notebook.cells if not c.metadata.get("nbgrader", {}).get("grade_id", "")
                          .startswith("byhand_")]
        return nbformat.writes(notebook)
    if path.suffix == ".json":  # results.json, or one student's <notebook>.grader.json: tests without Task 1.2's steps
        document = json.loads(text)
        results = document.get("students", []) + ([document["result"]] if isinstance(document.get("result"), dict)
                                                   else [])
        for student in results:
            student["tests"] = [t for t in student.get("tests", []) if not t["name"].startswith("byhand_")]
        return json.dumps(document)
    rows = re.split(r"(?=<tr>)", text)
    return "".join(row for row in rows if "of your list" not in row)
