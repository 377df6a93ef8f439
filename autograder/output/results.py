"""The batch's outputs for programs and tutors: ``results.json``, ``grades.csv``, the terminal table.

Both files are written one student at a time from any iterable of results, so writing them for
50,000 students takes the memory of one student's record, not of the class.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..files import open_atomic
from ..grading import SCHEMA_VERSION, BatchResult, Status, StudentResult
from .copying_notes import copied_note
from .feedback import feedback_path
from .late_words import lateness_note
from .mark_words import manual_note, test_rows
from .safe_text import csv_cell, first_few, printable, shown_student


def _header(batch: BatchResult) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "assignment": batch.assignment,
        "max_score": batch.max_score,
        "sandbox": batch.sandbox,
        "tests": [asdict(group) for group in batch.groups],
    }


def student_document(batch: BatchResult, student: StudentResult) -> dict[str, Any]:
    """One student's entry of ``results.json``."""
    return {
        **student.to_json(),
        # the folder's name as text: bytes that are not UTF-8 and control characters escaped
        "student_id": shown_student(student),
        "feedback": printable(feedback_path(batch, student).as_posix()),
    }


def results_lines(batch: BatchResult, students: Iterable[StudentResult] | None = None) -> Iterator[str]:
    """The lines of ``results.json``, one student at a time (``students`` default to ``batch.students``).

    The header's fields come first on one line, then ``"students": [``, then each student on a line
    of its own, then ``]}``: one JSON document that a program may also read a student at a time
    (:func:`read_students`).
    """
    header = json.dumps(_header(batch), separators=(", ", ": "))
    yield header[:-1] + ",\n"
    yield '"students": [\n'
    first = True
    for student in batch.students if students is None else students:
        yield ("" if first else ",\n") + json.dumps(student_document(batch, student), separators=(",", ":"))
        first = False
    yield "\n]}\n"


def read_students(path: Path) -> Iterator[dict[str, Any]]:
    """Each student's entry of a ``results.json`` (this layout, :data:`SCHEMA_VERSION`), one at a time.

    Raises
    ------
    ValueError
        For a file of another schema version or layout (read it with ``json.load`` instead).
    """
    with path.open(encoding="utf-8") as stream:
        header = json.loads(stream.readline().rstrip().rstrip(",") + "}")
        if header.get("schema_version") != SCHEMA_VERSION or stream.readline() != '"students": [\n':
            raise ValueError(f"{path}: not a results.json of schema version {SCHEMA_VERSION}")
        for line in stream:
            if line.startswith("]}"):
                return
            yield json.loads(line.rstrip().removesuffix(","))
    raise ValueError(f"{path}: ends before its closing line (a truncated file)")


def results_assignment(out: Path) -> str | None:
    """The assignment whose results ``out/results.json`` holds; None without a file of this layout.

    >>> results_assignment(Path("no such folder")) is None
    True
    """
    try:
        with (out / "results.json").open(encoding="utf-8") as stream:
            header = json.loads(stream.readline().rstrip().rstrip(",") + "}")
    except (OSError, UnicodeDecodeError, ValueError):  # none, or not ours: nothing to keep apart
        return None
    assignment = header.get("assignment") if isinstance(header, dict) else None
    return assignment if isinstance(assignment, str) else None


def grades_csv_rows(batch: BatchResult, students: Iterable[StudentResult] | None = None) -> Iterator[list[str]]:
    """The header and one row per student of ``grades.csv`` (see :func:`grades_csv`)."""
    names = [group.name for group in batch.groups]
    yield [
        "student_id", "status", "final_score", "max_score", "grader_score", *(csv_cell(name) for name in names),
        "gradebook_score", "manual", "penalty",
    ]
    for student in batch.students if students is None else students:
        final = student.final
        points = {row.test.name: row.points for row in test_rows(student)}  # a tutor's points where they gave some
        yield [
            # a refused folder's id is escaped already and starts with ' or a letter: no formula, not escaped twice
            student.student_id if student.status is Status.REFUSED else csv_cell(student.student_id),
            student.status.value, f"{final.value:g}", f"{student.max_score:g}", f"{student.score:g}",
            *(f"{points[name]:g}" if name in points else "" for name in names),
            "" if student.manual is None else f"{student.manual.score:g}",
            "yes" if student.manual is not None and student.manual.overridden else "",
            "" if student.late is None else f"{final.penalty:g}",
        ]


def grades_csv(batch: BatchResult) -> str:
    """One row per student: id, status, final score, max score, the grader's score, points per test, the gradebook's.

    ``final_score`` is the one every output shows (:attr:`StudentResult.final`: the gradebook's
    total less the late penalty, as ``nbgrader export`` has it); ``grader_score`` is the grader's own,
    before the tutors' marks and the penalty; the test columns are the points that count (a tutor's
    where they set some); ``gradebook_score`` is the gradebook's total (a tutor's manual scores and
    extra credit included; empty without a gradebook entry), ``manual`` is ``yes`` where a tutor
    changed a score, ``penalty`` the late penalty in the gradebook (empty without a due date).
    """
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(grades_csv_rows(batch))
    return buffer.getvalue()


