"""``python -m autograder copying``: the copying report's evidence, gathered from ``submitted/``.

By hand (Task 1.2): a student whose numbers no single way of working out their own list gives
(right, or one common mistake) and whose answers are, in two or more of DCG@k, iDCG@k and nDCG@k,
the values of *another* student's list, DCG@k among them, is listed with whose list it is (iDCG@k
depends only on the grades, not their order, so many lists share it). One matching number can be chance (hundreds of
lists, two decimals); two are not. Code (Tasks 1.3–1.4): every pair of students' code cells is
compared with copydetect's winnowing fingerprints, the release's stub lines left out, and the pairs
at or above the threshold are listed. Nothing a student wrote is run.
"""

from __future__ import annotations

import contextlib
import io
import itertools
from collections.abc import Mapping
from pathlib import Path

import nbformat
import numpy as np
from copydetect import CodeFingerprint, compare_files

from ..exercises import exercise_for
from ..exercises.ndcg.byhand.answers import NAMES, Answers, read_answers
from ..exercises.ndcg.byhand.cells import ANSWERS_ID
from ..exercises.ndcg.byhand.derive import CUTOFF
from ..exercises.ndcg.byhand.pool import list_for
from ..exercises.ndcg.byhand.steps import Steps, answer_matches, every_steps, right_steps
from ..grading import student_folders
from ..grading.notebook import SubmissionProblem
from ..output.copying import CodePair, CopiedAnswers, write_copying_report
from .byhand import release_variant
from .generated_cells import grade_id, locked_cell_ids, student_code_cells
from .submission_folder import read_submitted_notebook

#: copydetect's defaults: matches shorter than NOISE tokens are ignored, longer than GUARANTEE always found.
NOISE, GUARANTEE = 25, 30
#: How many numbers of another student's list make the evidence (one can be chance).
MIN_STEPS = 2
NUMBERS = ("dcg", "idcg", "ndcg")



def copied_answers(answers: Mapping[str, Answers], salt: str, pool: str) -> list[CopiedAnswers]:
    """Students whose by-hand answers are another student's values and not their own (see the module)."""
    lists = {student: list_for(student, salt, pool) for student in answers}
    right: dict[str, Steps] = {student: right_steps(rels, CUTOFF) for student, rels in lists.items()}
    found = []
    for student, theirs in answers.items():
        own = list(every_steps(lists[student], CUTOFF).values())
        answered = [s for s in NUMBERS if theirs.number(s) is not None]
        # one way of working their own list out (right, or one common mistake) gives all their numbers
        if any(all(answer_matches(theirs.number(s), way.number(s)) for s in answered) for way in own):
            continue
        for other, values in right.items():
            if other == student:
                continue
            steps = [s for s in answered if answer_matches(theirs.number(s), values.number(s))
                     and not answer_matches(theirs.number(s), own[0].number(s))]
            # DCG@k depends on the order of the list, iDCG@k only on its grades (shared by many lists)
            if "dcg" in steps and len(steps) >= MIN_STEPS:
                ideal_too = theirs.ideal is not None and theirs.ideal != own[0].ideal and theirs.ideal == values.ideal
                named = ([NAMES["ideal"]] if ideal_too else []) + [NAMES[s] for s in steps]
                found.append(CopiedAnswers(student, other, tuple(named)))
    return found


def code_pairs(code: Mapping[str, str], stub: str, threshold: float) -> list[CodePair]:
    """The pairs of students whose code shares at least ``threshold`` of one's tokens, most similar first."""
    window = GUARANTEE - NOISE + 1
    stub_print = CodeFingerprint("stub.py", NOISE, window, fp=io.StringIO(stub), language="python")
    boilerplate = np.array(sorted(stub_print.hashes), dtype=np.int64)  # as copydetect's own detector passes it
    prints = {}
    for student, text in code.items():
        fingerprint = CodeFingerprint(f"{student}.py", NOISE, window, boilerplate, fp=io.StringIO(text),
                                      language="python")
        if len(fingerprint.hashes):  # nothing of their own beyond the stub: nothing to compare
            prints[student] = fingerprint
    pairs = []
    for first, second in itertools.combinations(sorted(prints), 2):
        _, (share_first, share_second), _ = compare_files(prints[first], prints[second])
        pair = CodePair(first, second, float(share_first), float(share_second))
        if pair.similarity >= threshold:
            pairs.append(pair)
    return sorted(pairs, key=lambda p: -p.similarity)


def _read(path: Path) -> nbformat.NotebookNode | None:
    """The release (the tutor's own file), or None if it cannot be read."""
    try:
        return nbformat.read(path, as_version=4)
    except Exception:  # no release: no stub lines to leave out, not the end of the report
        return None


def _submitted(submitted: Path, assignment: str, notebook: str) -> dict[str, nbformat.NotebookNode]:
    """Each student's notebook of ``assignment``, read safely; an unreadable one is left out of the comparison."""
    found = {}
    for student in student_folders(submitted):
        with contextlib.suppress(SubmissionProblem):
            found[student] = read_submitted_notebook(submitted, student, assignment, notebook)
    return found


def gather(root: Path, submitted: Path) -> tuple[dict[str, Answers], dict[str, str], str]:
    """The by-hand answers and the code cells of every student in ``submitted``, and the release's stub code."""
    exercise = exercise_for("ndcg")
    release = _read(root / "release" / exercise.assignment / exercise.notebook)
    locked = locked_cell_ids(exercise, release if release is not None else nbformat.v4.new_notebook())
    stub = "\n\n".join(c.source for c in student_code_cells(release, locked)) if release is not None else ""
    answers: dict[str, Answers] = {}
    code = {}
    for student, notebook in _submitted(submitted, exercise.assignment, exercise.notebook).items():
        cells = [c for c in notebook.cells if grade_id(c) == ANSWERS_ID]
        if cells and isinstance(cells[0].source, str):
            answers[student] = read_answers(cells[0].source)
        code[student] = "\n\n".join(c.source for c in student_code_cells(notebook, locked) if isinstance(c.source, str))
    return answers, code, stub


def write_report(root: Path, submitted: Path, out: Path, threshold: float) -> str:
    """Gather, compare and write the copying report to ``out``; return a summary line."""
    answers, code, stub = gather(root, submitted)
    copied = copied_answers(answers, *release_variant(root)) if answers else []
    pairs = code_pairs(code, stub, threshold)
    students = len(set(answers) | set(code))
    write_copying_report(out, copied, pairs, threshold=threshold, students=students)
    return f"{students} students: {len(copied)} copied by-hand answers, {len(pairs)} similar code pairs; {out}"
