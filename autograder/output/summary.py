"""What the class report says, as typed records computed once from the batch's results.

Which students each number is over is part of its record, so that a label cannot name one set
and the number be computed over another:

- **scored** submissions are those with status ``graded`` or ``timeout``
  (:attr:`~autograder.grading.StudentResult.counted`): the notebook ran and every test was
  scored (a call that hung costs only its own test);
- ``error``, ``missing``, ``not attempted`` (the release's code, unchanged) and ``not graded``
  (the machine was overloaded) submissions were not scored: they have 0 points, count in the
  statistics over *all students* only, and in no chart.

Hidden test cases are described by what they check (their provenance), never by their inputs
or expected values (``docs/security.md``).
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from urllib.parse import quote

from ..grading import BatchResult, Exercise, Mistake, Status, StudentResult
from .feedback import feedback_path
from .lateness import due_text, duration, lateness_note, utc
from .marks import manual_note

#: Statuses whose submissions were scored (their notebook ran): the set every chart is over. Taken
#: from :attr:`StudentResult.counted`, so that the report and the model cannot disagree on it.
SCORED_STATUSES = tuple(status for status in Status if StudentResult("", status, 0, 0, "").counted)
#: Statuses a tutor should look at, in the order the report lists them.
TROUBLE_STATUSES = (Status.TIMEOUT, Status.ERROR, Status.NOT_ATTEMPTED, Status.MISSING, Status.NOT_GRADED)
#: How a case's provenance marks a case written for the exercise (see :class:`~autograder.grading.Case`).
CONSTRUCTED = "constructed: "


@dataclass(frozen=True)
class ScoreStatistics:
    """Mean, median, minimum and maximum score over one named set of students."""

    #: Which students, in words, e.g. "scored submissions (graded or timeout)".
    label: str
    students: int
    mean: float | None
    median: float | None
    minimum: float | None
    maximum: float | None

    @classmethod
    def over(cls, label: str, scores: list[float]) -> ScoreStatistics:
        """The statistics of ``scores`` (None for each when there are none)."""
        if not scores:
            return cls(label, 0, None, None, None, None)
        return cls(label, len(scores), statistics.mean(scores), statistics.median(scores), min(scores), max(scores))


@dataclass(frozen=True)
class RosterRow:
    """One student as the report lists them."""

    student: StudentResult
    #: The recognised mistakes' catalogue entries, in the order found.
    mistakes: tuple[Mistake, ...]
    #: ``(function, message)`` for behaviour no known mistake explains.
    unexplained: tuple[tuple[str, str], ...]
    #: The student's feedback page, relative to the report and percent-encoded: works opened from disk.
    href: str

    @property
    def note(self) -> str:
        """Lateness, the tutors' marks, the result's message and its warnings; empty when there is nothing to say."""
        message = "" if self.student.message == "graded" else self.student.message
        notes = [lateness_note(self.student.late), manual_note(self.student.manual, self.student.score), message]
        return "; ".join([note for note in notes if note] + self.student.warnings)


@dataclass(frozen=True)
class LateRow:
    """A student the report's late-work table lists: late, of unknown lateness, or with an extension."""

    student: StudentResult
    href: str
    #: The due date that applied, in words (an extension says so).
    due: str
    #: When it came in (empty: unknown), how late (``29 s``; ``on time``; ``unknown``).
    submitted: str
    late_by: str
    penalty: float


@dataclass(frozen=True)
class MistakeCount:
    """A mistake of the catalogue and the students it was found in."""

    mistake: Mistake
    students: tuple[str, ...]


@dataclass(frozen=True)
class TestPasses:
    """How many scored submissions passed one test group."""

    __test__ = False  # not a pytest test class, whatever its name

    grade_id: str
    description: str
    visible: bool
    passed: int
    scored: int


@dataclass(frozen=True)
class CaseDifficulty:
    """How many scored submissions failed one case of a test group."""

    grade_id: str
    #: 1-based position of the case in its group, and the group's number of cases.
    number: int
    of: int
    #: What the case checks (its provenance without "constructed: "); never its input.
    description: str
    visible: bool
    failed: int
    #: Scored submissions with a recorded outcome for this case.
    scored: int

    @property
    def label(self) -> str:
        """E.g. ``test_dcg_cutoff 3/6: cut-off inside the list``."""
        return f"{self.grade_id} {self.number}/{self.of}: {self.description}"


