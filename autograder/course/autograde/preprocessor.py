"""nbgrader's own ``autograde`` through the kit's sandbox: a preprocessor that replaces ``Execute``.

Configured in the course's ``nbgrader_config.py`` (``c.Autograde.autograde_preprocessors``), so
``nbgrader autograde``, the formgrader's Autograde button, ``generate_feedback`` and
``release_feedback`` all grade safely. For each notebook it runs the student's code in the
sandbox and scores every test cell with the exercise's cases, compared in this process (the same
engine as ``python -m autograder grade``). Then, in the notebook nbgrader saves to ``autograded/``:

- each test cell's output is its outcome: a short "passed" line, or an error output with the
  student-safe message, so nbgrader's ``SaveAutoGrades`` records the points with its own rules
  (an error output scores 0, anything else full points; ``needs_manual_grade`` as nbgrader sets it);
- every hidden test cell's source is replaced by its description, so nothing hidden reaches
  ``autograded/`` or the feedback generated from it;
- a code cell of the student's that raised, hung or crashed gets that as its output;
- the grader's result goes beside the notebook (``<notebook>.grader.json``), for the student's page
  (:mod:`..handback.feedback_page`).

:class:`SanitiseNotebook`, next in the course's list, then makes everything of the student's in the
notebook inert (:mod:`..notebook_cells.sanitise`), so that the formgrader and ``generate_feedback`` show nothing
active a student wrote.
"""

from __future__ import annotations

import hashlib
from copy import deepcopy as copy_notebook
from pathlib import Path

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from traitlets import Bool, Float, Int, Unicode

from ...exercises import exercise_for
from ...grading import Classmates, Exercise, GradingSettings, Status, StudentResult, grade_submission
from ...grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from ...grading.reading.notebook import (
    DEFAULT_MAX_NOTEBOOK_BYTES,
    NotebookFile,
    SubmissionProblem,
    cell_sources,
    read_notebook,
    release_code,
    release_sources,
    renamed_note,
)
from ...grading.submission import DEFAULT_TIMEOUT, cell_message
from ...nbgrader_adapter import CourseDirectory, NbGraderPreprocessor
from ...output.safe_text import printable
from ...sandbox import Limits, MachineOverloaded, Sandbox, SandboxUnavailable, choose_sandbox
from ...sandbox.resources.limits import SETTINGS, configured_limits
from ...sandbox.runs.deadline import DEFAULT_BUDGET_TEXT
from ..classmates import course_classmates
from ..handback.feedback_page import result_document, result_name
from ..notebook_cells.generated_cells import (
    grade_id,
    hidden_cell_source,
    locked_cell_ids,
    student_code_cells,
    without_hidden_tests,
)
from ..notebook_cells.notebook_nodes import new_output
from ..notebook_cells.sanitise import sanitise_notebook
from ..setup.roster import gradebook_roster
from ..setup.secret import course_secret

#: nbgrader's notebook resources name here the file graded, where it is not the release's (set by ``.converters``).
GRADED_FILE = "graded_file"

_SANDBOXES: dict[tuple[str, Limits], Sandbox] = {}


def sandbox_for(mode: str, limits: Limits) -> Sandbox:
    """The sandbox for ``mode`` and ``limits``, chosen once per process (the check starts a Python in bubblewrap).

    Parameters
    ----------
    mode : {"auto", "required", "none"}
        See :func:`~autograder.sandbox.choose_sandbox`.
    limits : Limits
        Its resource limits: another exercise or setting gets a sandbox of its own.

    Returns
    -------
    Sandbox

    Raises
    ------
    SandboxUnavailable
        When ``mode`` cannot be had here (not remembered: the next call checks again).
    """
    if (mode, limits) not in _SANDBOXES:
        _SANDBOXES[mode, limits] = choose_sandbox(mode, limits)
    return _SANDBOXES[mode, limits]


#: The sandbox modes this process has logged (:meth:`SandboxedExecute.preprocess`).
_LOGGED_MODES: set[str] = set()


def _error_output(name: str, message: str) -> NotebookNode:
    return new_output("error", ename=name, evalue=message, traceback=[f"{name}: {message}"])


def _stream(text: str) -> NotebookNode:
    return new_output("stream", name="stdout", text=text)


