"""What the class report says, as typed records counted in one pass over the batch's results.

The students are read once, one at a time (:class:`ClassTally`): the summary holds counts and the
first :data:`LOOK_FIRST` students of each list, so its size does not grow with the class.

Which students each number is over is part of its record, so that a label cannot name one set
and the number be computed over another:

- **scored** submissions are those with status ``graded`` or ``timeout``
  (:attr:`~autograder.grading.StudentResult.counted`): the notebook ran and every test was
  scored (a call that hung costs only its own test);
- ``error``, ``missing``, ``not attempted`` (the release's code, unchanged) and ``not graded``
  (the machine was overloaded) submissions were not scored: the grader gave them 0 points; they
  count in the statistics over *all students* only, and in no chart.

Every score counted is the student's final score (:attr:`~autograder.grading.StudentResult.final`:
the tutors' marks in, the late penalty off), the one the roster, the table, ``results.json`` and
the student's page show; a test a tutor gave its points by hand counts as the tutor marked it.

Hidden test cases are described by what they check (their provenance), never by their inputs
or expected values (``docs/security.md``).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, TypeVar
from urllib.parse import quote

from ..grading import BatchResult, Exercise, Mistake, Status, StudentResult
from ..grading.batch import never_submitted
from .copying_notes import copied_note
from .feedback import feedback_path
from .late_words import due_text, duration, lateness_note, utc
from .look import LookRow, look_rows
from .mark_words import how_checked, manual_note, test_rows

#: Statuses whose submissions were scored (their notebook ran): the set every chart is over. Taken
#: from :attr:`StudentResult.counted`, so that the report and the model cannot disagree on it.
SCORED_STATUSES = tuple(
    status for status in Status if StudentResult(student_id="", status=status, score=0, max_score=0).counted
)
#: Statuses a tutor should look at, in the order the report lists them.
TROUBLE_STATUSES = (
    Status.REFUSED, Status.TIMEOUT, Status.ERROR, Status.NOT_ATTEMPTED, Status.MISSING, Status.NOT_GRADED,
)
#: Each list of students who need a look (timeouts and errors, unexplained behaviour, late work,
#: manual marks) shows at most this many; the rest are counted, and listed in the roster.
LOOK_FIRST = 200
#: A mistake's row names at most this many of its students.
NAMES_PER_MISTAKE = 20

T = TypeVar("T")


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
    def over(cls, label: str, counts: Mapping[float, int]) -> ScoreStatistics:
        """The statistics of the scores ``counts`` holds (``{score: students}``; None for each when empty)."""
        n = sum(counts.values())
        if not n:
            return cls(label, 0, None, None, None, None)
        ordered = sorted(score for score, k in counts.items() if k)
        return cls(label, n, math.fsum(score * counts[score] for score in ordered) / n, _median(ordered, counts, n),
                   ordered[0], ordered[-1])


def _median(ordered: list[float], counts: Mapping[float, int], n: int) -> float:
    """The median of ``n`` scores given as counts: the middle one, or the mean of the two middle ones."""
    wanted, seen, middle = ((n - 1) // 2, n // 2), 0, []
    for score in ordered:
        before, seen = seen, seen + counts[score]
        middle += [score for position in wanted if before <= position < seen]
    return (middle[0] + middle[1]) / 2


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
        """Lateness, the tutors' marks, the message, why the grader flags it, its warnings; empty if none."""
        message = self.student.message or ""
        notes = [copied_note(self.student), lateness_note(self.student.late),
                 manual_note(self.student.manual, self.student.score), message]
        return "; ".join([note for note in notes if note] + self.student.needs_a_look + self.student.warnings)


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
    """A mistake of the catalogue, how many students it was found in, and the first of them by name."""

    mistake: Mistake
    count: int
    #: At most :data:`NAMES_PER_MISTAKE` of them, in roster order.
    students: tuple[str, ...]


@dataclass(frozen=True)
class TestPasses:
    """How many scored submissions passed one test group."""

    __test__ = False  # not a pytest test class, whatever its name

    grade_id: str
    description: str
    #: What a student could check before handing in (:func:`~.mark_words.how_checked`).
    checked: str
    passed: int
    scored: int


@dataclass(frozen=True)
class CaseDifficulty:
    """How many scored submissions failed one case of a test group."""

    grade_id: str
    #: 1-based position of the case in its group, and the group's number of cases.
    number: int
    of: int
    #: What the case checks (:attr:`~autograder.grading.Case.what`); never its input.
    description: str
    visible: bool
    failed: int
    #: Scored submissions with a recorded outcome for this case.
    scored: int

    @property
    def label(self) -> str:
        """E.g. ``test_dcg_cutoff 3/6: cut-off inside the list``."""
        return f"{self.grade_id} {self.number}/{self.of}: {self.description}"


