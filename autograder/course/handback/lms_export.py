"""``nbgrader export`` plugins that write Moodle's and Canvas's grade-import CSV files.

The final score is the one nbgrader's own ``CsvExportPlugin`` writes: the submission's score
(each grade cell's manual score where a tutor gave one, its automatic score otherwise) minus the
late-submission penalty, never below 0; a student without a submission scores 0. Everything comes
from the gradebook, the single source of truth for scores, so manual marks given in formgrader and
penalties from ``AssignLatePenalties`` reach the LMS whichever grading path ran::

    nbgrader export --exporter=autograder.course.handback.lms_export.MoodleExportPlugin --to moodle.csv
    nbgrader export --exporter=autograder.course.handback.lms_export.CanvasExportPlugin --to canvas.csv

Text cells (names, ids, headers) starting with ``= + - @`` are neutralised with ``'`` as in the
kit's ``grades.csv``, so a name cannot become a spreadsheet formula; an id that had to be changed
cannot match in the LMS, and the export says so.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from traitlets import Dict, Enum, TraitError, Unicode

from ...errors import KitError
from ...files import write_atomic
from ...grading import FinalScore
from ...nbgrader_adapter import ExportPlugin, Gradebook, MissingEntry
from ...output.safe_text import csv_cell
from .safe_export import NotGraded, open_row


class ExportError(KitError):
    """The gradebook cannot be exported as asked; the message names what is missing and the fix."""

    exit_code = 1


@dataclass(frozen=True)
class ExportedScore:
    """One student's result on one assignment, read from the gradebook."""

    raw_score: float
    """nbgrader's ``submission.score``: per grade cell the manual score if given, else the automatic one."""
    late_penalty: float
    """The submission's ``late_submission_penalty`` (0 when on time or without a due date)."""
    submitted: bool
    """False when the gradebook has no submission: the final score is then 0, as in nbgrader's export."""
    needs_manual_grade: bool
    """A grade cell still waits for a tutor in formgrader: the score is what is graded so far."""
    not_graded: NotGraded | None = None
    """Set when the gradebook's grades are another submission's than ``submitted/`` holds (a student handed
    in again and was not graded since): the LMS gets no score for it, as ``nbgrader export`` leaves it empty."""

    @property
    def cell(self) -> str:
        """The score as the LMS file writes it; empty where the grades are not the submission's."""
        return "" if self.not_graded is not None else number(self.final)

    @property
    def final(self) -> float:
        """The score the LMS receives: the kit's one final score (:class:`~autograder.grading.FinalScore`)."""
        return FinalScore(total=self.raw_score, penalty=self.late_penalty).value


@dataclass(frozen=True)
class StudentScores:
    """A student as the gradebook knows them, with one :class:`ExportedScore` per exported assignment."""

    student_id: str
    first_name: str
    last_name: str
    email: str
    scores: tuple[ExportedScore, ...]
    """In the order of :attr:`ExportTable.assignments`."""


@dataclass(frozen=True)
class AssignmentColumn:
    """An exported assignment: its nbgrader name and its maximum score."""

    name: str
    max_score: float


@dataclass(frozen=True)
class ExportTable:
    """What an LMS file is written from: the assignments (columns) and the students (rows)."""

    assignments: tuple[AssignmentColumn, ...]
    students: tuple[StudentScores, ...]


def read_final_scores(gradebook: Gradebook, assignments: Sequence[str] = (),
                      students: Sequence[str] = (), submitted: Path | None = None) -> ExportTable:
    """Read every student's final score on each assignment from nbgrader's gradebook.

    Parameters
    ----------
    gradebook : nbgrader.api.Gradebook
        The course's open gradebook.
    assignments, students : sequence of str
        Only these (``nbgrader export --assignment/--student``); empty means all.
    submitted : Path, optional
        The course's ``submitted/``: a score whose gradebook time is not the one there is left out
        (:attr:`ExportedScore.not_graded`), as the course's ``nbgrader export`` does.

    Returns
    -------
    ExportTable
        Assignments by name, students by id.

    Raises
    ------
    ExportError
        When a requested assignment or student is not in the gradebook, or there is no assignment.
    """
    known_assignments = {assignment.name: assignment for assignment in gradebook.assignments}
    known_students = {student.id: student for student in gradebook.students}
    chosen_assignments = _choose("assignment", [str(a) for a in assignments], known_assignments)
    chosen_students = _choose("student", [str(s) for s in students], known_students)
    if not chosen_assignments:
        raise ExportError("the gradebook has no assignment: run `nbgrader generate_assignment` or grade first")
    columns = tuple(AssignmentColumn(name, float(known_assignments[name].max_score)) for name in chosen_assignments)
    rows = []
    for student_id in chosen_students:
        student = known_students[student_id]
        rows.append(StudentScores(
            student_id=student.id,
            first_name=student.first_name or "",
            last_name=student.last_name or "",
            email=student.email or "",
            scores=tuple(_final_score(gradebook, column.name, student.id, submitted) for column in columns),
        ))
    return ExportTable(columns, tuple(rows))


