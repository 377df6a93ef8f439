"""Late work on both grading paths: nbgrader's own late-penalty step, with the course's extensions.

nbgrader keeps one due date per assignment (``nbgrader db assignment add ndcg --duedate=...``) and,
per submission, an ``extension`` (a time added to it, in the gradebook's ``submission`` table) that
its ``SubmittedAssignment.total_seconds_late`` already honours, but nothing in nbgrader sets it. The
course lists its extensions in ``nbgrader_config.py`` as each student's own later due date::

    c.CourseLatePenalties.extensions = {"ndcg": {"ada": "2026-12-08 12:00:00 UTC"}}

:class:`CourseLatePenalties` is nbgrader's ``AssignLatePenalties`` (in the course's autograde list in
its place) that first writes the student's extension into the gradebook, then lets nbgrader's step
ask the course's late-submission plugin (``c.AssignLatePenalties.plugin_class``, by default
nbgrader's ``LateSubmissionPlugin`` with ``c.LateSubmissionPlugin.penalty_method``) and store the
penalty in the submission's ``late_submission_penalty``. ``nbgrader autograde`` and the formgrader's
Autograde button run it; :func:`apply_late_penalties` runs the very same step, configured from the
same ``nbgrader_config.py``, for ``python -m autograder grade``. So whichever path graded last, the
gradebook holds the same penalty.
"""

from __future__ import annotations

import logging
import warnings
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from traitlets import Dict, Unicode
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from ..course_config import course_config
from ..errors import CourseError
from ..grading import Lateness
from ..nbgrader_adapter import AssignLatePenalties, LateSubmissionPlugin
from ..output.safe_text import printable
from . import recorded_time
from .database import open_gradebook

#: nbgrader's step logs "... is 29 seconds late" as a warning: the batch shows lateness in its table instead.
_QUIET = logging.getLogger("autograder.late")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False

#: Where the extensions are configured, as a tutor writes it (for messages).
SETTING = "c.CourseLatePenalties.extensions"


def extended_due(extensions: dict[str, dict[str, str]], assignment: str, student_id: str) -> datetime | None:
    """The student's own due date for ``assignment`` (UTC, naive), or None without an extension.

    Raises
    ------
    CourseError
        When the configured value is not a time nbgrader can read (one line naming the entry).
    """
    text = extensions.get(assignment, {}).get(student_id)
    if text is None:
        return None
    from ..nbgrader_adapter import parse_utc

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # dateutil's "unknown zone" warning: a typo, not UTC
            parsed = parse_utc(text)
    except Exception as error:  # dateutil: ValueError, OverflowError, its warnings
        raise CourseError(
            f"nbgrader_config.py: {SETTING}[{assignment!r}][{printable(student_id)!r}] = {printable(str(text))!r} "
            f"is not a date nbgrader can read ({type(error).__name__}); write e.g. '2026-12-08 12:00:00 UTC'"
        ) from None
    if not isinstance(parsed, datetime):
        raise CourseError(f"nbgrader_config.py: {SETTING}[{assignment!r}][{printable(student_id)!r}] is not a date")
    return parsed


def store_extension(gradebook: Any, extensions: dict[str, dict[str, str]], assignment: str, student_id: str) -> None:
    """Set the submission's ``extension`` in ``gradebook`` from the course's list (None when unlisted).

    The course's list is the one source: an extension that is no longer listed is removed. Without
    a due date there is nothing to extend (and nbgrader could not add one to None).

    Raises
    ------
    CourseError
        For a configured date nbgrader cannot read, or one before the assignment's due date.
    """
    submission = gradebook.find_submission(assignment, student_id)
    due = submission.assignment.duedate
    extended = extended_due(extensions, assignment, student_id)
    if due is None or extended is None:
        submission.extension = None
    elif extended < due:
        raise CourseError(
            f"nbgrader_config.py: {SETTING}[{assignment!r}][{printable(student_id)!r}] is before the assignment's "
            f"due date {due:%Y-%m-%d %H:%M:%S} UTC; an extension can only move it later"
        )
    else:
        submission.extension = extended - due
    gradebook.db.commit()


