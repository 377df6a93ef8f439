"""nbgrader's ``autograde`` writes no score when it cannot sandbox, and says so (exit 1, the formgrader's error).

nbgrader creates the student's submission in the gradebook (``Autograde.init_assignment``) before
any preprocessor runs. When :class:`~autograder.course.autograde.preprocessor.SandboxedExecute` then cannot
grade (bubblewrap missing or broken: ``SandboxUnavailable``; the machine too loaded to judge the
time limits: ``MachineOverloaded``), nbgrader logs a traceback, deletes ``autograded/<student>``
and leaves that submission in the gradebook, scored 0 by every export. This mixin, part of the
course's ``Autograde`` (:mod:`.converters`):

- checks the sandbox once before nbgrader touches the gradebook, and refuses the whole run in
  one line naming the reason when it is unavailable;
- for a student whose grading the machine refuses mid-run, puts the gradebook back as it was
  before that student (a submission or student created for it removed, an existing submission's
  timestamp restored), logs one line, and lets nbgrader go on with the other students;
- keeps the submission time out of the gradebook until the grading it belongs to is saved
  (:mod:`...gradebook.recorded_time`), and grades again a submission whose grading did not reach the gradebook;
- refuses the run while another grader works on the course (:mod:`..setup.lock`);
- ends the run with nbgrader's failure (``nbgrader autograde`` exits 1, the API's ``success`` is
  False) whose message names every refused student and the reason, which is what the
  formgrader's Autograde button shows.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import chdir
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from traitlets import TraitError

from ...errors import UsageError
from ...exercises import EXERCISES
from ...gradebook import recorded_time
from ...gradebook.late_penalties import CourseLatePenalties
from ...nbgrader_adapter import (
    Gradebook,
    MissingEntry,
    NbGraderException,
    NbGraderPreprocessor,
    destination_folder,
    reading_timestamps_with,
    source_folder,
)
from ...output.safe_text import printable
from ...sandbox import Limits, MachineOverloaded, SandboxUnavailable
from ..handback.feedback_page import result_name
from ..setup.lock import CourseBusy, grading_lock
from .preprocessor import SandboxedExecute, sandbox_for

#: The start of every refusal, so that the tutor (and a test) can find it in nbgrader's log.
REFUSED = "not autograded, no score written"


@dataclass(frozen=True)
class _Before:
    """What the gradebook held for one student and assignment before nbgrader's ``init_assignment``."""

    assignment_id: str
    student_id: str
    student_existed: bool
    submission_existed: bool
    timestamp: datetime | None