def _choose(kind: str, wanted: list[str], known: dict[str, Any]) -> list[str]:
    missing = [name for name in wanted if name not in known]
    if missing:
        raise ExportError(f"no {kind} {', '.join(map(repr, missing))} in the gradebook "
                          f"(it has: {', '.join(sorted(known)) or 'none'})")
    return wanted or sorted(known)


def _final_score(gradebook: Gradebook, assignment: str, student_id: str, submitted: Path | None) -> ExportedScore:
    try:
        submission = gradebook.find_submission(assignment, student_id)
    except MissingEntry:
        return ExportedScore(raw_score=0.0, late_penalty=0.0, submitted=False, needs_manual_grade=False)
    return ExportedScore(
        raw_score=float(submission.score),
        late_penalty=float(submission.late_submission_penalty or 0.0),
        submitted=True,
        needs_manual_grade=bool(submission.needs_manual_grade),
        not_graded=open_row(submitted, assignment, student_id, submission.timestamp),
    )


def number(value: float) -> str:
    """A score as both LMS importers parse it: a dot as decimal separator, no exponent, no trailing zeros.

    Examples
    --------
    >>> number(7.5), number(10.0), number(2 / 3)
    ('7.5', '10', '0.666667')
    """
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


class _LmsCsvExport(ExportPlugin):  # type: ignore[misc]  # nbgrader ships no type information
    """Writes one CSV file for an LMS from the gradebook's final scores; subclasses give the layout."""

    default_file = "lms.csv"
    lms = "the LMS"

    def __init__(self, **kwargs: object) -> None:
        # a bad setting (`--MoodleExportPlugin.identifier_field=mail`) is one line, not traitlets' traceback
        try:
            super().__init__(**kwargs)
        except TraitError as error:
            self.log.error("%s export: %s", self.lms, error)
            raise SystemExit(1) from None

    def export(self, gradebook: Gradebook) -> None:
        """Write the file named by ``--to`` (or :attr:`default_file`); exit 1 with one line if it cannot."""
        destination = Path(self.to or self.default_file)
        try:
            coursedir = getattr(self.parent, "coursedir", None)  # nbgrader's ExportApp, which made this plugin
            submitted = None if coursedir is None else Path(coursedir.root) / coursedir.submitted_directory
            table = read_final_scores(gradebook, self.assignment, self.student, submitted)
            rows = self.rows(table)
        except ExportError as error:
            self.log.error("%s export: %s", self.lms, error)
            raise SystemExit(error.exit_code) from None
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerows(rows)
        write_atomic(destination, buffer.getvalue())
        self._warn(table)
        self.log.info("Wrote %s: final scores of %d students on %s for %s. %s", destination,
                      len(table.students), ", ".join(a.name for a in table.assignments), self.lms, self.hint(table))

    def rows(self, table: ExportTable) -> list[list[str]]:
        """The file's rows, header first."""
        raise NotImplementedError

    def hint(self, table: ExportTable) -> str:
        """One sentence on what to choose in the LMS's import page."""
        return ""

    def identifier(self, student: StudentScores) -> str:
        """The value the LMS matches the student by."""
        return student.student_id

    def _warn(self, table: ExportTable) -> None:
        for student in table.students:
            ident = self.identifier(student)
            if csv_cell(ident) != ident:
                self.log.warning("%s: the identifier %r was written as %r to keep it from being a spreadsheet "
                                 "formula, so %s will not match it: enter this student's grade by hand",
                                 csv_cell(student.student_id), ident, csv_cell(ident), self.lms)
            for column, score in zip(table.assignments, student.scores, strict=True):
                if score.not_graded is not None:
                    self.log.warning("Not graded: %s", score.not_graded)
                elif score.needs_manual_grade:
                    self.log.warning("%s: %s still needs manual grading in formgrader; exported %s of %g so far",
                                     csv_cell(student.student_id), column.name, number(score.final),
                                     column.max_score)


def _checked_headers(columns: dict[str, str], table: ExportTable, trait: str) -> list[str]:
    unknown = sorted(set(columns) - {a.name for a in table.assignments})
    if unknown:
        raise ExportError(f"{trait} names {', '.join(map(repr, unknown))}, which is not an exported assignment")
    return [csv_cell(columns.get(a.name, a.name)) for a in table.assignments]