class CourseLatePenalties(AssignLatePenalties):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's ``AssignLatePenalties``, honouring the course's extensions (see the module)."""

    extensions = Dict(
        value_trait=Dict(value_trait=Unicode()),
        help="Per assignment, each student's own later due date: {'ndcg': {'ada': '2026-12-08 12:00:00 UTC'}}.",
    ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        """nbgrader's step (0.9.6's ``AssignLatePenalties.preprocess``) after the extension is stored.

        Its body is nbgrader's, with two changes: the gradebook opens without a course id, where
        nbgrader's adds a ``default_course`` row beside the course's own; and on ``nbgrader
        autograde``'s path the submission's time, kept back until now (:mod:`.recorded_time`), is
        set in the same transaction as the penalty computed from it.
        """
        info = resources["nbgrader"]
        self.notebook_id, self.assignment_id = info["notebook"], info["assignment"]
        self.student_id, self.db_url = info["student"], info["db_url"]
        self.init_plugin()
        with open_gradebook(self.db_url) as gradebook:
            store_extension(gradebook, dict(self.extensions), self.assignment_id, self.student_id)
            submission = gradebook.find_submission(self.assignment_id, self.student_id)
            recorded_time.set_time(submission)  # the grading's last word: committed with the penalty below
            notebook = gradebook.find_submission_notebook(self.notebook_id, self.assignment_id, self.student_id)
            notebook.late_submission_penalty = None  # reset, as nbgrader's step does
            if submission.total_seconds_late > 0:
                self.log.warning("%s is %s seconds late", submission, submission.total_seconds_late)
                penalty = self.plugin_inst.late_submission_penalty(
                    self.student_id, notebook.score, submission.total_seconds_late)
                if penalty is not None:
                    notebook.late_submission_penalty = self._check_late_penalty(notebook, penalty)
            gradebook.db.commit()
        return nb, resources


def late_step(config: Config) -> type[AssignLatePenalties] | None:
    """The late-penalty step of the course's autograde list (nbgrader's default list has one), or None."""
    steps = config.Autograde.autograde_preprocessors if "autograde_preprocessors" in config.Autograde else None
    if steps is None:
        return AssignLatePenalties
    for step in steps:
        cls = import_item(step) if isinstance(step, str) else step
        if isinstance(cls, type) and issubclass(cls, AssignLatePenalties):
            return cls
    return None


def lateness_of(submission: Any, notebook: Any) -> Lateness | None:
    """The lateness of nbgrader's ``SubmittedAssignment`` with its ``SubmittedNotebook``; None without a due date."""
    due = submission.assignment.duedate
    if due is None:
        return None
    extension: timedelta | None = submission.extension
    return Lateness(
        due=due,
        extended_due=None if extension is None else due + extension,
        submitted=submission.timestamp,
        seconds_late=None if submission.timestamp is None else float(submission.total_seconds_late),
        penalty=float(notebook.late_submission_penalty or 0.0),
    )


def _no_due_date(db_url: str, assignment: str, notebook_id: str, students: list[str]) -> bool:
    """Whether ``assignment`` has no due date; then clear the students' penalties as nbgrader's step would.

    nbgrader's step resets each notebook's penalty and sets one only for a submission that is late,
    which needs a due date: without one, one gradebook session does the same for the whole class
    (the step opens the gradebook once per student, about 20 ms each).
    """
    from sqlalchemy import select, update

    from ..nbgrader_adapter import SubmittedAssignment, SubmittedNotebook

    with open_gradebook(db_url) as gradebook:
        found = gradebook.find_assignment(assignment)
        if found.duedate is not None:
            return False
        notebook = gradebook.find_notebook(notebook_id, assignment)
        submitted = SubmittedNotebook.__table__
        # one statement for the class (a per-student query took about 2 ms each on PostgreSQL)
        for start in range(0, len(students), 1000):  # SQLite binds at most 32,766 values per statement
            of_students = select(SubmittedAssignment.id).where(
                SubmittedAssignment.assignment_id == found.id,
                SubmittedAssignment.student_id.in_(students[start : start + 1000]))
            gradebook.db.execute(
                update(submitted)
                .where(submitted.c.notebook_id == notebook.id, submitted.c.assignment_id.in_(of_students),
                       submitted.c.late_submission_penalty.is_not(None))
                .values(late_submission_penalty=None))
        gradebook.db.commit()
    return True


