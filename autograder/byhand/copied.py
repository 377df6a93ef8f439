"""``python -m autograder copying``: the copying report's evidence, gathered from ``submitted/``.

By hand (an exercise's by-hand part, e.g. nDCG's Task 1.2, reached through its hook
:class:`~..grading.ByHand`): a student whose numbers no single way of working out their own list gives
(right, or one common mistake) and whose answers are, in two or more of DCG@k, iDCG@k and nDCG@k,
the values of *another* student's list, DCG@k among them, is listed with whose list it is (iDCG@k
depends only on the grades, not their order, so many lists share it). One matching number can be chance (hundreds of
lists, two decimals); two are not. Code (Tasks 1.3–1.4): every pair of students' code cells is
compared with copydetect's winnowing fingerprints, the release's stub lines left out, and the pairs
at or above the threshold are listed; the code a cell holds in string constants, however it is
run (``exec('''…''')``, ``get_ipython().run_cell``, decoded from base64 or rot13;
:mod:`.executed_code`), is compared too, and so are the texts the student's code compiled when the
grader last ran it (:class:`~..grading.compiled.CompiledCode`, kept with the grader's result in
``autograded/``: parts joined at run time, byte values, any encoding), when that run was of the same
code; a student without such a record is named (only the spelling compared). Each student's notebook is the one the
grader grades, read as the grader reads it (any file name the grader accepts, any metadata), and
every student left out of a comparison is named with the reason, on the page and in the summary.
Nothing a student wrote is run.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from copydetect import CodeFingerprint, compare_files

from ..course.handback.feedback_page import NoGraderResult, read_stored_result
from ..course.notebook_cells.generated_cells import skipped_cell_ids
from ..course.setup.roster import course_roster
from ..grading import ByHand, Exercise, student_folders
from ..grading.compiled import code_digest
from ..grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES, check_folder
from ..grading.reading.notebook import (
    DEFAULT_MAX_NOTEBOOK_BYTES,
    FileId,
    SubmissionProblem,
    cell_sources,
    file_ids,
    read_notebook,
    release_code,
    student_code,
)
from ..grading.reading.student_ids import check_ids
from ..output.safe_text import printable
from .copied_page import CodePair, NotCompared, write_copying_report
from .executed_code import executed_code
from .salt import release_variant

#: copydetect's defaults: matches shorter than NOISE tokens are ignored, longer than GUARANTEE always found.
NOISE, GUARANTEE = 25, 30


def code_pairs(code: Mapping[str, str], stub: str, threshold: float) -> tuple[list[CodePair], list[str]]:
    """The pairs of students whose code shares at least ``threshold`` of one's tokens, most similar first.

    Also returns the students with no code of their own beyond ``stub`` (nothing to compare).
    """
    window = GUARANTEE - NOISE + 1
    stub_print = CodeFingerprint("stub.py", NOISE, window, fp=io.StringIO(stub), language="python")
    boilerplate = np.array(sorted(stub_print.hashes), dtype=np.int64)  # as copydetect's own detector passes it
    prints = {}
    empty: list[str] = []
    for student, text in code.items():
        fingerprint = CodeFingerprint(f"{student}.py", NOISE, window, boilerplate, fp=io.StringIO(text),
                                      language="python")
        if len(fingerprint.hashes):  # nothing of their own beyond the stub: nothing to compare
            prints[student] = fingerprint
        else:
            empty.append(student)
    pairs = []
    for first, second in itertools.combinations(sorted(prints), 2):
        _, (share_first, share_second), _ = compare_files(prints[first], prints[second])
        pair = CodePair(first, second, float(share_first), float(share_second))
        if pair.similarity >= threshold:
            pairs.append(pair)
    return sorted(pairs, key=lambda p: -p.similarity), empty


def compared_code(code: str, compiled: tuple[str, ...] = ()) -> str:
    """``code`` with the code its string constants hold (:mod:`.executed_code`) and the texts it compiled after it."""
    found = executed_code(code)
    return "\n\n".join([code, *found, *(text for text in compiled if text not in found)])


#: Said of a student whose compiled texts are not compared: the report read how the cells spell their code only.
SPELLING_ONLY = "only the spelling of the code was compared"


def _by_hand(exercise: Exercise) -> ByHand | None:
    """The exercise's by-hand hook (None: it has no by-hand part)."""
    return exercise.answered.by_hand if exercise.answered is not None else None


def compiled_texts(root: Path, exercise: Exercise, student: str, cells: list[str],
                   ) -> tuple[tuple[str, ...], str | None]:
    """What the student's code compiled when the grader last ran it, and why (some of) it is not compared.

    Read from the grader's result beside the autograded notebook (both grading paths write it), as
    untrusted data (types and bounds checked again); used only when that run was of ``cells``.
    """
    try:
        graded = read_stored_result(root / "autograded" / student / exercise.assignment, exercise.notebook).result
    except NoGraderResult:
        return (), f"not graded yet (or its result is unreadable): {SPELLING_ONLY}"
    record = graded.compiled
    if record is None:
        return (), f"no code ran when graded ({graded.status.value}): {SPELLING_ONLY}"
    if record.cells_sha256 != code_digest(cells):
        return (), f"graded from other code than the notebook submitted now: {SPELLING_ONLY} (grade again)"
    if record.dropped:
        return record.texts, (f"compiled {record.dropped:,} more texts than the grader records: only the first "
                              f"{len(record.texts)} were compared")
    return record.texts, None


