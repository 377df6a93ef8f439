"""The release and leak guards, as functions: what a released folder shows that students must not see.

``tests/course/test_course.py`` runs them on the committed ``release/`` for every registered exercise;
``tests/course/test_second_exercise_course.py`` on a course's release with an exercise added.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from autograder.grading import Exercise, Expect


def leaks(release: Path, exercise: Exercise) -> list[str]:
    """What every file under ``release`` (any exercise's) shows of ``exercise``'s hidden cases or solutions.

    Returns one line per leak: markers, a hidden call or its input list, a reference value longer than
    four characters, a provenance, each with the released files that hold it; [] when nothing leaks.
    """
    files = sorted(p for p in release.rglob("*") if p.is_file())
    if release / exercise.assignment / exercise.notebook not in files:
        return [f"no released notebook {exercise.assignment}/{exercise.notebook}"]
    texts = {str(p.relative_to(release)): p.read_text(encoding="utf-8") for p in files}

    def where(needle: str) -> str:
        """The released files holding ``needle`` (another exercise's notebook, maybe), or ''."""
        return ", ".join(name for name, text in texts.items() if needle in text)

    found = [f"{marker} in {at}" for marker in ("HIDDEN TESTS", "BEGIN SOLUTION") if (at := where(marker))]
    for case in (case for group in exercise.groups if not group.visible for case in group.cases):
        for call in (case.call, *case.extra_calls):
            # as it appears in the source's cell (JSON-escaped there as here)
            found += [f"hidden call {call.text} in {at}"] if (at := where(json.dumps(call.text)[1:-1])) else []
            # "[1]" or "[2, 1]" are in any code
            found += [f"hidden input {list(arg)!r} of {call.text} in {at}" for arg in call.args
                      if isinstance(arg, tuple | list) and len(arg) > 2 and (at := where(f"{list(arg)!r}"))]
        if case.expect is Expect.REFERENCE:
            expected = repr(exercise.expected(case))
            if len(expected) > 4 and (at := where(expected)):  # 0.0, 0.5, 1.0 are in any text
                found.append(f"reference value {expected} of {case.call.text} in {at}")
        found += [f"provenance {case.provenance!r} in {at}"] if (at := where(case.provenance)) else []
    return found


def outputs(release: Path, exercise: Exercise) -> list[int]:
    """The indexes of the code cells of ``exercise``'s released notebook that keep an output or a count."""
    cells = nbformat.read(release / exercise.assignment / exercise.notebook, as_version=4).cells
    return [index for index, cell in enumerate(cells)
            if cell.cell_type == "code" and (cell.outputs != [] or cell.execution_count is not None)]
