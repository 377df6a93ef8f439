"""``make demo``: regenerate the release, grade the bundled example submissions, print the scores."""

from __future__ import annotations

import shutil
from pathlib import Path

from .course import ASSIGNMENT, NOTEBOOK, autograde, generate_release, gradebook_scores, release_notebook
from .submissions import write_submission

EXAMPLES = Path("examples") / "submissions"
#: Students of the demo who hand in the released notebook unchanged.
UNCHANGED = ("dave",)


def stage_examples(root: Path, submitted: Path) -> list[str]:
    """Write one submission per example solution (and the unchanged ones) under ``submitted``."""
    release = release_notebook(root)
    students = []
    for solution in sorted((root / EXAMPLES).glob("*.py")):
        write_submission(release, solution, submitted / solution.stem / ASSIGNMENT / NOTEBOOK)
        students.append(solution.stem)
    for student in UNCHANGED:
        target = submitted / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(release, target)
        students.append(student)
    return sorted(students)


def run(root: Path) -> int:
    print("1/3 regenerating release/ from source/ with nbgrader ...", flush=True)
    changed = generate_release(root)
    if changed:
        print(f"    test cells updated from autograder/cases.py: {', '.join(changed)}")
    print("2/3 staging the example submissions in submitted/ ...", flush=True)
    students = stage_examples(root, root / "submitted")
    print(f"    {', '.join(students)}")
    print("3/3 grading with nbgrader autograde ...", flush=True)
    autograde(root)
    scores = gradebook_scores(root)
    print()
    print(f"{'student':<10} {'score':>6} {'max':>6}")
    for student in students:
        score, maximum = scores[student]
        print(f"{student:<10} {score:>6g} {maximum:>6g}")
    return 0
