"""nbgrader's ``autograde`` and ``generate_feedback`` for this course: no link, device or stray file travels on.

nbgrader copies every extra file of ``submitted/<student>/<assignment>/`` into ``autograded/``
(``BaseConverter.init_assignment``, with ``shutil.copy``, which follows links and blocks on a
FIFO), ``generate_feedback`` copies them on into ``feedback/``, and ``release_feedback`` puts every
``*.html`` there into the exchange: a link ``leak.html`` to the instructor's notebook reached the
student. nbgrader reads ``timestamp.txt`` with ``open`` (a FIFO hangs the whole run) and
``parse_utc`` (a bad zone stops that student). So these two converters, before nbgrader's own
``init_assignment``:

- refuse the student (nbgrader's per-student error; the others go on) when the student's or the
  assignment's folder is a link, or a notebook to convert is a link, not a regular file, or a
  hard link to a file of the course;
- add every entry that :func:`~autograder.course.autograde.submission_folder.screen_folder` drops to
  nbgrader's own filter (``CourseDirectory.ignore``, as exact paths, for that student only) and
  log one line naming them with the reason;
- drop every folder whose name is no valid student id (``submitted/`` for ``autograde``,
  ``autograded/`` for ``generate_feedback``) before nbgrader converts anything, with one escaped
  log line (:mod:`autograder.grading.reading.student_ids`), and keep such folders out of the formgrader's
  lists (``NbGraderAPI.get_submitted_students``);
- read ``timestamp.txt`` through the kit's reader (:mod:`autograder.output.timestamps`): a bad one
  is "timestamp unknown" in the log, never a stop;
- give nbgrader one notebook per student, chosen by the batch's rule
  (:func:`~autograder.grading.reading.notebook.choose_notebook`: the release's, else the only other), always
  under the release's name (so the autograded copy and the gradebook's notebook are the release's,
  and the log says which file was graded); nbgrader never sees another notebook's name, which its
  "Skipping unknown notebook" line printed raw (``generate_feedback`` takes only the release's name,
  which autograde wrote).

nbgrader has no setting for the converter class, so :func:`install` (called from the course's
``nbgrader_config.py``) has :func:`~autograder.nbgrader_adapter.install_converters` bind these classes
where nbgrader's apps and its API (the formgrader) look them up.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from nbconvert.exporters import Exporter
from traitlets import List, Type

from ...errors import CourseError, UsageError
from ...exercises import exercise_for
from ...grading.reading.folder_bounds import check_folder
from ...grading.reading.notebook import (
    SubmissionProblem,
    choose_notebook,
    file_ids,
    notebook_document,
    read_notebook,
    read_side_file,
    renamed_note,
)
from ...nbgrader_adapter import (
    Autograde,
    GenerateFeedback,
    NbGraderException,
    input_step,
    install_converters,
    reading_timestamps_with,
    source_folder,
)
from ...output.safe_text import printable
from ...output.timestamps import TimestampProblem, parse_timestamp
from ..handback.feedback_page import RESULT_SUFFIX, CourseFeedbackExporter, result_name
from ..setup.privacy import CoursePrivacy, check_course_privacy
from ..setup.roster import submitted_ids
from .preprocessor import GRADED_FILE, SandboxedExecute
from .sandbox_guard import SandboxGuard
from .submission_folder import WHOLE_FOLDER_IS_A_LINK, left_out_note, screen_folder, shipped_files


def read_timestamp(log: Any, folder: str) -> datetime | None:
    """``CourseDirectory.get_existing_timestamp`` without trusting the file: None, and a log line, if unreadable."""
    path = Path(folder)
    try:
        data = read_side_file(path.parent, ".", path.name, "timestamp.txt")
        return None if data is None else parse_timestamp(data)
    except SubmissionProblem as problem:
        reason = problem.message
    except TimestampProblem as problem:
        reason = f"timestamp.txt is not a readable time: {problem.message}"
    log.warning("timestamp unknown for %s: %s", printable(folder), reason)
    return None


class _Screened:
    """What both converters add to nbgrader's: the screening of each student's folder (see the module)."""

    config: Any
    coursedir: Any
    log: Any
    notebooks: list[str]
    assignments: dict[str, list[str]]
    #: What a refused folder does not get, in the log line.
    _refused_as = "not graded"
    #: Whether a folder without the release's notebook is graded from its only other one (the batch's rule).
    _fallback = True
    exporter: Any
    #: The notebook path given to nbgrader (the release's name) -> the file it is read from.
    _sources: dict[str, str]
    #: (assignment, student) -> the file's name, where it is not the release's.
    _renamed: dict[tuple[str, str], str]

    def _check_notebooks(self, student_id: str) -> None:
        course = file_ids([Path(self.coursedir.root) / "source", Path(self.coursedir.root) / "release"])
        for given in self.notebooks:
            notebook = self._sources.get(given, given)
            info = os.lstat(notebook)
            name = printable(os.path.basename(notebook))
            if stat.S_ISLNK(info.st_mode):
                problem = f"{name} is a link"
            elif not stat.S_ISREG(info.st_mode):
                problem = f"{name} is not a regular file"
            elif (info.st_dev, info.st_ino) in course:
                problem = f"{name} is a hard link to a file of the course"
            else:
                self._check_content(student_id, Path(notebook))
                continue
            raise self._refusal(f"{printable(student_id)}: {problem}, not graded: only the student's own notebook is")

    def _refusal(self, message: str) -> NbGraderException:
        """What stops nbgrader's work on this student, its one line (escaped by the caller) logged.

        Raised ``from None`` inside a handler: nbgrader logs the traceback, and a chained problem
        would carry the student's words unescaped.
        """
        self.log.error(message)
        return NbGraderException(message)

    def _check_content(self, student_id: str, path: Path) -> None:
        """Refuse the student, before nbgrader's readers, for a notebook the batch command refuses as well.

        nbgrader's reader (``nbformat``'s ``from_dict``), its preprocessors and the kit's all recurse
        into the JSON and take time per value: the same bounds as the batch's (:mod:`..notebook_shape`),
        checked on the same bytes, and the same rule for an nbgrader cell id on two cells.
        """
        try:
            limit = int(SandboxedExecute(config=self.config).max_notebook_mb * 1024**2)
            file = read_notebook(path.parent.parent, path.parent.name, ".", path.name, max_bytes=limit, fallback=False)
            notebook_document(file)
        except SubmissionProblem as problem:
            raise self._refusal(f"{printable(student_id)}: not graded: {printable(problem.message)}") from None

    def _check_folder(self, assignment_id: str, student_id: str, source: str) -> None:
        """Refuse the student whose folder holds more than ``c.SandboxedExecute``'s limits, before it is listed."""
        settings = SandboxedExecute(config=self.config)
        try:
            check_folder(Path(source), max_files=settings.max_folder_files,
                         max_bytes=int(settings.max_folder_mb * 1024**2), notebook=exercise_for(assignment_id).notebook)
        except SubmissionProblem as problem:
            raise self._refusal(f"{printable(student_id)}: not graded: {problem.message}") from None

    @contextmanager
    def _screened(self, assignment_id: str, student_id: str) -> Iterator[None]:
        source = source_folder(self, assignment_id, student_id)
        # before anything lists it: nbgrader's copy is quadratic in the number of files
        self._check_folder(assignment_id, student_id, source)
        keep = shipped_files(Path(self.coursedir.root), assignment_id)
        dropped = screen_folder(Path(source), keep)
        if dropped == [WHOLE_FOLDER_IS_A_LINK]:
            message = f"{printable(student_id)}: the submission's folder is a link, not graded"
            self.log.error(message)
            raise NbGraderException(message)
        self._check_notebooks(student_id)
        shown = [item for item in dropped if not self._left_behind(item.path)]
        if shown:
            self.log.warning(
                "Not copied from %s: %s", printable(source), ", ".join(str(item) for item in shown)
            )
        ignore = list(self.coursedir.ignore)
        # nbgrader's own filter: an absolute pattern replaces the folder nbgrader joins it to, and
        # glob.escape makes the name literal, so exactly these entries are left out
        self.coursedir.ignore = ignore + [glob.escape(os.path.join(source, item.path)) for item in dropped]
        try:
            yield
        finally:
            self.coursedir.ignore = ignore

    @staticmethod
    def _left_behind(path: str) -> bool:
        """Whether ``path`` of the source folder stays behind without a word (it is not the student's)."""
        return False

    def init_notebooks(self) -> None:
        """nbgrader's list of submissions, without any folder whose name is no valid student id.

        nbgrader takes a folder's name for a glob pattern (``*`` grades every classmate's notebook
        in its own run, after which theirs is skipped as existing) and prints it raw. This is
        nbgrader's ``init_notebooks`` with such a folder dropped before anything globs inside it,
        one escaped line each in the log, and escaped messages; the rule and the roster are the
        batch command's (:mod:`autograder.grading.reading.student_ids`).
        """
        self.assignments, self.notebooks, self._sources, self._renamed = {}, [], {}, {}
        root = Path(self.coursedir.root)
        # submitted/ for autograde, autograded/ for generate_feedback (a folder left by a plain nbgrader run)
        ids = submitted_ids(root, root / input_step(self), self.coursedir.db_url)
        for refusal in ids.refused:
            self.log.error("Refused, %s: %s: %s", self._refused_as, refusal.shown, refusal.reason)
        assignment_glob = source_folder(self, self.coursedir.assignment_id, self.coursedir.student_id)
        pattern = source_folder(self, "(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        for assignment in glob.glob(assignment_glob):
            match = re.fullmatch(pattern, assignment, re.DOTALL)
            if match is None or match["student_id"] not in ids.accepted:
                continue  # refused above (or no student folder at all)
            notebook = self._chosen(assignment, match["assignment_id"], match["student_id"])
            if notebook is not None:
                self.assignments[assignment] = [notebook]
        if not self.assignments:
            message = f"No notebooks were matched by '{printable(assignment_glob)}'"
            self.log.error(message)
            raise NbGraderException(message)

    def _chosen(self, folder: str, assignment_id: str, student_id: str) -> str | None:
        """The notebook nbgrader converts for one student: the release's path, read from the file the rule chose.

        None (with one escaped line) when the rule finds none, as the batch's ``missing``.
        """
        try:
            expected = exercise_for(assignment_id).notebook
        except UsageError as error:  # the course's steps grade only the kit's exercises
            self.log.error(printable(str(error)))
            raise NbGraderException(printable(str(error))) from None
        if not fnmatch.fnmatch(Path(expected).stem, self.coursedir.notebook_id):
            return None  # the tutor asked for another notebook (--notebook)
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # a link, not a folder: refused with its reason when nbgrader starts on it
            return os.path.join(folder, expected)
        try:
            names = os.listdir(fd)
        finally:
            os.close(fd)
        try:
            name, note = choose_notebook(names, expected, self._fallback)
        except SubmissionProblem as problem:
            self.log.warning("%s: %s: %s", printable(student_id), self._refused_as, printable(problem.message))
            return None
        left_out = left_out_note(names, name)
        if left_out:  # never given to nbgrader, which would print their names raw; the batch warns the same
            self.log.warning("%s: %s", printable(student_id), left_out)
        given = os.path.join(folder, expected)
        self._sources[given] = os.path.join(folder, name)
        if note is not None:
            self._renamed[(assignment_id, student_id)] = name
        return given

    def init_single_notebook_resources(self, notebook_filename: str) -> dict[str, Any]:
        """nbgrader's resources, naming the file graded where it is not the release's (for the grader's note)."""
        resources: dict[str, Any] = super().init_single_notebook_resources(notebook_filename)  # type: ignore[misc]
        info = resources["nbgrader"]
        graded = self._renamed.get((info["assignment"], info["student"]))
        if graded is not None:
            info[GRADED_FILE] = graded
        return resources

    def convert_single_notebook(self, notebook_filename: str) -> None:
        """nbgrader's conversion of the release's path, its exporter reading the file the rule chose."""
        source = self._sources.get(notebook_filename, notebook_filename)
        if source == notebook_filename:
            super().convert_single_notebook(notebook_filename)  # type: ignore[misc]
            return
        student = os.path.basename(os.path.dirname(os.path.dirname(source)))  # submitted/<student>/<assignment>/
        self.log.warning("%s: %s", printable(student),
                         printable(renamed_note(os.path.basename(source), os.path.basename(notebook_filename))))
        with _reading(self.exporter, notebook_filename, source):
            super().convert_single_notebook(notebook_filename)  # type: ignore[misc]

    # the converters' own steps, with the screening around them (super(): the nbgrader converter)
    def start(self) -> None:
        with reading_timestamps_with(self.coursedir, lambda folder: read_timestamp(self.log, folder)):
            super().start()  # type: ignore[misc]  # nbgrader's converter, after this mixin in the MRO

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        with self._screened(assignment_id, student_id):
            super().init_assignment(assignment_id, student_id)  # type: ignore[misc]


class CourseAutograde(_Screened, SandboxGuard, Autograde):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's ``Autograde``, passing on from ``submitted/`` only what the course allows, no score unsandboxed."""

    def start(self) -> None:
        # before any submission is read: a course other accounts can read is refused (or, allowed, warned about)
        try:
            check_course_privacy(Path(self.coursedir.root), allow=CoursePrivacy(parent=self).allow_readable_course,
                                 warn=self.log.warning)
        except CourseError as error:
            self.log.error("%s", error)
            raise NbGraderException(str(error)) from None
        super().start()


class CourseGenerateFeedback(_Screened, GenerateFeedback):  # type: ignore[misc]
    """nbgrader's ``GenerateFeedback`` writing the kit's page (:mod:`..handback.feedback_page`) and nothing else.

    nbgrader's own steps (``GetGrades``, the notebook as HTML) are replaced by the course's
    exporter, which reads the gradebook itself: the page is the same one the batch command writes.
    """

    _refused_as = "no feedback written"
    _fallback = False  # autograde wrote the release's name
    preprocessors: Any = List([]).tag(config=True)
    exporter_class = Type(CourseFeedbackExporter, klass=Exporter).tag(config=True)

    @staticmethod
    def _left_behind(path: str) -> bool:
        return path.endswith(RESULT_SUFFIX)  # the grader's result beside the notebook, read by the exporter

    def start(self) -> None:
        self._without_result: list[str] = []
        super().start()
        if self._without_result:  # nbgrader's apps and the formgrader report this as a failure (exit 1)
            message = f"no feedback written for {', '.join(self._without_result)}: not graded by this course's grader"
            self.log.error(message)
            raise NbGraderException(message)

    def init_destination(self, assignment_id: str, student_id: str) -> bool:
        """Skip, with one line each, a submission whose notebooks have no grader's result (no traceback)."""
        for notebook in self.notebooks:
            path = Path(notebook)
            if not (path.parent / result_name(path.name)).is_file():
                self.log.error(
                    "%s: no grader's result beside %s, so no feedback page: grade the submission first "
                    "(`python -m autograder grade` or `nbgrader autograde` with this course's config)",
                    printable(student_id), printable(path.name))
                self._without_result.append(printable(student_id))
                return False
        result: bool = super().init_destination(assignment_id, student_id)
        return result


@contextmanager
def _reading(exporter: Any, path: str, source: str) -> Iterator[None]:
    """Make nbgrader's ``exporter`` read ``source`` when asked for ``path`` (nbgrader names all after ``path``)."""
    from_filename = exporter.from_filename

    def reading(filename: str, resources: Any = None, **options: Any) -> Any:
        return from_filename(source if filename == path else filename, resources=resources, **options)

    exporter.from_filename = reading
    try:
        yield
    finally:
        del exporter.from_filename  # the exporter's own method again


def install() -> None:
    """Make ``nbgrader autograde``/``generate_feedback`` and the formgrader use the course's converters.

    Called from ``nbgrader_config.py``, which every nbgrader app and the formgrader load first.
    """
    install_converters(CourseAutograde, CourseGenerateFeedback, _valid_submitted_students)


def _valid_submitted_students(api: Any, assignment_id: str, listed: set[str]) -> set[str]:
    """nbgrader's ``NbGraderAPI.get_submitted_students`` (``listed``) without the folders the student-id rule refuses.

    The formgrader lists submitted/'s folders beside the gradebook's students, raw into its pages.
    """
    root = Path(api.coursedir.root)
    ids = submitted_ids(root, root / api.coursedir.submitted_directory, api.coursedir.db_url)
    return listed & set(ids.accepted)
