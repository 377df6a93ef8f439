"""``nbgrader collect`` for this course: only folders named by a valid student id, never through a link.

nbgrader's own step takes the student id from the inbound folder's name (``<id>+<assignment>+<time>+<random>``,
which whoever writes the exchange chooses), copies the folder with ``shutil.copytree`` following
every link in it (a link to a classmate's or the tutor's file arrives as that file's content), opens
a FIFO (and waits for ever), and stops the whole collection on one name it cannot parse. This one,
registered in ``nbgrader_config.py`` through nbgrader's own setting (``c.ExchangeFactory.collect``):

- refuses an inbound entry whose student id breaks the kit's rule
  (:mod:`autograder.grading.student_ids`, with the folders already in ``submitted/`` and the
  gradebook's roster, as both grading paths check it), with one escaped log line;
- skips an entry that is a link or not a folder, or whose name it cannot parse or holds control
  characters (nbgrader's own lines print it whole), with one line each;
- copies only folders and regular files, never following a link (a link is left out and named
  in the log), so nothing outside the student's folder is read;
- gives up on one student's copy (a file swapped for a FIFO meanwhile, a full folder) with one line,
  never on the others.
"""

from __future__ import annotations

import glob
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default import ExchangeCollect
from nbgrader.exchange.default.collect import groupby
from nbgrader.utils import check_mode, ignore_patterns, parse_utc

from ..grading.batch import student_folders
from ..output.safe_text import printable
from .roster import course_ids


class CourseCollect(ExchangeCollect):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's ``ExchangeCollect``, collecting only valid student ids and never following a link."""

    def init_src(self) -> None:
        """nbgrader's ``init_src`` (the same checks and choice per student) over the entries this class accepts."""
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        wanted = self.coursedir.student_id or "*"
        assignment = glob.escape(self.coursedir.assignment_id)
        pattern = os.path.join(glob.escape(self.inbound_path), f"{wanted}+{assignment}+*")
        records = [record for path in glob.glob(pattern) if (record := self._path_to_record(path)) is not None]
        records = self._valid(records)
        self.duedate = self._due_date()
        self.src_records = []
        for versions in groupby(records, lambda item: item["username"]).values():
            latest = self._sort_by_timestamp(versions)
            on_time = [record for record in latest if self.duedate is not None and record["timestamp"] <= self.duedate]
            self.src_records.append(on_time[0] if self.before_duedate and on_time else latest[0])

    def _due_date(self) -> Any:
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                return gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def _valid(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``records`` without the students whose id the rule refuses (with submitted/'s folders and the roster)."""
        root = Path(self.coursedir.root)
        submitted = root / self.coursedir.submitted_directory
        users = [record["username"] for record in records]
        ids = course_ids(root, [*users, *(student_folders(submitted) if submitted.is_dir() else [])],
                         self.coursedir.db_url)
        refused = ids.refused_folders()
        for user in dict.fromkeys(users):
            if user in refused:
                self.log.error("Refused, not collected: %s: %s", refused[user].shown, refused[user].reason)
        return [record for record in records if record["username"] not in refused]

    def _path_to_record(self, path: str) -> dict[str, Any] | None:
        """nbgrader's record of an inbound entry, or None (with a line) for one this class does not collect."""
        name = os.path.basename(path)
        if not name.partition("+")[2].isprintable():  # nbgrader's lines print it whole (the id: the rule's)
            self.log.error("Not collected: %s: its name holds control characters", printable(name))
            return None
        try:
            info = os.lstat(path)
            parts = name.rsplit("+", 3)
            if len(parts) < 3:
                raise ValueError("not <student>+<assignment>+<time>+<random>")
            timestamp = parse_utc(parts[2])
        except (OSError, ValueError, OverflowError) as error:  # dateutil's ParserError is a ValueError
            self.log.error("Not collected: %s: its name cannot be read (%s)", printable(name), printable(str(error)))
            return None
        if not stat.S_ISDIR(info.st_mode):
            what = "a link" if stat.S_ISLNK(info.st_mode) else "not a folder"
            self.log.error("Not collected: %s: %s", printable(name), what)
            return None
        return {"username": parts[0], "filename": name, "timestamp": timestamp}

    def do_copy(self, src: str, dest: str, log: Any = None) -> None:
        """nbgrader's copy (its size limits and filters), of folders and regular files only, links never followed."""
        if not stat.S_ISDIR(os.lstat(src).st_mode):  # swapped for a link since it was listed
            raise OSError(f"{printable(os.path.basename(src))} is no longer a folder")
        nbgrader_filter = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                          max_file_size=self.coursedir.max_file_size, log=self.log)
        shown = printable(os.path.basename(src))
        # symlinks=True: a link made after the filter looked is copied as a link (never read through); the
        # course's autograde then leaves it out as any link
        shutil.copytree(src, dest, symlinks=True, ignore=_only_plain(nbgrader_filter, self.log, shown))

    def copy_files(self) -> None:
        """nbgrader's collection, one student's failed copy costing no one else."""
        records = self.src_records
        for record in records:
            self.src_records = [record]
            try:
                super().copy_files()
            except (OSError, shutil.Error, RuntimeError) as error:  # RuntimeError: nbgrader's size limit
                self.log.error("Not collected: %s: %s", printable(record["filename"]), printable(str(error)))
                dest = self.coursedir.format_path(self.coursedir.submitted_directory, record["username"],
                                                  self.coursedir.assignment_id)
                shutil.rmtree(dest, ignore_errors=True)  # nothing half-copied is graded
        self.src_records = records


def _only_plain(nbgrader_filter: Callable[[str, list[str]], Any], log: Any,
                shown: str) -> Callable[[str, list[str]], set[str]]:
    """A ``copytree`` filter: nbgrader's, and every entry that is neither a folder nor a regular file."""

    def ignored(folder: str, names: list[str]) -> set[str]:
        left_out = set(nbgrader_filter(folder, names))
        for name in names:
            try:
                mode = os.lstat(os.path.join(folder, name)).st_mode
            except OSError:
                left_out.add(name)
                continue
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                what = "a link" if stat.S_ISLNK(mode) else "not a regular file"
                log.warning("Not collected from %s: %s (%s)", shown, printable(name), what)
                left_out.add(name)
        return left_out

    return ignored
