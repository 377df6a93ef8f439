"""Build student notebooks from the released notebook: used for the bundled examples and the tests.

A solution file holds the code of the solution cells in "percent" format, one block per cell,
each opened by a line ``# %% <grade_id>`` naming the solution cell it fills (comment lines may
come before the first block)::

    # %% dcg
    import math
    def dcg(rels, k): ...

    # %% ndcg
    def ndcg(rels, k): ...
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

_BLOCK = re.compile(r"^# %% (\S+)[ \t]*$", re.MULTILINE)


def parse_solution_file(text: str) -> dict[str, str]:
    """Split a percent-format solution file into ``{grade_id: code}``.

    Examples
    --------
    >>> parse_solution_file("# %% dcg\\ndef dcg(rels, k):\\n    return 0.0\\n")
    {'dcg': 'def dcg(rels, k):\\n    return 0.0'}
    """
    parts = _BLOCK.split(text)
    preamble = [line for line in parts[0].splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if len(parts) < 3 or preamble:
        raise ValueError("a solution file must start with a '# %% <grade_id>' line (comments may come before it)")
    return {grade_id: code.strip("\n") for grade_id, code in zip(parts[1::2], parts[2::2], strict=True)}


def fill_solutions(release: nbformat.NotebookNode, code: dict[str, str]) -> nbformat.NotebookNode:
    """Return a copy of the released notebook with the named solution cells replaced by ``code``.

    Raises ``ValueError`` if ``code`` names a cell that is not a solution cell of ``release``.
    """
    notebook = nbformat.from_dict(release)
    solution_ids = set()
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            solution_ids.add(grade_id)
            if grade_id in code:
                cell.source = code[grade_id]
    unknown = sorted(set(code) - solution_ids)
    if unknown:
        known = ", ".join(sorted(solution_ids))
        raise ValueError(f"no solution cell {', '.join(unknown)} in the notebook (solution cells: {known})")
    return notebook


def write_submission(release_path: Path, solution_path: Path, target: Path) -> Path:
    """Write the released notebook filled with the solution file to ``target``; return it."""
    release = nbformat.read(release_path, as_version=4)
    notebook = fill_solutions(release, parse_solution_file(solution_path.read_text(encoding="utf-8")))
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return target
