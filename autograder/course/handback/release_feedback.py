"""``nbgrader release_feedback`` for this course: only the feedback page of each notebook the release has.

nbgrader's own step puts every ``*.html`` of ``feedback/<student>/<assignment>/`` into the exchange,
under a name the student can compute from their ``submission_secret.txt``, following links, and
stops the whole release when one student's folder lacks ``timestamp.txt`` (which it only logs).
This one, registered in ``nbgrader_config.py`` through nbgrader's own setting
(``c.ExchangeFactory.release_feedback``), releases ``<notebook>.html`` only for the notebooks of
``release/<assignment>/``, only when it is a regular file (no link), reads the two small files
without following links, and skips a student it cannot release to with a warning, never the others.
Just before releasing a page it writes it again from the grader's result and the gradebook as they
are now (:mod:`.feedback_page`), so a mark given after ``grade`` or ``generate_feedback`` is in it.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import stat
from pathlib import Path

from ...errors import UsageError
from ...grading.reading.notebook import SubmissionProblem, read_side_file
from ...nbgrader_adapter import ExchangeReleaseFeedback, notebook_hash
from ...output.safe_text import printable
from .feedback_page import page_exercise, page_path, write_course_pages


class CourseReleaseFeedback(ExchangeReleaseFeedback):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's ``ExchangeReleaseFeedback``, releasing only real feedback pages of the release's notebooks."""

    def copy_files(self) -> None:
        excluded = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        release = Path(self.coursedir.root) / self.coursedir.release_directory / self.coursedir.assignment_id
        notebooks = {path.stem for path in release.glob("*.ipynb")}
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(
                self.coursedir.feedback_directory, "(?P<student_id>.*)", self.coursedir.assignment_id, escape=True
            ),
            "(?P<notebook_id>.*).html",
        ])
        releasable = []  # (page, student, notebook, secret) of each page that passes the checks below
        for html_file in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            match = re.fullmatch(pattern, html_file)
            if match is None or match["student_id"] in excluded:
                continue
            student, notebook = match["student_id"], match["notebook_id"]
            shown = f"{printable(student)}: {printable(os.path.basename(html_file))}"
            problem = self._problem(html_file, notebook, notebooks)
            secret = None
            if problem is None:
                folder = Path(html_file).parent
                try:
                    data = read_side_file(folder.parent, ".", folder.name, "submission_secret.txt")
                    secret = None if data is None else data.decode("utf-8")
                except (SubmissionProblem, UnicodeDecodeError) as error:
                    problem = f"its submission_secret.txt is unusable ({getattr(error, 'message', error)})"
                if problem is None and secret is None:
                    problem = "no submission_secret.txt beside it (was the submission collected?)"
            if problem is not None or secret is None:
                self.log.warning("Not released: %s: %s", shown, problem)
                continue
            releasable.append((html_file, student, notebook, secret))
        refused = self._refresh([(html_file, student) for html_file, student, _, _ in releasable])
        for html_file, student, notebook, secret in releasable:
            if refused is not None:  # the gradebook could not be read: the page would miss the tutors' marks
                self.log.warning("Not released: %s: %s: %s", printable(student),
                                 printable(os.path.basename(html_file)), refused)
                continue
            checksum = notebook_hash(secret=secret, notebook_id=notebook)
            temporary = os.path.join(self.dest_path, f"{checksum}-tmp.html")
            self.log.info("Releasing feedback for student '%s' on assignment '%s/%s/%s'", printable(student),
                          self.coursedir.course_id, self.coursedir.assignment_id, notebook)
            shutil.copyfile(html_file, temporary, follow_symlinks=False)
            shutil.move(temporary, os.path.join(self.dest_path, f"{checksum}.html"))  # atomic update, as nbgrader

    def _refresh(self, pages: list[tuple[str, str]]) -> str | None:
        """Write the pages again from the grader's results and the gradebook as they are now (:mod:`.feedback_page`).

        So each released page has every mark given since it was written; the gradebook is read once
        for all of them. A page the kit does not write (an assignment it does not grade, a folder laid
        out otherwise, no grader's result) is released as it is, the last with a warning. Returns why
        no page may be released when the gradebook cannot be read, else None.
        """
        try:
            exercise = page_exercise(self.coursedir.assignment_id)
        except UsageError:
            return None
        root = Path(self.coursedir.root).resolve()
        # only the pages where the kit writes them
        students = [student for html_file, student in pages
                    if Path(html_file).resolve() == page_path(root, exercise, student).resolve()]
        try:
            left = write_course_pages(root, self.coursedir.db_url, exercise, students)
        except Exception as error:  # the gradebook: locked, missing
            return f"the gradebook could not be read for the current marks ({type(error).__name__}: {error})"
        for student, missing in left.items():
            self.log.warning("Released as it is, without the latest marks: %s: %s", printable(student), missing)
        return None

    @staticmethod
    def _problem(html_file: str, notebook: str, notebooks: set[str]) -> str | None:
        """Why ``html_file`` must not be released, or None."""
        if notebook not in notebooks:
            return "not the feedback of a notebook of the release"
        info = os.lstat(html_file)
        if stat.S_ISLNK(info.st_mode):
            return "a link"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        return None