class SandboxGuard:
    """The refusal steps of the course's ``Autograde`` (see the module); a mixin before nbgrader's class."""

    coursedir: Any
    log: Any
    config: Any
    autograde_preprocessors: list[Any]
    notebooks: list[str]

    def start(self) -> None:
        self._refused: list[str] = []
        self._before: _Before | None = None
        mode = self._sandbox_mode()
        if mode is not None:
            try:
                limits = self._sandbox_limits()
                with chdir(self.coursedir.root):  # where nbgrader grades (its converters chdir there)
                    sandbox_for(mode, limits)
            except (UsageError, TraitError) as error:  # a limit out of range; not a number (traitlets' words)
                self._refuse(f"{REFUSED}: {error} (in nbgrader_config.py)")
            except SandboxUnavailable as error:
                self._refuse(f"{REFUSED}: the sandbox is unavailable: {error} (c.SandboxedExecute.sandbox in "
                             "nbgrader_config.py)")
        try:
            # one grader per course: not beside `python -m autograder grade` or another autograde (.lock)
            with grading_lock(Path(self.coursedir.root), who="nbgrader autograde"):
                super().start()  # type: ignore[misc]  # nbgrader's converter, after this mixin in the MRO
        except CourseBusy as busy:
            self._refuse(f"{REFUSED}: {busy}")
        except NbGraderException:
            if self._refused:  # nbgrader's own last line says only "see the above traceback"
                self._refuse(f"{REFUSED} for {len(self._refused)} student(s): " + "; ".join(self._refused))
            raise

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        before = self._before = self._gradebook(lambda gb: _snapshot(gb, assignment_id, student_id))
        if not self._records_time_last():
            super().init_assignment(assignment_id, student_id)  # type: ignore[misc]
            return
        # nbgrader would write the new time now, over the previous grading (.recorded_time): it reads none
        read = self.coursedir.get_existing_timestamp
        seen: list[datetime | None] = []

        def withheld(folder: str) -> None:  # what nbgrader reads: no time
            seen.append(read(folder))

        with reading_timestamps_with(self.coursedir, withheld):
            super().init_assignment(assignment_id, student_id)  # type: ignore[misc]
        if not before.submission_existed:
            # no row scoring 0 while she is graded (or after a SIGKILL): RecordSubmission makes it with her grades
            self._gradebook(lambda gb: _restore(gb, before))
        recorded_time.defer(assignment_id, student_id, seen[0] if seen else None,
                            in_gradebook=before.submission_existed)

    def _records_time_last(self) -> bool:
        """Whether the autograde list has the course's steps that record a submission with its grading."""
        steps = [pp for pp in self.autograde_preprocessors if isinstance(pp, type)]
        return any(issubclass(pp, RecordSubmission) for pp in steps) and any(
            issubclass(pp, CourseLatePenalties) for pp in steps)

    def init_destination(self, assignment_id: str, student_id: str) -> bool:
        """nbgrader's check, after removing what a run stopped mid-grading left (so it is graded again)."""
        dest = Path(destination_folder(self, assignment_id, student_id))
        if self._sandbox_mode() is not None and not dest.is_symlink() and dest.is_dir():
            graded = [name for name in (Path(notebook).name for notebook in self.notebooks) if (dest / name).exists()]
            # SandboxedExecute writes the result with the graded notebook: killed in between
            unfinished = [name for name in graded if not (dest / result_name(name)).is_file()]
            again = False
            if graded and not unfinished and not self._grading_recorded(assignment_id, student_id):
                # the gradebook holds another submission's grading: a new one handed in since (its copy here is
                # the earlier one's), or a run killed before the gradebook had it (.recorded_time)
                again = _handed_in_again(dest, Path(source_folder(self, assignment_id, student_id)))
                unfinished = graded
            if again:
                self.log.info("%s: handed in again since it was graded; graded again", printable(student_id))
                shutil.rmtree(dest)
            elif unfinished:
                self.log.warning("%s: %s was left by a grading that did not finish; graded again",
                                 printable(student_id), printable(", ".join(unfinished)))
                shutil.rmtree(dest)
        result: bool = super().init_destination(assignment_id, student_id)  # type: ignore[misc]
        return result

    def _grading_recorded(self, assignment_id: str, student_id: str) -> bool:
        """Whether the gradebook holds the grading of the submission in ``submitted/`` (its time is the last word)."""
        if not self._records_time_last():
            return True  # nbgrader's own order: its time comes first, so it cannot tell
        source = Path(source_folder(self, assignment_id, student_id))  # submitted/<student>/<assignment>
        submitted = recorded_time.submitted_time(source.parent.parent, source.parent.name, source.name)
        held = self._gradebook(lambda gb: recorded_time.holds_submission(gb, assignment_id, student_id, submitted))
        return bool(held)

    def convert_single_notebook(self, notebook_filename: str) -> None:
        try:
            super().convert_single_notebook(notebook_filename)  # type: ignore[misc]
        except (SandboxUnavailable, MachineOverloaded) as error:
            student = self._forget_submission()
            self._refused.append(f"{student}: {error}")
            # nbgrader catches this, deletes autograded/<student> and goes on with the next student
            self._refuse(f"{student}: {REFUSED}: {error}")
        except BaseException as error:
            # any other failure (a step of nbgrader's, the tutor's Ctrl-C): no 0 row for work not graded
            student = self._forget_submission()
            if isinstance(error, Exception):
                self._refused.append(f"{student}: {type(error).__name__}")
            raise

    def _forget_submission(self) -> str:
        """Put the gradebook back as it was before this student's ``init_assignment``; the student's id, escaped."""
        before = self._before
        if before is None:
            return "?"
        waiting = recorded_time.forget(before.assignment_id, before.student_id)
        if waiting is not None and not waiting.in_gradebook:  # never recorded: nothing to put back
            return printable(before.student_id)
        self._gradebook(lambda gb: _restore(gb, before))
        return printable(before.student_id)

    def _sandbox_mode(self) -> str | None:
        """The configured ``SandboxedExecute.sandbox``, or None when the course grades without it."""
        if not any(isinstance(pp, type) and issubclass(pp, SandboxedExecute) for pp in self.autograde_preprocessors):
            return None
        return str(SandboxedExecute(config=self.config).sandbox)

    def _sandbox_limits(self) -> Limits:
        """The limits the assignment's notebooks will be graded with (checked here, before anything is graded)."""
        exercise = EXERCISES.get(self.coursedir.assignment_id)  # none for an assignment the kit does not grade
        return SandboxedExecute(config=self.config).sandbox_limits(Limits() if exercise is None else exercise.limits)

    def _gradebook(self, step: Callable[[Gradebook], Any]) -> Any:
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            return step(gradebook)

    def _refuse(self, message: str) -> None:
        self.log.error(message)
        raise NbGraderException(message) from None