class SandboxedExecute(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader ships no type information
    """Grade a notebook in the kit's sandbox instead of executing it in a kernel (see the module)."""

    # Both grading paths read these from the course's nbgrader_config.py (``python -m autograder grade`` through
    # .grade_settings, where a flag overrides one); the defaults are the engine's, each in one place.
    timeout = Float(DEFAULT_TIMEOUT, help="Seconds each code cell and each test call may take.").tag(config=True)
    sandbox = Unicode("required", help="'required' (bubblewrap or refuse) or 'auto' (with a weak fallback); "
                      "python -m autograder grade: 'auto' unless the course sets it.").tag(config=True)
    # the sandbox's limits (autograder.sandbox.resources.limits.SETTINGS); None: the exercise's
    memory_mb = Int(None, allow_none=True, help="MiB of memory for each sandbox (default: the exercise's).").tag(
        config=True
    )
    cpu_seconds = Int(None, allow_none=True, help="CPU seconds per sandboxed process (default: the exercise's).").tag(
        config=True
    )
    processes = Int(None, allow_none=True, help="Processes and threads per sandbox (default: the exercise's).").tag(
        config=True
    )
    scratch_mb = Int(None, allow_none=True, help="MiB of a sandbox's home and /tmp (default: the exercise's).").tag(
        config=True
    )
    budget_seconds = Int(
        None, allow_none=True,
        help=f"Seconds one submission's grading may take in all, restarts included (default: {DEFAULT_BUDGET_TEXT}).",
    ).tag(config=True)
    # read by the course's converters before nbgrader lists or copies the folder or reads the notebook (.converters)
    max_notebook_mb = Float(DEFAULT_MAX_NOTEBOOK_BYTES / 1024**2, min=0.001, help=(
        "A notebook larger than this is refused unread (as grade --max-notebook-mb)."
    )).tag(config=True)
    max_folder_files = Int(DEFAULT_MAX_FOLDER_FILES, min=1, help=(
        "A submission folder holding more files and folders than this is refused before it is copied."
    )).tag(config=True)
    max_folder_mb = Float(DEFAULT_MAX_FOLDER_BYTES / 1024**2, min=0.001, help=(
        "A submission folder whose files hold more MiB than this is refused before it is copied."
    )).tag(config=True)

    credit_copied_follow_through = Bool(False, help=(
        "Give Task 1.2's follow-through point to by-hand answers that fit another student's list and not the "
        "student's own (off: the point is withheld and the feedback says why; the report lists them)."
    )).tag(config=True)

    def sandbox_limits(self, base: Limits) -> Limits:
        """``base`` (the exercise's limits) with those set in ``nbgrader_config.py``.

        Parameters
        ----------
        base : Limits
            The exercise's limits.

        Returns
        -------
        Limits

        Raises
        ------
        UsageError
            For a configured limit out of its range (one line naming ``c.SandboxedExecute.<name>``).
        """
        values = {name: getattr(self, name) for name in SETTINGS}
        return configured_limits(base, values, {name: f"c.SandboxedExecute.{name}" for name in SETTINGS})

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        student = resources["nbgrader"]["student"]
        exercise = exercise_for(resources["nbgrader"]["assignment"])
        skip = locked_cell_ids(exercise, nb)  # nbgrader has put the release's locked cells back
        # the course's converter gives nbgrader the file the batch's rule chose under the release's name
        graded = resources["nbgrader"].get(GRADED_FILE)
        note = None if graded is None else renamed_note(graded, exercise.notebook)
        # nbgrader's converters run from the course directory (they chdir to CourseDirectory.root):
        # the same secret as the batch command's, so the same fresh instances for the same submission
        release = Path.cwd() / "release" / exercise.assignment / exercise.notebook
        coursedir = CourseDirectory(config=self.config)
        # the class as the batch command sees it: every submission folder and the gradebook's roster
        classmates = course_classmates(
            Path.cwd() / coursedir.submitted_directory, gradebook_roster(Path.cwd(), coursedir.db_url),
            credit_copied=self.credit_copied_follow_through,
        ) if exercise.answered else Classmates()
        settings = GradingSettings(
            exercise, self.timeout, skip, draw_key=course_secret(Path.cwd()), release_cells=release_code(release, skip),
            limits=self.sandbox_limits(exercise.limits),
            # the by-hand part's list comes from the release's derivation cell, as in the batch command
            published=release_sources(release, exercise.answered.published_ids) if exercise.answered else (),
            classmates=classmates,
        )
        handed_in = nb if not exercise.answered else with_handed_in_cells(
            nb, exercise.answered.published_ids, Path.cwd() / coursedir.submitted_directory, student,
            exercise.assignment, graded or exercise.notebook, settings.max_notebook_bytes)
        data = nbformat.writes(handed_in).encode("utf-8")
        file = NotebookFile(graded or exercise.notebook, data, hashlib.sha256(data).hexdigest(), (0, 0), note)
        try:
            sandbox = sandbox_for(self.sandbox, settings.sandbox_limits)
            if sandbox.mode not in _LOGGED_MODES:  # once per process: the formgrader's log says how it grades
                _LOGGED_MODES.add(sandbox.mode)
                self.log.info("sandbox: %s", sandbox.mode)
                if sandbox.resource_warning:
                    self.log.warning("%s", sandbox.resource_warning)
            result = grade_submission(student, file, Path("."), settings, sandbox)
        except (SandboxUnavailable, MachineOverloaded):  # this machine cannot grade now: no score (.sandbox_guard)
            raise
        except Exception as error:  # a grader bug must not stop nbgrader's batch
            self.log.exception("internal grader error on %s", printable(student))
            message = f"internal grader error: {type(error).__name__}"
            result = StudentResult.without_grading(student, Status.ERROR, message, exercise.max_score)
        self.log.info(  # printable: the converter refused a hostile name already; a log line is still no place for it
            # the grader's points: nbgrader applies late penalties and a tutor's marks after this step
            "%s: %s, the grader's %g of %g points, before any late penalty or tutor's mark (fresh instances %s)",
            printable(student), result.status.value, result.score, result.max_score, result.instances,
        )
        write_outcomes(nb, exercise, result, student_code_cells(nb, skip), self.timeout)
        # nbgrader's writer puts resources["outputs"] beside the autograded notebook: the result the
        # student's page is written from (.feedback_page), whichever command writes it later
        resources.setdefault("outputs", {})[result_name(exercise.notebook)] = result_document(result)
        return nb, resources


def with_handed_in_cells(nb: NotebookNode, ids: frozenset[str], submitted: Path, student: str, assignment: str,
                         name: str, max_bytes: int) -> NotebookNode:
    """``nb`` with its cells ``ids`` as the student handed them in, read again from ``submitted``.

    nbgrader's ``OverwriteCells`` has put the release's read-only cells back into the notebook this
    pass grades; an answered part reads some of them as data as handed in, as the batch command
    does from ``submitted/`` (Task 1.2's derivation cell: a notebook fetched before a forced salt
    change is marked against the list it showed, issue 33.8). They are read here with the batch's
    safe reader; whatever cannot be read leaves ``nb`` as it is (the release's cells, the release's list).

    Parameters
    ----------
    nb : NotebookNode
        The notebook nbgrader grades (not changed).
    ids : frozenset of str
        The grade ids of the cells to take as handed in (``AnsweredPart.published_ids``).
    submitted : Path
        The course's ``submitted/`` folder.
    student, assignment, name : str
        Whose notebook, of which assignment, under which file name (the one the converter graded).
    max_bytes : int
        The notebook size limit of the grading settings.

    Returns
    -------
    NotebookNode
        A copy of ``nb`` with those cells' sources replaced, or ``nb`` itself.
    """
    try:
        handed_in = cell_sources(read_notebook(submitted, student, assignment, name, max_bytes=max_bytes,
                                               fallback=False), ids)
    except (SubmissionProblem, OSError):
        return nb
    if not handed_in:
        return nb
    copy = copy_notebook(nb)
    for cell in copy.cells:
        if (cell_id := grade_id(cell)) in handed_in:
            cell.source = handed_in[cell_id]
    return copy


class SanitiseNotebook(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader ships no type information
    """Make a notebook inert before nbgrader stores it in ``autograded/`` (see :mod:`..notebook_cells.sanitise`).

    The release's read-only cells are taken from ``release/<assignment>/<notebook>.ipynb`` of the
    course directory; where it is missing, every cell is treated as the student's.
    """

    #: No later pass sanitises the notebook again (see :class:`SanitiseFirstConversion`).
    last_pass = True

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=self.config)
        path = Path(coursedir.root) / coursedir.release_directory / info["assignment"] / f"{info['notebook']}.ipynb"
        release = nbformat.read(path, as_version=4) if path.is_file() else None
        if release is None:
            self.log.warning("no release notebook at %s: every cell of %s is sanitised as the student's", path,
                             info["student"])
        sanitise_notebook(nb, release, last=self.last_pass)
        return nb, resources


class SanitiseFirstConversion(SanitiseNotebook):
    """:class:`SanitiseNotebook` for nbgrader's first conversion (its sanitize list), whose result the second sanitises.

    Raw cells leave it unescaped but shown by no page, so that the second pass escapes them once.
    """

    last_pass = False


def write_outcomes(
    nb: NotebookNode, exercise: Exercise, result: StudentResult, student_cells: list[NotebookNode], timeout: float
) -> None:
    """Put ``result`` into ``nb``: outcomes as the test cells' outputs, hidden cells described, cell problems shown."""
    tests = {test.name: test for test in result.tests}
    groups = {group.grade_id: group for group in exercise.graded_groups}
    for cell in student_cells:
        cell.outputs = []
    for problem in result.cells:
        if problem.index < len(student_cells):
            student_cells[problem.index].outputs = [_error_output("CellProblem", cell_message(problem, timeout))]
    for cell in nb.cells:
        cell_id = grade_id(cell)
        if cell.cell_type != "code" or cell_id not in groups:
            continue
        group = groups[cell_id]
        # what the student saw: a visible cell with hidden lines (Task 1.2's value checks, which only
        # plain nbgrader runs) loses them as in the release
        cell.source = hidden_cell_source(group) if not group.visible else without_hidden_tests(cell.source)
        test = tests.get(cell_id)
        if test is None:  # the notebook could not be graded at all
            cell.outputs = [_error_output("NotGraded", result.message or result.status.value)]
        elif test.passed:
            cell.outputs = [_stream(f"passed: {test.message}\n")]
        else:
            cell.outputs = [_error_output("TestFailed", test.message)]
