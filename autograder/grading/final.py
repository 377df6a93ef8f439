"""A student's one final score on an assignment: the number every output of the kit shows.

nbgrader's rule (its ``CsvExportPlugin``): the gradebook's total (per grade cell the tutor's manual
score where one was given, else the grader's, plus extra credit) less the late penalty, never below 0;
a student the gradebook knows who submitted nothing scores 0. The terminal table, ``results.json``,
``grades.csv``, the class report's roster, statistics and histogram, the student's page, ``nbgrader
export`` and the LMS files all take it from :class:`FinalScore`, so no two of them can disagree. The
grader's own score (before the tutors' marks and the penalty) is kept beside it and shown only
under a label that says so ("the grader gave 6", ``grader_score``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FinalScore:
    """One student's final score on one assignment, with what it is made of.

    Examples
    --------
    >>> FinalScore(total=7.5, penalty=2.0, grader=6.0).value
    5.5
    >>> FinalScore(total=3.0, penalty=15.0).value  # nbgrader's "zero" penalty takes everything, never more
    0.0
    """

    #: The gradebook's total before the late penalty (the tutors' marks and extra credit included);
    #: the grader's score where the gradebook holds no entry; 0 for a student who submitted nothing.
    total: float
    #: Points the late penalty takes off (0: on time, no due date, or no penalty).
    penalty: float = 0.0
    #: The grader's own score, raw (None where it is not known, as in an export read from the gradebook alone).
    grader: float | None = None

    @property
    def value(self) -> float:
        """The final score: :attr:`total` less :attr:`penalty`, at least 0."""
        return max(0.0, self.total - self.penalty)

