"""The course's students, as both grading paths give them to the by-hand part's copying check.

Whether a student's Task 1.2 answers fit another student's list is asked of every list the course
gave out: the gradebook's roster and every submission folder the student-id rule accepts (a
student who is on no roster still has a list). ``python -m autograder grade`` and nbgrader's
``autograde`` (:class:`~.autograde.preprocessor.SandboxedExecute`) both call :func:`course_classmates`, with
the same submission folder and gradebook, so that both record the same points.
"""

from __future__ import annotations

from pathlib import Path

from ..grading import Classmates
from ..grading.batch import student_folders
from ..grading.reading.student_ids import check_ids, name_problem


def course_classmates(submitted: Path, roster: frozenset[str], *, credit_copied: bool) -> Classmates:
    """Every student of ``roster`` and of ``submitted`` (the ids the rule accepts), and the course's setting.

    Parameters
    ----------
    submitted : Path
        The course's submission folder (``submitted/``; missing: no folders).
    roster : frozenset of str
        The gradebook's students (an id the rule refuses is left out: it names no file or row).
    credit_copied : bool
        ``c.SandboxedExecute.credit_copied_follow_through``.
    """
    folders = student_folders(submitted) if submitted.is_dir() else []
    listed = {student for student in roster if name_problem(student) is None}
    return Classmates(frozenset(check_ids(folders, roster).accepted) | listed, credit_copied)