def _submission(root: Path, exercise: Exercise, submitted: Path, student: str, skip: frozenset[str],
                course_files: frozenset[FileId]) -> tuple[str | None, str, str | None]:
    """The by-hand answer cell (None: none, or no by-hand part), the code of the notebook the grader grades,
    a note on its record.

    The file is chosen by the grader's own rule (:func:`~..grading.reading.notebook.read_notebook`: the
    expected name, or the one other notebook there, ``ndcg-Copy1.ipynb``) and read as JSON as the
    grader reads it (any metadata shape), so what is compared is what was graded.

    Raises
    ------
    SubmissionProblem
        When the grader could not grade that folder either; the message says why.
    """
    # a folder the grader refuses for its size is not read here either (the default limits: the report has none)
    check_folder(submitted / student / exercise.assignment, max_files=DEFAULT_MAX_FOLDER_FILES,
                 max_bytes=DEFAULT_MAX_FOLDER_BYTES, notebook=exercise.notebook)
    file = read_notebook(submitted, student, exercise.assignment, exercise.notebook,
                         max_bytes=DEFAULT_MAX_NOTEBOOK_BYTES, course_files=course_files)
    cells = student_code(file, skip)
    compiled, note = compiled_texts(root, exercise, student, cells)
    code = compared_code("\n\n".join(cells), compiled)
    hook = _by_hand(exercise)
    cell = None if hook is None else cell_sources(file, frozenset({hook.answers_id})).get(hook.answers_id)
    return cell, code, note


@dataclass(frozen=True)
class Gathered:
    """What the report compares, and every student it leaves out of a comparison, with why."""

    #: The answer cells of the students whose by-hand answers are compared, by id.
    answers: dict[str, str]
    code: dict[str, str]
    stub: str
    not_compared: list[NotCompared]
    students: int


def gather(root: Path, exercise: Exercise, submitted: Path) -> Gathered:
    """The by-hand answer cells and the code cells of every student in ``submitted``, and the release's stub code.

    An exercise without a by-hand part (:class:`~..grading.ByHand`) has its code compared only.
    """
    hook = _by_hand(exercise)
    release = root / "release" / exercise.assignment / exercise.notebook
    skip = skipped_cell_ids(exercise, release)
    stub = compared_code("\n\n".join(release_code(release, skip) or ()))
    answers: dict[str, str] = {}
    code: dict[str, str] = {}
    students = student_folders(submitted)
    # the grader's id rule (its roster too): a refused folder is not read, and is named as the grader shows it
    ids = check_ids(students, course_roster(root))
    left_out = [NotCompared(refusal.shown, "everything", f"not graded: {refusal.reason}") for refusal in ids.refused]
    course_files = file_ids([root / "source", root / "release"])  # as the grader refuses a hard link to them
    for student in ids.accepted:
        try:
            cell, code[student], note = _submission(root, exercise, submitted, student, skip, course_files)
            reason = None if hook is None else hook.unanswered(cell)
        except SubmissionProblem as problem:
            left_out.append(NotCompared(student, "everything", problem.message))
            continue
        except Exception as error:  # one notebook must not stop the report for the class
            left_out.append(NotCompared(student, "everything", f"could not be read ({type(error).__name__})"))
            continue
        if note is not None:
            left_out.append(NotCompared(student, "compiled code", note))
        if hook is None:
            continue
        if reason is None and cell is not None:
            answers[student] = cell
        else:
            left_out.append(NotCompared(student, f"{hook.task} answers", reason or "not answered"))
    return Gathered(answers, code, stub, left_out, len(students))


def write_report(root: Path, exercise: Exercise, submitted: Path, out: Path, threshold: float) -> str:
    """Gather, compare and write the copying report to ``out``; return a summary naming who was left out.

    For an exercise without a by-hand part the summary says in its first line that only code was compared.
    """
    found = gather(root, exercise, submitted)
    hook = _by_hand(exercise)
    copied = hook.copied(found.answers, *release_variant(root, exercise)) if hook and found.answers else []
    pairs, no_code = code_pairs(found.code, found.stub, threshold)
    left_out = found.not_compared + [
        NotCompared(student, "code", "no code of their own beyond the release's stub") for student in no_code]
    left_out.sort(key=lambda row: row.student_id)
    write_copying_report(out, copied, pairs, threshold=threshold, students=found.students, not_compared=left_out,
                         task=hook.task if hook else None)
    summary = (f"{found.students} students: {len(copied)} copied by-hand answers, {len(pairs)} similar code pairs; "
               f"{out}") if hook else (f"{exercise.assignment} has no by-hand part: only code compared. "
                                       f"{found.students} students: {len(pairs)} similar code pairs; {out}")
    if left_out:  # a line each: a tutor reads them one by one
        # an id is safe by the grader's rule (a refused one is shown escaped); a reason may quote a file's name
        named = "".join(f"\n  {row.student_id} ({row.part}): {printable(row.reason)}" for row in left_out)
        summary += f"\nnot compared ({len(left_out)}):{named}"
    return summary
