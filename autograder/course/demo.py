"""``make demo``: regenerate the release, grade the bundled example submissions, print the table."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..exercises.ndcg import EXERCISE
from ..pipeline import GradeOptions, grade_course
from ..sandbox import choose_sandbox
from .example_notebooks import write_submission
from .nbgrader import generate_release, release_notebook

ASSIGNMENT = EXERCISE.assignment
NOTEBOOK = EXERCISE.notebook

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


def run(root: Path) -> int:
    """Grade the bundled examples in a scratch course under ``root/demo``; print the table.

    The course's own ``submitted/``, ``autograded/``, ``feedback/``, ``graded/``, ``release/`` and
    ``gradebook.db`` are never touched: the demo works on a copy.
    """
    from ..cli import print_run

    scratch = scratch_course(root)
    shown = scratch.relative_to(root) if scratch.is_relative_to(Path.cwd()) else scratch
    print(f"1/3 a scratch course in {shown}/ (the course's own folders and gradebook are left alone); "
          "generating its release with nbgrader ...", flush=True)
    generate_release(scratch)
    print(f"2/3 staging the example submissions in {shown}/submitted/ ...", flush=True)
    isolated = choose_sandbox("auto").isolated
    students = stage_examples(scratch, scratch / "submitted", hostile=isolated, examples=root / EXAMPLES)
    print(f"    {', '.join(students)}")
    if not isolated:  # without the sandbox its code would really overwrite files
        print(f"    left out: {', '.join(HOSTILE)} (hostile code; bubblewrap is not available here to contain it)")
    print(f"3/3 grading them in the sandbox into {shown}/graded/ ...", flush=True)
    run = grade_course(GradeOptions(
        EXERCISE, submitted=scratch / "submitted", out=scratch / "graded", timeout=3, force=True,
        course_root=scratch,
    ))
    print_run(run)
    return run.exit_code