def feedback_href(batch: BatchResult, student: StudentResult) -> str:
    """The link from ``report.html`` to the student's page: each part percent-encoded from its bytes on disk.

    Examples
    --------
    >>> from autograder.grading import BatchResult, Status, StudentResult
    >>> batch = BatchResult("a", "nb.ipynb", "t", 1.0, "none", [], [])
    >>> feedback_href(batch, StudentResult(student_id="ana b#1", status=Status.MISSING, score=0, max_score=1))
    'feedback/ana%20b%231/nb.html'
    """
    return "/".join(quote(os.fsencode(part), safe="") for part in feedback_path(batch, student).parts)




def roster_row(exercise: Exercise, batch: BatchResult, student: StudentResult) -> RosterRow:
    """``student`` as the roster lists them (its mistakes from ``exercise``'s catalogue: ``KeyError`` if unknown)."""
    mistakes = tuple(exercise.mistake(mistake_id) for mistake_id in student.diagnosis.ids)
    unexplained = tuple(sorted(student.diagnosis.unexplained.items()))
    return RosterRow(student, mistakes, unexplained, feedback_href(batch, student))


@dataclass(frozen=True)
class Listed(Generic[T]):
    """The first rows of a list the report shows, and how many there are in all."""

    rows: tuple[T, ...]
    total: int

    @property
    def more(self) -> int:
        """How many are not shown."""
        return self.total - len(self.rows)

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total


@dataclass
class _Capped(Generic[T]):
    """Keeps the first :data:`LOOK_FIRST` rows added and counts the rest."""

    rows: list[T] = field(default_factory=list)
    total: int = 0

    def add(self, row: T) -> None:
        self.total += 1
        if len(self.rows) < LOOK_FIRST:
            self.rows.append(row)

    def listed(self) -> Listed[T]:
        return Listed(tuple(self.rows), self.total)


@dataclass(frozen=True)
class ClassSummary:
    """Everything the class report shows but the roster, over the sets its fields name.

    Lists of students are :class:`Listed`: the first :data:`LOOK_FIRST` and their number, so that
    the summary of 50,000 students is as small as that of 500.
    """

    students: int
    #: ``(status, count)`` for every status at least one student has.
    statuses: tuple[tuple[Status, int], ...]
    scored: ScoreStatistics
    everyone: ScoreStatistics
    #: ``(score, students)`` over the scored submissions, by score (the histogram's data).
    scores: tuple[tuple[float, int], ...]
    #: Mistakes found in at least one student, most frequent first (catalogue order among equals).
    mistakes: tuple[MistakeCount, ...]
    tests: tuple[TestPasses, ...]
    cases: tuple[CaseDifficulty, ...]
    #: Students with behaviour no known mistake explains.
    unexplained: Listed[RosterRow]
    #: Students whose submission timed out, had an error, was not attempted, is missing or was not graded
    #: (in that order).
    trouble: Listed[RosterRow]
    #: Students who were late, whose lateness is unknown, or who have an extension.
    late: Listed[LateRow]
    #: Students whose score a tutor changed in formgrader (a manual score or extra credit).
    manual: Listed[RosterRow]
    #: The assignment's due date in words, or empty when the gradebook has none.
    due: str
    #: Students of the course's roster who submitted nothing (among the ``missing``, counted apart).
    not_submitted: int = 0
    #: Every reason the grader flags a student whatever their status, a row each (:mod:`.look`: answers that fit
    #: another student's list, :attr:`StudentResult.needs_a_look`); ``total`` counts the reasons.
    look: Listed[LookRow] = Listed((), 0)


def _late_row(row: RosterRow) -> LateRow | None:
    late = row.student.late
    if late is None or (late.seconds_late == 0 and late.extended_due is None):
        return None
    if late.seconds_late is None:
        late_by = "unknown"
    else:
        late_by = duration(late.seconds_late) if late.seconds_late else "on time"
    submitted = "" if late.submitted is None else utc(late.submitted)
    return LateRow(row.student, row.href, due_text(late), submitted, late_by, late.penalty)