@dataclass(frozen=True)
class ClassSummary:
    """Everything the class report shows, over the sets its fields name."""

    students: int
    #: ``(status, count)`` for every status at least one student has.
    statuses: tuple[tuple[Status, int], ...]
    scored: ScoreStatistics
    everyone: ScoreStatistics
    #: Every scored submission's score (the histogram's data).
    scores: tuple[float, ...]
    roster: tuple[RosterRow, ...]
    #: Mistakes found in at least one student, most frequent first (catalogue order among equals).
    mistakes: tuple[MistakeCount, ...]
    tests: tuple[TestPasses, ...]
    cases: tuple[CaseDifficulty, ...]

    @property
    def unexplained(self) -> tuple[RosterRow, ...]:
        """Students with behaviour no known mistake explains."""
        return tuple(row for row in self.roster if row.unexplained)

    @property
    def late(self) -> tuple[LateRow, ...]:
        """Students who were late, whose lateness is unknown, or who have an extension, in roster order."""
        rows = []
        for row in self.roster:
            late = row.student.late
            if late is None or (late.seconds_late == 0 and late.extended_due is None):
                continue
            if late.seconds_late is None:
                late_by = "unknown"
            else:
                late_by = duration(late.seconds_late) if late.seconds_late else "on time"
            submitted = "" if late.submitted is None else utc(late.submitted)
            rows.append(LateRow(row.student, row.href, due_text(late), submitted, late_by, late.penalty))
        return tuple(rows)

    @property
    def manual(self) -> tuple[RosterRow, ...]:
        """Students whose score a tutor changed in formgrader (a manual score or extra credit)."""
        return tuple(row for row in self.roster if row.student.manual is not None and row.student.manual.overridden)

    @property
    def due(self) -> str:
        """The assignment's due date in words, or empty when the gradebook has none."""
        dates = {s.student.late.due for s in self.roster if s.student.late is not None}
        return ", ".join(utc(d) for d in sorted(dates))

    @property
    def trouble(self) -> tuple[RosterRow, ...]:
        """Students whose submission timed out, had an error or is missing, in that order."""
        return tuple(row for status in TROUBLE_STATUSES for row in self.roster if row.student.status is status)


def feedback_href(batch: BatchResult, student: StudentResult) -> str:
    """The link from ``report.html`` to the student's page: each part percent-encoded from its bytes on disk.

    Examples
    --------
    >>> from autograder.grading import BatchResult, Status, StudentResult
    >>> batch = BatchResult("a", "nb.ipynb", "t", 1.0, "none", [], [])
    >>> feedback_href(batch, StudentResult("ana b#1", Status.MISSING, 0, 1, ""))
    'feedback/ana%20b%231/nb.html'
    """
    return "/".join(quote(os.fsencode(part), safe="") for part in feedback_path(batch, student).parts)


def _roster_row(exercise: Exercise, batch: BatchResult, student: StudentResult) -> RosterRow:
    mistakes = tuple(exercise.mistake(mistake_id) for mistake_id in student.diagnosis.ids)
    unexplained = tuple(sorted(student.diagnosis.unexplained.items()))
    return RosterRow(student, mistakes, unexplained, feedback_href(batch, student))


def _case_difficulties(exercise: Exercise, scored: list[StudentResult]) -> list[CaseDifficulty]:
    difficulties = []
    for group in exercise.groups:
        tests = [t for s in scored for t in s.tests if t.name == group.grade_id]
        # the fixed cases, then one row per template: each submission's instance drawn from it
        provenances = [case.provenance for case in group.cases] + [t.provenance for t in group.templates]
        for index, provenance in enumerate(provenances):
            # a result written without per-case outcomes (or for other cases) is left out, not guessed
            outcomes = [t.case_results[index].passed for t in tests if len(t.case_results) == len(provenances)]
            difficulties.append(CaseDifficulty(
                group.grade_id, index + 1, len(provenances), provenance.removeprefix(CONSTRUCTED),
                group.visible, failed=outcomes.count(False), scored=len(outcomes),
            ))
    return difficulties


def summarize(exercise: Exercise, batch: BatchResult) -> ClassSummary:
    """The class report's content.

    Parameters
    ----------
    exercise : Exercise
        What ``batch`` was graded against: its catalogue names the mistakes, its groups and cases
        are the rows of the tests and cases tables.
    batch : BatchResult

    Returns
    -------
    ClassSummary
        Counts, statistics and tables, each over the set of students its fields name.

    Raises
    ------
    KeyError
        For a result naming a mistake the exercise's catalogue does not have.
    """
    scored = [s for s in batch.students if s.counted]
    roster = tuple(_roster_row(exercise, batch, s) for s in batch.students)
    found = [
        MistakeCount(m, tuple(r.student.student_id for r in roster if m in r.mistakes)) for m in exercise.catalogue
    ]
    tests = [
        TestPasses(
            g.grade_id, g.description, g.visible, scored=len(scored),
            passed=sum(t.passed for s in scored for t in s.tests if t.name == g.grade_id),
        )
        for g in exercise.groups
    ]
    return ClassSummary(
        students=len(batch.students),
        statuses=tuple((status, n) for status in Status if (n := batch.count(status))),
        scored=ScoreStatistics.over(
            f"scored submissions ({' or '.join(SCORED_STATUSES)})", [s.score for s in scored]
        ),
        everyone=ScoreStatistics.over(
            f"all students ({' and '.join(s for s in Status if s not in SCORED_STATUSES)}: 0 points)",
            [s.score for s in batch.students],
        ),
        scores=tuple(s.score for s in scored),
        roster=roster,
        mistakes=tuple(sorted((c for c in found if c.students), key=lambda c: -len(c.students))),
        tests=tuple(tests),
        cases=tuple(_case_difficulties(exercise, scored)),
    )