class MoodleExportPlugin(_LmsCsvExport):
    """Moodle's "Import grades from CSV file" (Grades > Import > CSV file).

    One row per student: the identifier column (``identifier``), first and last name for the
    reader, then one column per assignment named by ``grade_items``. On Moodle's import page,
    map "Identify user by" from that column to the same user field, and each assignment column to
    its grade item (Moodle ignores the name columns unless mapped).
    """

    default_file = "moodle.csv"
    lms = "Moodle"
    _HEADERS: ClassVar[dict[str, str]] = {"username": "Username", "email": "Email address", "idnumber": "ID number"}

    identifier_field = Enum(
        list(_HEADERS), default_value="username",
        help="Moodle's user field the students are matched by: username or idnumber (both get the nbgrader "
             "student id) or email (the student's email in the gradebook: `nbgrader db student add ID --email=...`).",
    ).tag(config=True)
    grade_items = Dict(
        value_trait=Unicode(), key_trait=Unicode(),
        help="Column header per nbgrader assignment, e.g. {'ndcg': 'nDCG exercise'}; by default the assignment's "
             "name. A header equal to a grade item's name is preselected by Moodle's mapping page.",
    ).tag(config=True)

    def identifier(self, student: StudentScores) -> str:
        return student.email if self.identifier_field == "email" else student.student_id

    def rows(self, table: ExportTable) -> list[list[str]]:
        if self.identifier_field == "email":
            missing = [s.student_id for s in table.students if not s.email]
            if missing:
                raise ExportError(
                    f"no email in the gradebook for {', '.join(map(csv_cell, missing))}: add it "
                    "(`nbgrader db student add ID --email=...` or `nbgrader db student import`) or match by "
                    "--MoodleExportPlugin.identifier_field=username")
        header = [self._HEADERS[self.identifier_field], "First name", "Last name",
                  *_checked_headers(self.grade_items, table, "--MoodleExportPlugin.grade_items")]
        return [header] + [
            [csv_cell(self.identifier(s)), csv_cell(s.first_name), csv_cell(s.last_name),
             *(score.cell for score in s.scores)]
            for s in table.students
        ]

    def hint(self, table: ExportTable) -> str:
        field = {"username": "username", "email": "email address", "idnumber": "ID number"}[self.identifier_field]
        return f"In Moodle: Grades > Import > CSV file, map from '{self._HEADERS[self.identifier_field]}' to {field}."


class CanvasExportPlugin(_LmsCsvExport):
    """Canvas's Gradebook import (Grades > Import), in the layout of Canvas's own Gradebook export.

    Header ``Student, ID, SIS User ID, SIS Login ID, Section`` then one column per assignment
    (``assignment_columns``); the second row is Canvas's ``Points Possible`` row with each
    assignment's maximum. The nbgrader student id goes into ``student_id_column``; the student's
    name ("Last, First", as Canvas writes it) is for the reader.
    """

    default_file = "canvas.csv"
    lms = "Canvas"
    _ID_COLUMNS = ("ID", "SIS User ID", "SIS Login ID")

    student_id_column = Enum(
        list(_ID_COLUMNS), default_value="SIS Login ID",
        help="The Canvas column that holds the nbgrader student id: SIS Login ID (the students' login, the "
             "default), SIS User ID, or ID (Canvas's own user number).",
    ).tag(config=True)
    assignment_columns = Dict(
        value_trait=Unicode(), key_trait=Unicode(),
        help="Column header per nbgrader assignment, e.g. {'ndcg': 'nDCG exercise (12345)'}: Canvas matches an "
             "existing assignment by the number in parentheses (the id in its URL); an unknown header makes a "
             "new assignment on import. By default the assignment's name.",
    ).tag(config=True)
    section = Unicode("", help="Text for Canvas's Section column (Canvas does not import it).").tag(config=True)

    def rows(self, table: ExportTable) -> list[list[str]]:
        headers = _checked_headers(self.assignment_columns, table, "--CanvasExportPlugin.assignment_columns")
        points = ["    Points Possible", "", "", "", "", *(number(a.max_score) for a in table.assignments)]
        rows = [["Student", *self._ID_COLUMNS, "Section", *headers], points]
        for student in table.students:
            ids = [csv_cell(student.student_id) if column == self.student_id_column else ""
                   for column in self._ID_COLUMNS]
            rows.append([csv_cell(_sortable_name(student)), *ids, csv_cell(self.section),
                         *(score.cell for score in student.scores)])
        return rows

    def hint(self, table: ExportTable) -> str:
        return f"In Canvas: Grades > Import; students are matched by '{self.student_id_column}'."


def _sortable_name(student: StudentScores) -> str:
    """Canvas's "Last, First"; whichever part is known, or the id."""
    parts = [part for part in (student.last_name, student.first_name) if part]
    return ", ".join(parts) or student.student_id
