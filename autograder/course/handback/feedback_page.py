"""The one feedback page a student receives, current whichever order the tutor works in.

The page shows the grader's result and its diagnosis, every manual score and comment a tutor gave
in formgrader, the late penalty and the final total. Its two sources are kept apart so that the page
can be written again at any time:

- the grader's result, saved beside the autograded notebook as ``<notebook>.grader.json`` by both
  grading paths (``python -m autograder grade`` and the course's ``SandboxedExecute`` in ``nbgrader
  autograde``), so it always belongs to the notebook in ``autograded/``;
- the gradebook (:mod:`...gradebook.read_back`), read each time the page is written.

Every writer of ``feedback/<student>/<assignment>/<notebook>.html`` goes through
:func:`write_course_pages` or its exporter: the batch command, ``nbgrader generate_feedback`` and the formgrader's
"Generate Feedback" (:class:`CourseFeedbackExporter`), and ``nbgrader release_feedback``, which
writes the page again just before releasing it (:mod:`.release_feedback`). A student's file of the
same name in a submission never reaches ``autograded/``: the course's converters pass on only the
notebooks and the files nbgrader and the release put there (:mod:`..autograde.converters`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbconvert.exporters import Exporter
from nbformat.notebooknode import NotebookNode

from ...errors import CourseError
from ...exercises import exercise_for
from ...files import write_atomic
from ...gradebook.read_back import GradebookView, notebook_order, read_gradebook_views
from ...grading import Exercise, StudentResult
from ...output.feedback import render_feedback

#: The grader's result beside ``autograded/<student>/<assignment>/<notebook>.ipynb``.
RESULT_SUFFIX = ".grader.json"
_FORMAT = 1


class NoGraderResult(CourseError):
    """A submission has no grader's result to write a page from (it was not autograded by this kit)."""


@dataclass(frozen=True)
class StoredResult:
    """What the grading path saved for the page: the result, and whether the page shows the solution."""

    result: StudentResult
    show_solution: bool


def page_exercise(assignment: str) -> Exercise:
    """What a page of ``assignment`` is rendered with: the graded exercise.

    Raises
    ------
    UsageError
        For an assignment the course does not grade.
    """
    return exercise_for(assignment)


def result_name(notebook: str) -> str:
    """The result file's name for ``notebook`` (``ndcg.ipynb`` or ``ndcg``): ``ndcg.grader.json``."""
    return Path(notebook).stem + RESULT_SUFFIX


def result_document(result: StudentResult, *, show_solution: bool = False) -> bytes:
    """The result file's content for ``result`` (its lateness and marks are left out: the gradebook has them)."""
    data = result.to_json()
    data["late"] = data["manual"] = None
    document = {"format": _FORMAT, "show_solution": show_solution, "result": data}
    return json.dumps(document, separators=(",", ":")).encode("utf-8")  # compact: json's C encoder


def read_stored_result(folder: Path, notebook: str) -> StoredResult:
    """Read the result saved in the autograded ``folder`` for ``notebook``.

    Raises
    ------
    NoGraderResult
        When there is none, or it cannot be read (then the submission must be graded again).
    """
    path = folder / result_name(notebook)
    try:
        document = json.loads(path.read_bytes())
        if document.get("format") != _FORMAT:
            raise ValueError(f"format {document.get('format')!r}, not {_FORMAT}")
        return StoredResult(StudentResult.from_json(document["result"]), bool(document["show_solution"]))
    except FileNotFoundError:
        raise NoGraderResult(f"no grader's result in {folder} (grade the submission first: "
                             "`python -m autograder grade` or `nbgrader autograde`)") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise NoGraderResult(f"{path} is unreadable ({error}); grade the submission again") from error


def _page(folder: Path, exercise: Exercise, student_id: str, views: dict[str, GradebookView]) -> str:
    stored = read_stored_result(folder, exercise.notebook)
    view = views.get(student_id, GradebookView(None, None))  # not in the gradebook: the grader's result alone
    return render_feedback(exercise, view.applied_to(stored.result), show_solution=stored.show_solution)


def page_path(root: Path, exercise: Exercise, student_id: str) -> Path:
    """``feedback/<student>/<assignment>/<notebook>.html``, where ``nbgrader release_feedback`` takes it from."""
    return root / "feedback" / student_id / exercise.assignment / f"{Path(exercise.notebook).stem}.html"


def write_course_pages(root: Path, db_url: str, exercise: Exercise, students: list[str]) -> dict[str, NoGraderResult]:
    """Write each student's current page where nbgrader looks for it: the saved result with the
    gradebook's marks and lateness as they are now, read once for all of them.

    Returns
    -------
    dict
        The students whose page was left as it was, with why (no saved result).
    """
    notebook_id = Path(exercise.notebook).stem
    views = read_gradebook_views(db_url, exercise.assignment, notebook_id, students, notebook_order(root, exercise))
    left: dict[str, NoGraderResult] = {}
    for student_id in students:
        try:
            page = _page(root / "autograded" / student_id / exercise.assignment, exercise, student_id, views)
        except NoGraderResult as missing:
            left[student_id] = missing
            continue
        write_atomic(page_path(root, exercise, student_id), page)
    return left


class CourseFeedbackExporter(Exporter):
    """``generate_feedback``'s exporter for the course: the kit's page instead of the notebook as HTML.

    nbgrader's converter hands it each autograded notebook with the student, the assignment and
    the gradebook's URL; it writes the page from the result saved beside that notebook.
    """

    file_extension = ".html"
    output_mimetype = "text/html"

    # text, not a notebook: what nbgrader's writer stores (as nbconvert's own HTML exporter returns)
    def from_notebook_node(self, nb: NotebookNode, resources: dict[str, Any] | None = None,  # type: ignore[override]
                           **kw: Any) -> tuple[str, dict[str, Any]]:
        nb, resources = super().from_notebook_node(nb, resources, **kw)
        info = resources["nbgrader"]
        exercise = page_exercise(info["assignment"])
        # nbgrader converts from the course directory; a missing result fails this student only, with its message
        views = read_gradebook_views(info["db_url"], info["assignment"], info["notebook"], [info["student"]],
                                     notebook_order(Path.cwd(), exercise))
        return _page(Path(resources["metadata"]["path"]), exercise, info["student"], views), resources
