"""The bounds a notebook's JSON must keep before anything reads it as a notebook: depth, values, text, ids.

Every reader of a notebook after the JSON parser is recursive: nbformat's ``from_dict`` (two Python
frames a level: 600 nested dicts in a markdown cell's metadata end ``nbformat.reads`` with a
``RecursionError``), ``copy.deepcopy``, jsonschema, nbconvert's templates. And each of them costs
time per JSON value: 2.5 million empty objects (7 MiB, under the size limit) took nbformat 25 s of
CPU time to read and write, which nbgrader's path does several times. So the notebook's JSON, parsed
once by the C parser (which refuses what it cannot nest itself), is walked once without recursion
and refused when it has more than :data:`MAX_CELLS` cells, is nested deeper than :data:`MAX_DEPTH`
levels or holds more than :data:`MAX_VALUES` values (a string counted as the lines nbformat's writer
makes of it), wherever that is (notebook metadata, a cell's metadata, an output, a list or an
object), or holds a lone surrogate in a string or a key (JSON can
spell one, ``"\\ud800"``; no UTF-8 file holds one, so every writer of the notebook raised on it:
``grade`` ended with a UnicodeEncodeError writing the autograded notebooks). Both grading paths
check it at the door (:func:`~.notebook.read_notebook`'s callers and nbgrader's converters), before
any such reader runs.

One nbgrader cell id in two cells is refused too (:func:`duplicate_grade_ids`): which copy is the
answer is not the student's word but the reader's (nbgrader's ``DeduplicateIds`` keeps the last
and strips the others, which then stop nbgrader's own steps; a reader that takes the first grades
another cell), so both paths refuse the notebook and say which cells to merge.
"""

from __future__ import annotations

import json
from collections import Counter

#: The deepest a notebook's JSON may nest, the notebook object itself counting as level 1. An honest
#: notebook nests about 6 (an image's size in an output's metadata), widget state and plotly outputs
#: about 15; nbformat's reader breaks at about 450 (fewer, deep inside nbgrader's call stack).
MAX_DEPTH = 64
#: The most JSON values (objects, lists, strings, numbers, ...) a notebook may hold: an honest
#: notebook holds a few thousand (each line of a cell or an output is one).
MAX_VALUES = 200_000
#: The most cells a notebook may have: the release has a few dozen. nbformat validates, copies and writes a
#: notebook cell by cell several times on nbgrader's path (about 1 ms a cell there): 33,000 one-letter
#: cells (2.4 MB, under the value bound) cost 32 s of the grader's CPU, and nbgrader's first conversion
#: (ids added, sources split into lines) took 48,000 cells past the value bound that the batch had kept to.
MAX_CELLS = 2_000


class ShapeProblem(ValueError):
    """A notebook's JSON outside the bounds; the message says where and which bound, in plain words."""


def _place(path: tuple[str | int, ...]) -> str:
    """Where in the notebook ``path`` (keys and indexes from the top) is, as the student finds it."""
    if len(path) >= 2 and path[0] == "cells" and isinstance(path[1], int):
        cell = f"cell {path[1] + 1}"
        field = path[2] if len(path) >= 3 else None
        return {"metadata": f"{cell}'s metadata", "outputs": f"an output of {cell}",
                "attachments": f"an attachment of {cell}"}.get(field, cell) if isinstance(field, str) else cell
    if path and path[0] == "metadata":
        return "the notebook's metadata"
    return "the notebook"


def check_shape(document: object, *, max_depth: int = MAX_DEPTH, max_values: int = MAX_VALUES) -> None:
    """Refuse ``document`` (parsed JSON) nested deeper than ``max_depth`` or holding over ``max_values`` values.

    One walk without recursion that stops at the first bound passed, so it costs at most
    ``max_values`` steps whatever the document.

    Raises
    ------
    ShapeProblem
        "cell 3's metadata is nested deeper than 64 levels", "the notebook holds more than 200,000
        JSON values (...)", "cell 2 holds text that is not valid Unicode (...)" (a lone surrogate in
        a string or a key).

    Examples
    --------
    >>> deep = {}
    >>> for _ in range(100):
    ...     deep = {"a": deep}
    >>> check_shape({"cells": [{"metadata": deep}]})
    Traceback (most recent call last):
    ...
    autograder.grading.reading.notebook_shape.ShapeProblem: cell 1's metadata is nested deeper than 64 levels
    """
    cells = document.get("cells") if isinstance(document, dict) else None
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        raise ShapeProblem(f"the notebook has more than {MAX_CELLS:,} cells ({len(cells):,}): merge or delete cells "
                           "and hand it in again")
    stack: list[tuple[object, int, tuple[str | int, ...]]] = [(document, 1, ())]
    values = 0
    while stack:
        value, depth, path = stack.pop()
        values += 1 + (_more_lines(value) if isinstance(value, str) else 0)
        if values > max_values:
            raise ShapeProblem(f"the notebook holds more than {max_values:,} JSON values (lines of cells and "
                               "outputs, metadata entries): clear the outputs and hand it in again")
        if isinstance(value, str):
            _check_text(value, path)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > max_depth:
            raise ShapeProblem(f"{_place(path)} is nested deeper than {max_depth} levels")
        # only the first three steps of a path name a place (cells, index, field): longer ones are not kept
        if isinstance(value, dict):
            for key in value:
                _check_text(key, path)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        short = len(path) < 3
        stack.extend((child, depth + 1, (*path, key) if short else path) for key, child in items)


