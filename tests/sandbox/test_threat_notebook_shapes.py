"""Threat: a notebook's shape or its folder stops the batch, or the two grading paths read it differently.

Each hostile student below is graded beside four honest classmates on both paths, nbgrader's real
``autograde`` and the kit's ``python -m autograder grade``:

- JSON nested 600 deep in a markdown cell's metadata, the notebook's metadata, a code cell's
  metadata, an output, and as lists: nbformat's reader (``from_dict``) recursed into it and ended
  ``grade`` with a RecursionError after grading (no table, no ``autograded/`` notebooks);
- 250,000 JSON values in one output (under the size limit; nbformat takes seconds per read);
- an integer of 5,000 digits (Python's ``json`` raises ValueError, not a JSON error, for it);
- a markdown cell whose metadata is a list, a cell that is a string: the batch graded them,
  nbformat's reader (so nbgrader's path) could not read them;
- a lone surrogate in a markdown cell or a metadata key (``"\\ud800"`` in the JSON): ``grade``
  ended with a UnicodeEncodeError writing the autograded notebooks;
- one nbgrader cell id on two cells (the by-hand answer cell, a solution cell, a test cell, the
  derivation cell, the helper cell): the batch graded the first, nbgrader's ``DeduplicateIds``
  kept the last and its next step raised KeyError;
- 3,000 empty files beside the notebook (nbgrader's copy filter is quadratic in them: 92.7 s for
  that student) and a file of 100 MiB (sparse: no disk used).

Must hold: every honest classmate is graded, with the same score on both paths, and gets an
autograded notebook; each hostile student is ``error`` with a message naming the bound, refused
on both paths, and the folder of a refused student is never copied into ``autograded/``; the
copying report (``python -m autograder copying``) runs over the same class. Two cells with one
nbformat cell ``id`` (not an nbgrader id) are no attack: nbformat gives the second a new id on
both paths, and that student is graded the same on both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import gradebook_scores, tool_environment
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.cells import ANSWERS_ID
from autograder.grading.reading.notebook_shape import MAX_CELLS, MAX_DEPTH, MAX_VALUES

from grading_run import RELEASE, add_student, generated_course, grade, notebook_path, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading through nbgrader needs bubblewrap here"),
]
NBGRADER = Path(sys.executable).parent / "nbgrader"
HONEST = ("alice", "bob", "carol", "dave")
DEEP = 600
MANY_FILES = 3000


def _nested(levels: int, *, as_list: bool = False) -> object:
    value: object = "leaf"
    for _ in range(levels):
        value = [value] if as_list else {"a": value}
    return value


def _first(notebook: dict, kind: str) -> dict:
    return next(cell for cell in notebook["cells"] if cell["cell_type"] == kind)


def _output(data: object) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {"application/json": data}}


def _twice(grade_id: str):
    def change(notebook: dict) -> None:
        index = next(i for i, cell in enumerate(notebook["cells"])
                     if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
        copy = json.loads(json.dumps(notebook["cells"][index]))
        copy["id"] = "a-copy-of-it"
        notebook["cells"].insert(index + 1, copy)
    return change


#: The release's cells, as every shape below starts from it (positions in the refusals are 1-based).
RELEASE_CELLS = nbformat.read(RELEASE, as_version=4).cells


def _twice_words(grade_id: str) -> str:
    """The refusal of a notebook with the cell ``grade_id`` twice: its position in the release and the next."""
    at = 1 + next(i for i, cell in enumerate(RELEASE_CELLS) if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return f"the cell id '{grade_id}' is on cells {at} and {at + 1}"


#: student -> (what is done to their notebook, words of the refusal)
SHAPES = {
    "deep_markdown_meta": (lambda nb: _first(nb, "markdown")["metadata"].update(deep=_nested(DEEP)),
                           f"cell 1's metadata is nested deeper than {MAX_DEPTH} levels"),
    "deep_notebook_meta": (lambda nb: nb["metadata"].update(deep=_nested(DEEP)),
                           f"the notebook's metadata is nested deeper than {MAX_DEPTH} levels"),
    "deep_code_meta": (lambda nb: _first(nb, "code")["metadata"].update(deep=_nested(DEEP)),
                       "cell 4's metadata is nested deeper"),
    "deep_list": (lambda nb: _first(nb, "markdown")["metadata"].update(deep=_nested(DEEP, as_list=True)),
                  "cell 1's metadata is nested deeper"),
    "deep_output": (lambda nb: _first(nb, "code")["outputs"].append(_output(_nested(DEEP))),
                    "an output of cell 4 is nested deeper"),
    "wide_output": (lambda nb: _first(nb, "code")["outputs"].append(_output([0] * (MAX_VALUES + 50_000))),
                    f"holds more than {MAX_VALUES:,} JSON values"),
    # the red team's second round: one-letter cells, cheap in values, dear in nbformat's per-cell work
    "many_cells": (lambda nb: nb["cells"].extend({"cell_type": "markdown", "id": f"m{i}", "metadata": {},
                                                  "source": "x"} for i in range(MAX_CELLS + 1_000)),
                   f"the notebook has more than {MAX_CELLS:,} cells"),
    # the red team's third round: one string of many lines, one value as handed in (the batch graded it 15/15)
    # and a value a line after nbformat's writer split it (nbgrader's first conversion refused, 0 points)
    "one_string_of_lines": (lambda nb: nb["cells"].append({"cell_type": "markdown", "id": "x2", "metadata": {},
                                                           "source": "x\n" * (MAX_VALUES + 1_000)}),
                            f"holds more than {MAX_VALUES:,} JSON values"),
    "two_answer_cells": (_twice(ANSWERS_ID), _twice_words(ANSWERS_ID)),
    "two_dcg_cells": (_twice("dcg"), _twice_words("dcg")),
    "two_test_cells": (_twice("test_dcg_lecture"), _twice_words("test_dcg_lecture")),
    "two_derivation_cells": (_twice("byhand_variant"), _twice_words("byhand_variant")),
    "two_helper_cells": (_twice("test_helpers"), _twice_words("test_helpers")),
    # a lone surrogate (json.dumps escapes it as \ud800): no UTF-8 file holds it, every writer raised on it
    "surrogate_in_markdown": (lambda nb: nb["cells"].append({"cell_type": "markdown", "id": "x1", "metadata": {},
                                                             "source": "DCG \ud800"}),
                              f"cell {len(RELEASE_CELLS) + 1} holds text that is not valid Unicode"),
    "surrogate_in_a_key": (lambda nb: nb["metadata"].update({"tag\udcff": 1}),
                           "the notebook's metadata holds text that is not valid Unicode"),
    # what nbformat's reader (nbgrader's path) cannot take, which the batch's reader took and graded
    "metadata_is_a_list": (lambda nb: _first(nb, "markdown").update(metadata=[1, 2]),
                           "is JSON but not a Jupyter notebook"),
    "a_cell_is_text": (lambda nb: nb["cells"].append("a cell"), "is JSON but not a Jupyter notebook"),
    # written as text (_hostile_course): Python converts no integer of over 4,300 digits, json.loads raises ValueError
    "long_number": (None, "holds a number of more than 4300 digits"),
}
FOLDERS = {
    "many_files": f"holds more than {250:,} files and folders",
    "many_bytes": "holds more than 64 MiB of files",
}


def _hostile_course(path: Path) -> Path:
    course = generated_course(path)
    for student in HONEST:
        add_student(course, student)
    target = add_student(course, "long_number")
    text = target.read_text(encoding="utf-8").replace('"metadata": {', '"metadata": {"n": ' + "9" * 5000 + ", ", 1)
    target.write_text(text, encoding="utf-8")
    target = add_student(course, "same_cell_ids")
    notebook = json.loads(target.read_text(encoding="utf-8"))
    notebook["cells"][1]["id"] = notebook["cells"][0]["id"]
    target.write_text(json.dumps(notebook), encoding="utf-8")
    for student, (change, _) in SHAPES.items():
        if change is None:
            continue
        target = add_student(course, student)
        notebook = json.loads(target.read_text(encoding="utf-8"))
        change(notebook)
        target.write_text(json.dumps(notebook), encoding="utf-8")
    folder = add_student(course, "many_files").parent
    for number in range(MANY_FILES):
        (folder / f"empty-{number}.txt").touch()
    add_student(course, "many_bytes")
    with open(notebook_path(course, "many_bytes").with_name("data.bin"), "wb") as handle:
        handle.truncate(100 * 1024**2)  # 100 MiB that take no disk space
    return course


@pytest.fixture(scope="module")
def both_paths(tmp_path_factory):
    course = _hostile_course(tmp_path_factory.mktemp("notebook-shapes") / "course")
    # nbgrader's own autograde: a refused student is nbgrader's per-student error (exit 1), the others go on
    done = subprocess.run([str(NBGRADER), "autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5"],
                          cwd=course, env=tool_environment(), capture_output=True, text=True, timeout=1200)
    log = done.stdout + done.stderr
    after_nbgrader = sorted(path.name for path in (course / "autograded").iterdir())
    theirs = gradebook_scores(course)
    ours = grade(course, "--gradebook", "none", "--timeout", "5")
    return course, done.returncode, log, after_nbgrader, theirs, ours


def test_the_batch_finishes_and_every_classmate_is_graded(both_paths):
    course, *_, ours = both_paths
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert "Traceback" not in ours.stderr, ours.stderr[-3000:]
    graded = results(course)
    for student in (*HONEST, "same_cell_ids"):
        assert (graded[student]["status"], graded[student]["score"]) == ("graded", EXERCISE.max_score), student
        assert (course / "autograded" / student / "ndcg" / "ndcg.ipynb").is_file(), student


@pytest.mark.parametrize("student", sorted([*SHAPES, *FOLDERS]))
def test_a_hostile_shape_is_that_students_error_on_the_batch(both_paths, student):
    course = both_paths[0]
    result = results(course)[student]
    words = SHAPES[student][1] if student in SHAPES else FOLDERS[student]
    assert (result["status"], result["score"]) == ("error", 0.0), result["message"]
    assert words in result["message"] and "internal grader error" not in result["message"], result["message"]
    assert not (course / "autograded" / student).exists()  # no notebook written from it


@pytest.mark.parametrize("student", sorted([*SHAPES, *FOLDERS]))
def test_nbgrader_refuses_the_same_students_before_reading_or_copying(both_paths, student):
    _, returncode, log, after_nbgrader, *_ = both_paths
    words = SHAPES[student][1] if student in SHAPES else FOLDERS[student]
    assert returncode == 1  # nbgrader's way of saying that some students failed
    assert f"{student}: not graded: " in log and words in log, log[-3000:]
    assert student not in after_nbgrader
    # nbgrader logs "Removing failed assignment" when it had made the folder: nothing was copied
    assert f"autograded/{student}/" not in log.replace("\\", "/"), log[-3000:]
    assert "RecursionError" not in log and "KeyError" not in log


def test_both_paths_give_the_honest_classmates_the_same_scores(both_paths):
    course, _, _, after_nbgrader, theirs, _ = both_paths
    assert set(HONEST) <= set(after_nbgrader)
    ours = {student: (result["score"], result["max_score"]) for student, result in results(course).items()}
    for student in (*HONEST, "same_cell_ids"):
        assert theirs[student] == ours[student] == (EXERCISE.max_score, EXERCISE.max_score), student


def test_the_copying_report_reads_the_class(both_paths):
    course = both_paths[0]
    done = subprocess.run([sys.executable, "-m", "autograder", "copying", "--out", "graded/copying.html"],
                          cwd=course, env=tool_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    page = (course / "graded" / "copying.html").read_text(encoding="utf-8")
    assert all(student in page for student in HONEST)  # the honest classmates wrote the same code: compared
