"""The result model: one student's result and the batch's, built once, serialised in one place.

Feedback, report, ``results.json``, ``grades.csv``, the gradebook and the resume cache all read
these records; none of them builds or guesses at dictionaries. :meth:`StudentResult.to_json` and
:meth:`StudentResult.from_json` are the only translation to and from JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any

from ..sandbox import CellOutcome
from .compiled import CompiledCode
from .final import FinalScore

#: Version of the layout of ``results.json`` (and of the resume cache's records); each version's change
#: is listed in docs/tutor-guide.md ("results.json"): 3 ``case_results``, 4 ``instances`` and ``warnings``,
#: 5 ``late`` and ``final_score``, 6 ``manual``, 7 a student per line, 8 ``compiled``, 9 ``copied_from`` and
#: ``needs_a_look``, 10 ``shown_list_of`` (the other ``STUDENT_ID`` a notebook showed Task 1.2's list of).
SCHEMA_VERSION = 10
#: A student's ``message`` in ``results.json`` when there is nothing to say (:attr:`StudentResult.message` None).
NO_MESSAGE = "graded"


def plain(record: Any) -> dict[str, Any]:
    """``dataclasses.asdict(record)`` for the result's records (values, tuples, lists, nested records).

    Without asdict's deep copy of every value (the values here are immutable): a fifth of the time,
    and every student's record is turned into JSON at least twice (the resume cache, results.json).
    """
    return {item.name: _plain_value(getattr(record, item.name)) for item in fields(record)}


def _plain_value(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return plain(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain_value(item) for item in value)
    return value


class Status(StrEnum):
    """How grading a submission ended."""

    GRADED = "graded"
    #: Graded, but some of the student's code did not finish in time.
    TIMEOUT = "timeout"
    #: The notebook could not be graded (unreadable, not a notebook, broke the protocol).
    ERROR = "error"
    #: No notebook was found.
    MISSING = "missing"
    #: The notebook's code is the release's, unchanged: the student did not attempt the exercise.
    NOT_ATTEMPTED = "not attempted"
    #: Not graded, through no doing of the student's: the machine was overloaded. Nothing is saved or
    #: recorded for them; the next run grades them.
    NOT_GRADED = "not graded"
    #: Not graded: the folder's name is no valid student id (:mod:`.reading.student_ids`). Listed under its
    #: name escaped, never recorded in the gradebook; renaming the folder gets it graded.
    REFUSED = "refused"


@dataclass(frozen=True)
class CaseResult:
    """One case of a test group: what it checks (never its input or expected value) and whether it passed."""

    #: The case's provenance as shown (:attr:`Case.provenance
    #: <autograder.grading.definition.exercise.Case.provenance>`):
    #: its ``what``, marked as written for the exercise where its ``constructed`` flag is set.
    provenance: str
    passed: bool


@dataclass(frozen=True, kw_only=True)
class TestResult:
    """One test group's result."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    description: str
    points: float
    max_points: float
    passed: bool
    #: Student-facing; for a hidden group it never shows an input or expected value.
    message: str
    visible: bool
    cases_passed: int
    cases: int
    #: Every case of the group in order (empty for results built without them, e.g. in tests).
    case_results: tuple[CaseResult, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One recognised mistake, with a counterexample on a probe input."""

    id: str
    function: str
    title: str
    counterexample: str


@dataclass
class Diagnosis:
    """The mistakes recognised in one submission, and wrong behaviour no known mistake explains."""

    findings: list[Finding] = field(default_factory=list)
    #: ``{function: message}`` for wrong behaviour that matches no known mistake.
    unexplained: dict[str, str] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        """The recognised mistakes' IDs, each once, in the order found."""
        return list(dict.fromkeys(finding.id for finding in self.findings))

    def add(self, finding: Finding) -> None:
        """Record ``finding`` unless its mistake is already recorded."""
        if finding.id not in self.ids:
            self.findings.append(finding)


@dataclass(frozen=True)
class CellProblem:
    """One of the student's code cells that did not run cleanly."""

    index: int
    outcome: CellOutcome
    error: str | None = None
    message: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Lateness:
    """A submission's time against its due date, and the penalty the course's late-submission plugin gave.

    Times are UTC without a zone, as nbgrader's gradebook stores them.
    """

    #: The assignment's due date (``nbgrader db assignment add ... --duedate``).
    due: datetime
    #: The student's own later due date (an extension), None without one.
    extended_due: datetime | None
    #: When the submission came in (``timestamp.txt``); None: unknown, so lateness is unknown.
    submitted: datetime | None
    #: Seconds after the due date that applied; 0 on time; None when the time is unknown.
    seconds_late: float | None
    #: Points taken off by the plugin (0: none), as in the gradebook's ``late_submission_penalty``.
    penalty: float

    def to_json(self) -> dict[str, Any]:
        """The JSON form: times as ISO 8601 text."""
        return {
            "due": self.due.isoformat(),
            "extended_due": None if self.extended_due is None else self.extended_due.isoformat(),
            "submitted": None if self.submitted is None else self.submitted.isoformat(),
            "seconds_late": self.seconds_late,
            "penalty": self.penalty,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lateness:
        """Read back what :meth:`to_json` wrote."""
        def time(text: str | None) -> datetime | None:
            return None if text is None else datetime.fromisoformat(text)

        due = datetime.fromisoformat(data["due"])
        seconds = data["seconds_late"]
        return cls(due, time(data["extended_due"]), time(data["submitted"]),
                   None if seconds is None else float(seconds), float(data["penalty"]))


@dataclass(frozen=True)
class CellMark:
    """A tutor's mark on one cell of a submission, as the gradebook holds it (formgrader's manual grading)."""

    #: The cell's nbgrader id: a test group's (``test_dcg_cutoff``) or an answer cell's (``dcg``).
    cell: str
    #: The grader's score and the tutor's, which wins; None where there is none (an answer cell has no score).
    auto_score: float | None
    manual_score: float | None
    extra_credit: float
    comment: str | None

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return plain(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CellMark:
        """Read back what :meth:`to_json` wrote."""
        def number(value: Any) -> float | None:
            return None if value is None else float(value)

        comment = data["comment"]
        return cls(str(data["cell"]), number(data["auto_score"]), number(data["manual_score"]),
                   float(data["extra_credit"]), None if comment is None else str(comment))


@dataclass(frozen=True)
class ManualMarks:
    """What the gradebook holds for a submission beyond the grader's own scores.

    Read after grading, like :class:`Lateness`, so that every output shows the marks a tutor gave
    in formgrader (the gradebook is the single source of truth for final scores).
    """

    #: The cells with a manual score, extra credit or a comment, in the notebook's order.
    marks: tuple[CellMark, ...]
    #: The gradebook's total before any late penalty: per test the manual score where a tutor
    #: gave one, else the automatic one, plus extra credit (nbgrader's ``submission.score``).
    score: float

    @property
    def overridden(self) -> bool:
        """Whether a tutor changed a score (a manual score or extra credit), not only commented."""
        return any(mark.manual_score is not None or mark.extra_credit for mark in self.marks)

    @property
    def comments(self) -> tuple[CellMark, ...]:
        """The marks with a comment."""
        return tuple(mark for mark in self.marks if mark.comment)

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"marks": [mark.to_json() for mark in self.marks], "score": self.score}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ManualMarks:
        """Read back what :meth:`to_json` wrote."""
        return cls(tuple(CellMark.from_json(mark) for mark in data["marks"]), float(data["score"]))


@dataclass(kw_only=True)
class StudentResult:
    """Everything the grader found out about one submission."""

    student_id: str
    status: Status
    score: float
    max_score: float
    #: What the student and the tutor are told in one line; None when there is nothing to say.
    message: str | None = None
    tests: list[TestResult] = field(default_factory=list)
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    cells: list[CellProblem] = field(default_factory=list)
    #: The notebook graded and its SHA-256 (None when none could be read).
    notebook: str | None = None
    sha256: str | None = None
    #: Which fresh hidden instances were drawn (a digest of the seed): equal for a re-grade of the same notebook.
    instances: str | None = None
    #: For the tutor, about the submission folder and the gradebook, never the score: "timestamp
    #: unknown: ...", "not copied: leak.html (a link)", "not recorded in the gradebook: ...".
    warnings: list[str] = field(default_factory=list)
    #: Lateness against the gradebook's due date; None without a due date or a gradebook entry. Set
    #: after grading (from the gradebook), never by the engine, so a re-run sees a changed due date.
    late: Lateness | None = None
    #: The tutors' marks and the gradebook's total; None without a gradebook entry. Set after
    #: grading (from the gradebook), never by the engine, so a re-run shows the current marks.
    manual: ManualMarks | None = None
    #: What the student's code compiled while its cells ran (for the copying report); None when no
    #: code ran (missing, unreadable, not attempted).
    compiled: CompiledCode | None = None
    #: Another student whose variant the answered part's answers fit, and not the student's own (the
    #: copying signal: their follow-through is withheld unless the course credits it); None: no such fit.
    copied_from: str | None = None
    #: Why a tutor should look at this submission though its status is fine, one line each (e.g. its
    #: by-hand part showed another student's list): the report's "Who needs a look", ``results.json``.
    needs_a_look: list[str] = field(default_factory=list)
    #: The ``STUDENT_ID`` the notebook showed Task 1.2's list of, where it is another than the submitter's
    #: (the student's text: shown escaped, never linked); None: the submitter's, empty or not plain text.
    shown_list_of: str | None = None

    @classmethod
    def without_grading(cls, student_id: str, status: Status, message: str, max_score: float) -> StudentResult:
        """A result for a submission that could not be graded at all (missing, unreadable, a grader bug)."""
        return cls(student_id=student_id, status=status, score=0.0, max_score=max_score, message=message)

    @property
    def counted(self) -> bool:
        """Whether the score counts in class statistics (the submission was run)."""
        return self.status in (Status.GRADED, Status.TIMEOUT)

    @property
    def final(self) -> FinalScore:
        """The one score every output shows (:mod:`.final`): the gradebook's total less the late penalty.

        Without a gradebook entry the total is the grader's score.
        """
        return FinalScore(total=self.manual.score if self.manual is not None else self.score,
                          penalty=self.late.penalty if self.late is not None else 0.0, grader=self.score)

    @property
    def final_score(self) -> float:
        """:attr:`final`'s value, as ``nbgrader export`` computes it."""
        return self.final.value

    def to_json(self) -> dict[str, Any]:
        """The JSON form, as in ``results.json``."""
        return {
            "student_id": self.student_id,
            "status": self.status.value,
            "score": self.score,
            "max_score": self.max_score,
            "message": NO_MESSAGE if self.message is None else self.message,
            "tests": [plain(test) for test in self.tests],
            "diagnoses": self.diagnosis.ids,
            "diagnosis_details": [plain(finding) for finding in self.diagnosis.findings],
            "unexplained": dict(self.diagnosis.unexplained),
            "cells": [{**plain(cell), "outcome": cell.outcome.value} for cell in self.cells],
            "notebook": self.notebook,
            "sha256": self.sha256,
            "instances": self.instances,
            "warnings": list(self.warnings),
            "late": None if self.late is None else self.late.to_json(),
            "manual": None if self.manual is None else self.manual.to_json(),
            "final_score": self.final_score,
            "compiled": None if self.compiled is None else self.compiled.to_json(),
            "copied_from": self.copied_from,
            "needs_a_look": list(self.needs_a_look),
            "shown_list_of": self.shown_list_of,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StudentResult:
        """Read back what :meth:`to_json` wrote; ``KeyError``/``TypeError``/``ValueError`` if it is not that."""
        return cls(
            student_id=str(data["student_id"]),
            status=Status(data["status"]),
            score=float(data["score"]),
            max_score=float(data["max_score"]),
            message=None if data["message"] == NO_MESSAGE else str(data["message"]),
            tests=[
                # every key is required: a results.json of an older schema fails here (KeyError), never half-read
                TestResult(**{**test, "case_results": tuple(CaseResult(**case) for case in test["case_results"])})
                for test in data["tests"]
            ],
            diagnosis=Diagnosis(
                findings=[Finding(**finding) for finding in data["diagnosis_details"]],
                unexplained={str(k): str(v) for k, v in data["unexplained"].items()},
            ),
            cells=[CellProblem(**{**cell, "outcome": CellOutcome(cell["outcome"])}) for cell in data["cells"]],
            notebook=data["notebook"],
            sha256=data["sha256"],
            instances=data["instances"],
            warnings=[str(warning) for warning in data["warnings"]],
            late=None if data["late"] is None else Lateness.from_json(data["late"]),
            manual=None if data["manual"] is None else ManualMarks.from_json(data["manual"]),
            compiled=None if data["compiled"] is None else CompiledCode.from_json(data["compiled"]),
            copied_from=None if data["copied_from"] is None else str(data["copied_from"]),
            needs_a_look=[str(reason) for reason in data["needs_a_look"]],
            shown_list_of=None if data["shown_list_of"] is None else str(data["shown_list_of"]),
        )


@dataclass(frozen=True)
class GroupInfo:
    """A test group as listed in ``results.json``."""

    name: str
    description: str
    max_points: float
    visible: bool


@dataclass
class BatchResult:
    """One grading run over a class: every student's result, in student order."""

    assignment: str
    notebook: str
    title: str
    max_score: float
    sandbox: str
    groups: list[GroupInfo]
    #: A list, or the :class:`~.store.ResultStore` the batch graded into (read a student at a time).
    students: Sequence[StudentResult]

    def count(self, status: Status) -> int:
        """How many students have ``status``."""
        statuses = getattr(self.students, "statuses", None)  # a store knows them without reading the records
        if statuses is not None:
            return sum(found is status for found in statuses())
        return sum(student.status is status for student in self.students)

    @property
    def status_summary(self) -> str:
        """E.g. ``5 graded, 1 timeout``: how many students have each status (zeros left out)."""
        return ", ".join(f"{n} {status}" for status in Status if (n := self.count(status)))