def apply_late_penalties(
    root: Path | None, db_url: str, assignment: str, notebook_id: str, students: list[str]
) -> None:
    """Run the course's late-penalty step for each of ``students`` already recorded in the gradebook.

    As ``nbgrader autograde`` runs it after ``SaveAutoGrades``: the class configured in the
    course's ``c.Autograde.autograde_preprocessors``, with the course's config (the plugin, its
    ``penalty_method``, the extensions). A course whose list has no such step gives no penalty,
    on either path. A student whose gradebook row already holds what the step would write is
    skipped (:func:`_settled`: a re-run grades a class without the step's per-student session).
    What the gradebook then holds is read back by :mod:`.read_back`.

    Raises
    ------
    CourseError
        For a config that does not load, or an extension that cannot be read.
    """
    config = course_config(root)
    step = late_step(config)
    if step is None:  # no late-penalty step in the course's list: none on nbgrader's path either
        return
    # the course's own step class is made only where nbgrader's would make it: per student, below
    configured = step(config=config, log=_QUIET) if step is AssignLatePenalties or issubclass(
        step, CourseLatePenalties) else None
    if isinstance(configured, CourseLatePenalties):  # a typo stops before any penalty is written
        extensions = dict(configured.extensions)
        for assignment_id, granted in extensions.items():
            for student_id in granted:
                extended_due(extensions, assignment_id, student_id)
    if _no_due_date(db_url, assignment, notebook_id, students):
        return  # nobody can be late: what nbgrader's step would do for each student is done, at once
    skip: set[str] = set()
    if configured is not None and step in (AssignLatePenalties, CourseLatePenalties):  # their every write is known
        configured.init_plugin()  # a plugin that does not load stops here, skipped or not
        granted_dates = dict(configured.extensions) if step is CourseLatePenalties else None
        # nbgrader's own plugin's penalty is known too: none, or the score
        plugin = configured.plugin_inst
        method = plugin.penalty_method if type(plugin) is LateSubmissionPlugin else None
        skip = _settled(db_url, assignment, notebook_id, students, granted_dates, method)
    for student_id in (student for student in students if student not in skip):
        resources = ResourcesDict(nbgrader={
            "notebook": notebook_id, "assignment": assignment, "student": student_id, "db_url": db_url,
        })
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SQLAlchemy's "not in session" noise from nbgrader's models
            step(config=config, log=_QUIET).preprocess(nbformat.v4.new_notebook(), resources)


def _settled(db_url: str, assignment: str, notebook_id: str, students: list[str],
             extensions: dict[str, dict[str, str]] | None, method: str | None) -> set[str]:
    """The students for whom nbgrader's step would write nothing new: their penalty and extension already its own.

    The step stores the configured extension (``extensions``; None for nbgrader's own step, which
    keeps the gradebook's), resets the penalty, and for a late student stores the plugin's: with
    nbgrader's ``LateSubmissionPlugin`` (``method``, its ``penalty_method``) none or the score, so a
    student whose gradebook row already holds exactly that is skipped; with a plugin of the course's
    own (``method`` None) only an on-time student without a penalty is. One gradebook session for the
    class, where the step opens the gradebook once per student (20-45 ms each: three quarters of a
    re-run that grades nothing). The assignment has a due date (:func:`_no_due_date`).
    """
    from sqlalchemy import select

    from ..nbgrader_adapter import SubmittedAssignment, SubmittedNotebook

    settled: set[str] = set()
    with open_gradebook(db_url) as gradebook:
        found = gradebook.find_assignment(assignment)
        due: datetime = found.duedate
        notebook = gradebook.find_notebook(notebook_id, assignment)
        for start in range(0, len(students), 1000):  # SQLite binds at most 32,766 values per statement
            rows = gradebook.db.execute(
                select(SubmittedAssignment.student_id, SubmittedAssignment.timestamp, SubmittedAssignment.extension,
                       SubmittedNotebook.late_submission_penalty, SubmittedNotebook.score)
                .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                .where(SubmittedAssignment.assignment_id == found.id, SubmittedNotebook.notebook_id == notebook.id,
                       SubmittedAssignment.student_id.in_(students[start : start + 1000])))
            settled.update(row.student_id for row in rows
                           if _step_writes_nothing(assignment, due, row, extensions, method))
    return settled


def _step_writes_nothing(assignment: str, due: datetime, row: Any, extensions: dict[str, dict[str, str]] | None,
                         method: str | None) -> bool:
    """Whether the step would leave the student's ``row`` (time, extension, penalty, score) as is (:func:`_settled`)."""
    if recorded_time.pending(assignment, row.student_id) is not None:
        return False  # nbgrader's path: the step records the submission's time too
    if extensions is not None:
        extended = extended_due(extensions, assignment, row.student_id)
        if (None if extended is None else extended - due) != row.extension:
            return False  # the step stores the configured one (or refuses one before the due date)
    if row.timestamp is None or row.timestamp <= due + (row.extension or timedelta(0)):
        expected = None  # on time: the plugin is not asked
    elif method is None:
        return False  # only running the course's own plugin tells
    else:  # nbgrader's plugin, as its step clamps it (the score is within 0 and the score)
        expected = None if method == "none" else row.score
    return bool(row.late_submission_penalty == expected)