def write_results(out: Path, batch: BatchResult, students: Iterable[StudentResult] | None = None) -> None:
    """Write ``results.json`` and ``grades.csv`` into ``out``, one student at a time.

    ``students`` (default ``batch.students``) is read twice, once per file: a re-iterable stream.
    """
    with open_atomic(out / "results.json", keep_unchanged=True) as stream:
        stream.writelines(results_lines(batch, students))
    write_grades(out, batch, students)


def write_grades(out: Path, batch: BatchResult, students: Iterable[StudentResult] | None = None) -> None:
    """Write ``grades.csv`` into ``out``, one student at a time."""
    with open_atomic(out / "grades.csv", keep_unchanged=True) as stream:
        csv.writer(stream, lineterminator="\n").writerows(grades_csv_rows(batch, students))


def _table_message(student: StudentResult) -> str:
    message = student.message
    notes = [note for note in (copied_note(student), lateness_note(student.late),
                               manual_note(student.manual, student.score)) if note]
    said = notes + student.needs_a_look + student.diagnosis.ids + ([message] if message else [])
    # a refused folder's message shows its name escaped already (printable ASCII): not escaped twice
    refused = student.status is Status.REFUSED
    said = [part if refused and part.isascii() and part.isprintable() else printable(part) for part in said]
    # the kit writes its warnings with every name escaped already (as results.json holds them): escaped again
    # only where one is not printable, so that "left out: \x1b[2J.ipynb" reads as in nbgrader's log
    said += [warning if warning.isprintable() else printable(warning) for warning in student.warnings]
    return ", ".join(said)


#: The narrowest and widest table the terminal gets: readable in an 80-column window, not sprawling in a wide one.
TABLE_WIDTHS = (80, 100)
#: The fewest characters of a note per line, however far right a long student id pushes the notes' column.
_NOTE_MIN = 30


def table_width() -> int:
    """The terminal's width (``COLUMNS`` or the window's; 100 when not a terminal), kept within :data:`TABLE_WIDTHS`."""
    low, high = TABLE_WIDTHS
    return max(low, min(high, shutil.get_terminal_size((high, 24)).columns))


def score_table(batch: BatchResult, width: int | None = None) -> str:
    """A plain-text table of the batch, for the terminal; the score is the final one (late penalty taken off).

    A student's notes (late penalty, manual marks, copying, diagnosed mistakes, the message) are never
    cut: what does not fit in ``width`` columns (default :func:`table_width`) goes on the next lines,
    indented under the notes' column, so every line of a student but the first starts with a space.
    """
    ids = {s.student_id: shown_student(s) for s in batch.students}
    id_width = min(40, max([len("student")] + [len(shown) for shown in ids.values()]))
    status_width = max([len("status")] + [len(s.status.value) for s in batch.students])
    width = width or table_width()
    indent = " " * (id_width + status_width + 17)  # where the notes' column starts
    beside = width - len(indent) >= _NOTE_MIN  # else (long ids) the notes go below the row, indented a little
    indent = indent if beside else " " * 4
    heading = f"{'student':<{id_width}}  {'status':<{status_width}} {'score':>6} {'max':>5}"
    lines = [f"{heading}  mistakes / message" if beside else f"{heading}\n{indent}mistakes / message"]
    for s in batch.students:
        # broken at spaces only: an id, a path or a number is never split across lines
        notes = textwrap.wrap(_table_message(s), width - len(indent), break_long_words=False, break_on_hyphens=False)
        first = (f"{ids[s.student_id]:<{id_width}}  {s.status.value:<{status_width}} "
                 f"{s.final_score:>6g} {s.max_score:>5g}")
        lines.append(f"{first}  {notes.pop(0)}" if notes and beside else first)
        lines.extend(indent + line for line in notes)
    return "\n".join(lines)


#: How many students outside the roster the summary names (the rest are counted).
NAMED_UNROSTERED = 10


def run_summary(batch: BatchResult, out: Path, gradebook_note: str, *, table: bool = True,
                sandbox: str | None = None, not_submitted: int = 0, not_on_roster: tuple[str, ...] = ()) -> str:
    """What a grading run prints: the table of students (if ``table``), the counts, where the outputs went.

    Parameters
    ----------
    batch
        The run's results.
    out
        The folder the outputs were written to.
    gradebook_note
        One line on the gradebook: recorded, skipped, or why it was not updated.
    table
        Whether to start with :func:`score_table`.
    sandbox
        How it graded, in a line (the sandbox's mode); default: the sandbox's name in ``batch``.
    not_submitted
        How many of the ``missing`` are on the gradebook's roster without any submission (said apart).
    not_on_roster
        Graded students the gradebook's roster does not hold (one line naming them, escaped).
    """
    apart = f" (of them {not_submitted} on the roster with no submission)" if not_submitted else ""
    summary = (
        f"\n{len(batch.students)} students: {batch.status_summary}{apart}"
        f"\nresults: {out / 'results.json'}, {out / 'grades.csv'}, {out / 'report.html'}, "
        f"feedback in {out / 'feedback'}/"
        f"\nsandbox: {sandbox or batch.sandbox}\n{gradebook_note}"
    )
    if not_on_roster:
        summary += (f"\nnot on the gradebook's roster: {first_few(not_on_roster, NAMED_UNROSTERED)} (a typo in the id, "
                    "or handed in from another account: `nbgrader submit` files a submission under the login's name "
                    "unless given --student)")
    return f"{score_table(batch)}\n{summary}" if table else summary