#: What ``str.splitlines`` (nbformat's writer) ends a line at; "\r\n" is one end, counted below.
_LINE_ENDS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e")
_WIDE_LINE_ENDS = ("\x85", "\u2028", "\u2029")


def _more_lines(text: str) -> int:
    """How many more values than one ``text`` becomes when nbformat writes it as a list of lines.

    nbformat's writer splits a cell's source and an output's text into lines (``splitlines``), and
    the batch reads the file as handed in: one string of 100,000 lines passed the value bound for
    the batch, and nbgrader's first conversion of it did not (the student's 15/15 on one path, 0 on
    the other). Counting each string as the lines it would become makes the bound the same for
    both. Counted with ``str.count``: no list of lines is built.

    Examples
    --------
    >>> _more_lines("a\\nb\\n"), _more_lines("a\\nb"), _more_lines("a\\r\\nb"), _more_lines("a\\n")
    (1, 1, 1, 0)
    """
    ends = sum(text.count(end) for end in _LINE_ENDS) - text.count("\r\n")
    if not text.isascii():
        ends += sum(text.count(end) for end in _WIDE_LINE_ENDS)
    return ends - 1 if text and text[-1] in "".join(_LINE_ENDS + _WIDE_LINE_ENDS) else ends


def _check_text(text: str, path: tuple[str | int, ...]) -> None:
    """Refuse text no UTF-8 file can hold: a lone surrogate, which JSON can spell (``"\\ud800"``); every
    writer of the notebook (nbformat's, the kit's, nbgrader's) would raise on it."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ShapeProblem(f"{_place(path)} holds text that is not valid Unicode (half of a UTF-16 surrogate "
                               "pair, escaped in the JSON): the file was edited outside Jupyter") from None


def grade_id_of(cell: object) -> str | None:
    """A cell's nbgrader ``grade_id`` if it is text (None for anything else, whatever the cell's shape)."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    return grade_id if isinstance(grade_id, str) else None


def duplicate_grade_ids(cells: list[object]) -> str | None:
    """Why ``cells`` cannot be graded when one nbgrader ``grade_id`` names two or more of them, else None.

    Examples
    --------
    >>> cell = {"metadata": {"nbgrader": {"grade_id": "dcg"}}}
    >>> duplicate_grade_ids([cell, {"metadata": {}}, cell])
    "the cell id 'dcg' is on cells 1 and 3: keep one of them (copy what you need into it) and delete the other"
    >>> duplicate_grade_ids([cell]) is None
    True
    """
    ids = [grade_id_of(cell) for cell in cells]
    counts = Counter(grade_id for grade_id in ids if grade_id is not None)
    twice = next((grade_id for grade_id, count in counts.items() if count > 1), None)
    if twice is None:
        return None
    numbers = [str(number) for number, grade_id in enumerate(ids, start=1) if grade_id == twice]
    where = ", ".join(numbers[:-1]) + " and " + numbers[-1]
    shown = repr(twice) if len(twice) <= 40 else repr(twice[:40]) + "..."  # repr: escaped, never a control
    return f"the cell id {shown} is on cells {where}: keep one of them (copy what you need into it) and delete " + (
        "the other" if len(numbers) == 2 else "the others")


def json_error_text(error: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text and where, as one readable clause.

    The decoder's ``msg`` is written to be followed by the position: some end in "at"
    ("Invalid control character at"), which read as cut off on their own.

    Examples
    --------
    >>> import json
    >>> try:
    ...     json.loads('{"a": "x' + chr(9) + 'y"}')  # a tab typed inside a string
    ... except json.JSONDecodeError as error:
    ...     print(json_error_text(error))
    invalid control character at line 1, column 9
    >>> try:
    ...     json.loads('{"a": ')
    ... except json.JSONDecodeError as error:
    ...     print(json_error_text(error))
    expecting value at line 1, column 7
    """
    where = f"line {error.lineno}, column {error.colno}"
    what = error.msg[:1].lower() + error.msg[1:]
    return f"{what} {where}" if what.endswith(" at") else f"{what} at {where}"
