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
#: Students of the demo who hand in the released notebook unchanged.
UNCHANGED = ("dave",)
#: Example students whose code attacks the grader: never give them to plain ``nbgrader autograde``,
#: nor to the grader without its sandbox.
HOSTILE = ("mallory",)


def stage_examples(root: Path, submitted: Path, *, hostile: bool = True) -> list[str]:
    """Write one submission per example solution (and the unchanged ones) under ``submitted``."""
    release = release_notebook(root)
    students = []
    for solution in sorted((root / EXAMPLES).glob("*.py")):
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


def run(root: Path) -> int:
    """Regenerate the release, stage the examples in ``root/submitted``, grade them, print the table."""
    from ..cli import print_run

    print("1/3 regenerating release/ from source/ with nbgrader ...", flush=True)
    changed = generate_release(root)
    if changed:
        print(f"    test cells updated from autograder/cases.py: {', '.join(changed)}")
    print("2/3 staging the example submissions in submitted/ ...", flush=True)
    isolated = choose_sandbox("auto").isolated
    if not isolated:  # without the sandbox their code would really overwrite files
        for student in HOSTILE:
            shutil.rmtree(root / "submitted" / student, ignore_errors=True)
    students = stage_examples(root, root / "submitted", hostile=isolated)
    print(f"    {', '.join(students)}")
    if not isolated:
        print(f"    left out: {', '.join(HOSTILE)} (hostile code; bubblewrap is not available here to contain it)")
    print("3/3 grading: python -m autograder grade --submitted submitted --out graded --timeout 3 --force", flush=True)
    run = grade_course(GradeOptions(
        EXERCISE, submitted=root / "submitted", out=root / "graded", timeout=3, force=True, course_root=root,
    ))
    print_run(run)
    return run.exit_code