class ClassTally:
    """The class summary, counted one student at a time: memory does not grow with the class.

    Parameters
    ----------
    exercise : Exercise
        What the students were graded against: its catalogue names the mistakes, its groups and
        cases are the rows of the tests and cases tables.
    """

    def __init__(self, exercise: Exercise) -> None:
        self.exercise = exercise
        self.statuses: Counter[Status] = Counter()
        self.scored: Counter[float] = Counter()
        self.everyone: Counter[float] = Counter()
        self.mistakes: Counter[str] = Counter()
        self.named: dict[str, list[str]] = {}
        self.passes: Counter[str] = Counter()
        #: What each case of a group checks, its drawn instances' templates last (as in its case results).
        self.provenances = {
            g.grade_id: [c.what for c in g.cases] + [t.provenance for t in g.templates] for g in exercise.groups
        }
        self.failed = {grade_id: [0] * len(p) for grade_id, p in self.provenances.items()}
        self.outcomes = {grade_id: [0] * len(p) for grade_id, p in self.provenances.items()}
        self.unexplained: _Capped[RosterRow] = _Capped()
        self.trouble = {status: _Capped[RosterRow]() for status in TROUBLE_STATUSES}
        self.late: _Capped[LateRow] = _Capped()
        self.manual: _Capped[RosterRow] = _Capped()
        self.look: _Capped[LookRow] = _Capped()
        self.due: set[datetime] = set()
        self.not_submitted = 0

    def add(self, row: RosterRow) -> None:
        """Count one student (each once, in roster order)."""
        student = row.student
        self.statuses[student.status] += 1
        self.not_submitted += never_submitted(student)
        self.everyone[student.final_score] += 1
        if student.counted:
            self._add_scored(student)
        for mistake in row.mistakes:
            self.mistakes[mistake.id] += 1
            names = self.named.setdefault(mistake.id, [])
            if len(names) < NAMES_PER_MISTAKE:
                names.append(student.student_id)
        if row.unexplained:
            self.unexplained.add(row)
        if student.status in self.trouble:
            self.trouble[student.status].add(row)
        if student.late is not None:
            self.due.add(student.late.due)
        if (late := _late_row(row)) is not None:
            self.late.add(late)
        if student.manual is not None and student.manual.overridden:
            self.manual.add(row)
        for look in look_rows(student, row.href, self.exercise.notebook):
            self.look.add(look)

    def _add_scored(self, student: StudentResult) -> None:
        self.scored[student.final_score] += 1
        for row in test_rows(student):  # a test a tutor gave its full points by hand counts as passed
            test = row.test
            self.passes[test.name] += row.passed
            provenances = self.provenances.get(test.name)
            # a result written without per-case outcomes (or for other cases) is left out, not guessed
            if provenances is None or len(test.case_results) != len(provenances):
                continue
            for index, case in enumerate(test.case_results):
                self.outcomes[test.name][index] += 1
                self.failed[test.name][index] += not case.passed

    def summary(self) -> ClassSummary:
        """What was counted so far."""
        exercise, scored = self.exercise, sum(self.scored.values())
        found = [MistakeCount(m, self.mistakes[m.id], tuple(self.named.get(m.id, ()))) for m in exercise.catalogue]
        trouble = [row for status in TROUBLE_STATUSES for row in self.trouble[status].rows][:LOOK_FIRST]
        cases = [
            CaseDifficulty(g.grade_id, i + 1, len(self.provenances[g.grade_id]), p, g.visible,
                           failed=self.failed[g.grade_id][i], scored=self.outcomes[g.grade_id][i])
            for g in exercise.groups for i, p in enumerate(self.provenances[g.grade_id])
        ]
        return ClassSummary(
            students=self.statuses.total(),
            statuses=tuple((status, n) for status in Status if (n := self.statuses[status])),
            scored=ScoreStatistics.over(f"scored submissions ({' or '.join(SCORED_STATUSES)})", self.scored),
            everyone=ScoreStatistics.over(
                f"all students ({', '.join(s for s in Status if s not in SCORED_STATUSES)}: 0 from the grader)",
                self.everyone,
            ),
            scores=tuple(sorted(self.scored.items())),
            mistakes=tuple(sorted((c for c in found if c.count), key=lambda c: -c.count)),
            tests=tuple(TestPasses(g.grade_id, g.description, how_checked(exercise, g.grade_id, g.visible),
                                   passed=self.passes[g.grade_id], scored=scored)
                        for g in exercise.graded_groups),
            cases=tuple(cases),
            unexplained=self.unexplained.listed(),
            trouble=Listed(tuple(trouble), sum(t.total for t in self.trouble.values())),
            late=self.late.listed(),
            manual=self.manual.listed(),
            due=", ".join(utc(d) for d in sorted(self.due)),
            not_submitted=self.not_submitted,
            look=self.look.listed(),
        )
