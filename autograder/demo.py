"""``make demo``: regenerate the release, grade the bundled example submissions, print the table.

Above the pipeline (it grades) and beside the command line (which calls :func:`run`); the scratch
course and the examples it stages are :mod:`.course.materials.demo_course`'s.
"""

from __future__ import annotations

from pathlib import Path

from .course.materials.demo_course import EXAMPLES, HOSTILE, scratch_course, stage_examples
from .course.materials.nbgrader_commands import generate_release
from .exercises.ndcg import EXERCISE
from .pipeline import GradeOptions, grade_course
from .sandbox import choose_sandbox

#: Seconds each cell and test call of the demo's examples may take.
DEMO_TIMEOUT = 1.0


def run(root: Path) -> int:
    """Grade the bundled examples in a scratch course under ``root/demo``; print the table.

    The course's own ``submitted/``, ``autograded/``, ``feedback/``, ``graded/``, ``release/`` and
    ``gradebook.db`` are never touched: the demo works on a copy.
    """
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
    # mallory's ndcg hangs on each call with k = 1: four timeouts, so a short one keeps the demo short
    # (the examples' honest code takes milliseconds of the sandbox's CPU time)
    run = grade_course(GradeOptions(
        EXERCISE, submitted=scratch / "submitted", out=scratch / "graded", timeout=DEMO_TIMEOUT, force=True,
        course_root=scratch, allow_readable_course=True,  # bundled examples: warn if others can read it, go on
    ))
    print(run.summary())
    return run.exit_code