class RecordSubmission(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader ships no type information
    """Record the submission :class:`SandboxGuard` kept out of the gradebook, right before ``SaveAutoGrades``.

    nbgrader creates a submission (scored 0 by every list and export) before the sandbox runs; the
    course's ``Autograde`` takes a new one out again, and this step, after the sandbox, puts it
    back, without its time: the course's late step records the time with the penalty it sets,
    after ``SaveAutoGrades`` (:mod:`...gradebook.recorded_time`), so a row's time always comes with its grades.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        waiting = recorded_time.pending(info["assignment"], info["student"])
        if waiting is not None and not waiting.in_gradebook:
            with Gradebook(info["db_url"]) as gradebook:
                gradebook.update_or_create_student(info["student"])
                gradebook.update_or_create_submission(info["assignment"], info["student"])
            recorded_time.row_made(info["assignment"], info["student"])
        return nb, resources


def _snapshot(gradebook: Gradebook, assignment_id: str, student_id: str) -> _Before:
    try:
        gradebook.find_student(student_id)
    except MissingEntry:
        return _Before(assignment_id, student_id, False, False, None)
    try:
        submission = gradebook.find_submission(assignment_id, student_id)
    except MissingEntry:
        return _Before(assignment_id, student_id, True, False, None)
    return _Before(assignment_id, student_id, True, True, submission.timestamp)


def _restore(gradebook: Gradebook, before: _Before) -> None:
    """Put the gradebook back as ``before`` found it (no grade of the student's was written since)."""
    if not before.student_existed:
        gradebook.remove_student(before.student_id)  # with the submission created for it
    elif not before.submission_existed:
        gradebook.remove_submission(before.assignment_id, before.student_id)
    else:
        submission = gradebook.find_submission(before.assignment_id, before.student_id)
        submission.timestamp = before.timestamp
        gradebook.db.commit()


def _handed_in_again(autograded: Path, submitted: Path) -> bool:
    """Whether ``autograded/`` holds an earlier submission than ``submitted/`` (their ``timestamp.txt`` differ).

    autograde copies the submission's ``timestamp.txt`` at its start: a run that did not finish left the
    same one as ``submitted/`` holds, an earlier grading an older one. Nothing readable: not known, False.
    """
    try:
        with (autograded / "timestamp.txt").open("rb") as graded, (submitted / "timestamp.txt").open("rb") as handed:
            return graded.read(256).strip() != handed.read(256).strip()
    except OSError:
        return False
