"""The demo's course: a scratch copy of the course and the bundled example submissions staged in it.

:mod:`autograder.demo` grades them (``make demo``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .example_notebooks import write_submission
from .nbgrader_commands import ASSIGNMENT, NOTEBOOK, release_notebook

EXAMPLES = Path("examples") / "submissions"
#: Where ``make demo`` builds its scratch course, inside the course directory (git-ignored).
SCRATCH = "demo"
#: Students of the demo who hand in the released notebook unchanged.
UNCHANGED = ("dave",)
#: Example students whose code attacks the grader: never give them to plain ``nbgrader autograde``,
#: nor to the grader without its sandbox.
HOSTILE = ("mallory",)


def stage_examples(root: Path, submitted: Path, *, hostile: bool = True, examples: Path | None = None) -> list[str]:
    """Write one submission per example solution (and the unchanged ones) under ``submitted``.

    The solutions are read from ``examples`` (default: the course's ``examples/submissions``).
    """
    release = release_notebook(root)
    students = []
    for solution in sorted((examples or root / EXAMPLES).glob("*.py")):
        if not hostile and solution.stem in HOSTILE:
            continue
        write_submission(release, solution, submitted / solution.stem / ASSIGNMENT / NOTEBOOK)
        students.append(solution.stem)
    for student in UNCHANGED:
        target = submitted / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(release, target)
        students.append(student)
    return sorted(students)


def scratch_course(root: Path) -> Path:
    """A fresh copy of the course's configuration and source in ``root/demo`` (git-ignored)."""
    scratch = root / SCRATCH
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    shutil.copy(root / "nbgrader_config.py", scratch)
    shutil.copytree(root / "source", scratch / "source")
    return scratch
