"""Threat: a student's feedback names a path of the tutor's machine.

A submission raises, in its cells and in the lecture example's call, exceptions that carry every
path it can see: the Python's prefix and executable, a package's ``__file__``, the editable
install's finder module and its ``MAPPING`` (the project folder), ``sys.path`` and its working
directory. The course lives in a temporary folder with a distinctive name. Graded by the batch
command and by ``nbgrader autograde`` (with ``generate_feedback``), no file a student or the
formgrader gets (the kit's feedback pages, nbgrader's feedback, the autograded notebooks, the
results they are made from) names the course's folder, the repository, the virtual environment or
the tutor's home; the messages still say what was raised, with placeholders for the paths.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import run_nbgrader
from autograder.sandbox.runs.paths import PYTHON, redact_paths

from grading_run import RELEASE, ROOT, add_student, grade, results, whole_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

DISTINCTIVE = "zq-tutors-private-folder"
LEAKY_DCG = '''import math, os, sys, numpy


def dcg(rels, k):
    raise ValueError(" | ".join([sys.executable, numpy.__file__, os.getcwd(), sys.prefix]))'''
LEAKY_CELLS = (
    "import sys\nraise RuntimeError(repr([m for n, m in sys.modules.items() if 'editable' in n]))",
    "import sys\nraise RuntimeError(repr([getattr(m, 'MAPPING', None) for n, m in sys.modules.items() if 'editable' in n]))",
    "import sys\nraise RuntimeError(repr(sys.path))",
    "import numpy\nraise RuntimeError(numpy.__file__)",
)
BATCH, NBGRADER = "leaky", "leaky2"


def machine_paths(course: Path) -> list[str]:
    """The paths no student may see, as written and resolved."""
    paths = {str(course), DISTINCTIVE, str(ROOT), sys.prefix, os.path.realpath(sys.executable), str(Path.home()) + "/"}
    return sorted(paths | {os.path.realpath(path) for path in paths if path.startswith("/")})


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = whole_course(tmp_path_factory.mktemp(DISTINCTIVE) / "course")
    run_nbgrader(course, "generate_assignment", "ndcg", "--force")
    add_student(course, BATCH, dcg=LEAKY_DCG, extra=LEAKY_CELLS)
    done = grade(course)
    assert done.returncode == 0, done.stderr[-2000:]
    add_student(course, NBGRADER, dcg=LEAKY_DCG, extra=LEAKY_CELLS)
    run_nbgrader(course, "autograde", "ndcg", "--student", NBGRADER)
    run_nbgrader(course, "generate_feedback", "ndcg", "--force")
    return course


def student_facing(course: Path) -> list[Path]:
    files = [path for folder in ("graded", "feedback", "autograded") for path in (course / folder).rglob("*")]
    return [path for path in files if path.is_file()]


def test_no_student_facing_file_names_a_path_of_the_machine(course):
    files = student_facing(course)
    names = {path.relative_to(course).as_posix() for path in files}
    for student in (BATCH, NBGRADER):  # the pages exist, so their absence of paths means something
        assert f"feedback/{student}/ndcg/ndcg.html" in names and f"autograded/{student}/ndcg/ndcg.ipynb" in names
    leaks = [
        f"{path.relative_to(course)}: {needle}"
        for path in files
        for needle in machine_paths(course)
        if needle in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert leaks == []


def test_the_messages_still_say_what_was_raised(course):
    message = results(course)[BATCH]["message"]
    assert "RuntimeError" in message and f"{PYTHON}/lib/python" in message
    # the runner starts without `site` (python -I -S): the kit's editable-install hook, whose mapping
    # names the tutor's folders, is not even loaded in the sandbox
    # the leaky cells stand before the first solution cell of the release (Task 1.2's STUDENT_ID cell)
    release = nbformat.read(RELEASE, as_version=4).cells
    first = 1 + next(i for i, cell in enumerate(release) if cell.metadata.get("nbgrader", {}).get("solution"))
    assert f"cell {first} of your notebook raised RuntimeError: []" in message
    assert f"cell {first + 1} of your notebook raised RuntimeError: []" in message
    feedback = (course / "feedback" / NBGRADER / "ndcg" / "ndcg.html").read_text(encoding="utf-8")
    assert "RuntimeError" in feedback and PYTHON.replace("<", "&lt;").replace(">", "&gt;") in feedback


def test_redaction_keeps_what_is_not_a_machine_path():
    text = f"{Path.home()}fs and /usr/lib/python3 and /tmp/x"
    assert redact_paths(text) == text
    assert redact_paths(f"[{sys.prefix}/bin]") == f"[{PYTHON}/bin]"
