"""``nbgrader collect`` for this course: only folders named by a valid student id, never through a link.

nbgrader's own step takes the student id from the inbound folder's name (``<id>+<assignment>+<time>+<random>``,
which whoever writes the exchange chooses), copies the folder with ``shutil.copytree`` following
every link in it (a link to a classmate's or the tutor's file arrives as that file's content), opens
a FIFO (and waits for ever), and stops the whole collection on one name it cannot parse. This one,
registered in ``nbgrader_config.py`` through nbgrader's own setting (``c.ExchangeFactory.collect``):

- refuses an inbound entry whose student id breaks the kit's rule
  (:mod:`autograder.grading.reading.student_ids`, with the folders already in ``submitted/`` and the
  gradebook's roster, as both grading paths check it), with one escaped log line;
- skips an entry that is a link or not a folder, or whose name it cannot parse or holds control
  characters (nbgrader's own lines print it whole), with one line each;
- refuses an entry over the grading's folder bounds (:mod:`autograder.grading.reading.folder_bounds`: entries,
  and bytes by apparent size, the notebook's limit added, at most nbgrader's ``CourseDirectory.max_dir_size``),
  measured before anything is copied or a previous copy removed, with one escaped line naming the
  student and the limit (nbgrader's own ``do_copy`` checks ``max_dir_size``; the copy here replaces it);
- copies only folders and regular files, never following a link (a link is left out and named
  in the log), within the bytes and entries measured (:mod:`.bounded_copy`), so nothing outside the
  student's folder is read and a copy never holds more than the bound, even of an entry that grows
  meanwhile; files over ``CourseDirectory.max_file_size`` are left out as nbgrader leaves them out,
  every left-out name escaped in the log (nbgrader's filter prints it raw);
- keeps a sparse file's holes (:mod:`.bounded_copy`);
- holds the whole run to a total (``c.CourseCollect.max_total_mb``, :data:`DEFAULT_MAX_TOTAL_MB`), so
  that whoever can write the inbound exchange cannot multiply the per-entry bound by inventing ids: the
  gradebook's roster is collected first, then the other ids in their order, and an entry that would pass
  the total is not collected (one escaped line), every entry within it still is;
- gives up on one student's copy (a file swapped for a FIFO meanwhile, a full folder, an entry grown
  past what was measured) with one line, never on the others, and leaves no partial copy.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traitlets import Float

from ...grading.batch import student_folders
from ...grading.reading.folder_bounds import FolderOverLimit, FolderSize, check_folder
from ...grading.reading.student_ids import check_ids
from ...nbgrader_adapter import ExchangeCollect, Gradebook, MissingEntry, check_mode, groupby, parse_utc
from ...output.safe_text import printable
from ..setup.roster import gradebook_roster
from .bounded_copy import CopyRefused, copy_folder
from .preprocessor import SandboxedExecute

#: The most a ``collect`` run copies, in MiB: room for a class of hundreds (an honest entry is the notebook,
#: tens to hundreds of KiB, and nbgrader's two small files), and for 14 entries at the full per-entry bound
#: (``max_folder_mb`` + ``max_notebook_mb``: 72 MiB by default).
DEFAULT_MAX_TOTAL_MB = 1024.0
#: What an entry costs the total beyond its files' apparent bytes: one block for each file and folder (a
#: folder's own block, a file's last block, its inode), so an entry of 250 empty folders is not free.
ENTRY_COST = 4096


class CourseCollect(ExchangeCollect):  # type: ignore[misc]  # nbgrader ships no type information
    """nbgrader's ``ExchangeCollect``, collecting only valid student ids and never following a link."""

    max_total_mb = Float(DEFAULT_MAX_TOTAL_MB, min=0.0, help=(
        "The most one collect run copies into submitted/, in MiB: apparent bytes of the entries' files, plus "
        f"{ENTRY_COST} bytes for each file and folder. The gradebook's students are collected first; an entry "
        "that would pass the total is not collected.")).tag(config=True)

    #: The entry being collected, as :meth:`copy_files` measured it (its path as ``do_copy`` gets it), set by
    #: :meth:`copy_files` before nbgrader's step calls ``do_copy``.
    _measured: dict[str, FolderSize]
    #: The ids of the course's gradebook, read once by :meth:`_valid` (the rule's look-alikes, the order).
    _roster: frozenset[str] = frozenset()

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
        records = [record for path in glob.glob(pattern) if (record := self._inbound_record(path)) is not None]
        records = self._valid(records)
        self.duedate = self._due_date()
        self.src_records = []
        for versions in groupby(records, lambda item: item["username"]).values():
            # newest first, as nbgrader's (private) _sort_by_timestamp orders them
            latest = sorted(versions, key=lambda item: item["timestamp"], reverse=True)
            on_time = [record for record in latest if self.duedate is not None and record["timestamp"] <= self.duedate]
            self.src_records.append(on_time[0] if self.before_duedate and on_time else latest[0])
        # the roster first, so that made-up ids cannot take the total from the class; then by id (code points)
        self.src_records.sort(key=lambda record: (record["username"] not in self._roster, record["username"]))

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
        self._roster = gradebook_roster(root, self.coursedir.db_url)
        ids = check_ids([*users, *(student_folders(submitted) if submitted.is_dir() else [])], self._roster)
        refused = ids.refused_folders()
        for user in dict.fromkeys(users):
            if user in refused:
                self.log.error("Refused, not collected: %s: %s", refused[user].shown, refused[user].reason)
        return [record for record in records if record["username"] not in refused]

    def _inbound_record(self, path: str) -> dict[str, Any] | None:
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
        """nbgrader's copy within the folder bounds, of folders and regular files only, links never followed."""
        shown = printable(os.path.basename(src))
        # measured in copy_files, before nbgrader's step removed a previous copy (a copy never holds more)
        measured = self._measured.pop(src, None) or self._measure(src)
        copy_folder(src, dest, measured, self._leave_out,
                    lambda entry: self.log.warning("Not collected from %s: %s", shown, entry))

    def _limits(self) -> tuple[int, int]:
        """The most entries and bytes (apparent) an inbound entry may hold, and the settings they come from."""
        settings = SandboxedExecute(config=self.config)
        graded = int((settings.max_folder_mb + settings.max_notebook_mb) * 1024**2)  # the notebook counts here
        return settings.max_folder_files, min(graded, 1000 * self.coursedir.max_dir_size)

    def _measure(self, src: str) -> FolderSize:
        """What ``src`` holds, walked as grading walks it; :class:`CopyRefused` (naming the limit) when over one."""
        max_files, max_bytes = self._limits()
        try:
            return check_folder(Path(src), max_files=max_files, max_bytes=max_bytes)
        except FolderOverLimit as over:  # its message is the student's ("hand in ..."): the tutor is told the settings
            raise CopyRefused(f"the entry {over.passed} (c.SandboxedExecute.max_folder_files; c.SandboxedExecute."
                              "max_folder_mb + max_notebook_mb, at most c.CourseDirectory.max_dir_size)") from None

    def _leave_out(self, path: str, info: os.stat_result) -> str | None:
        """nbgrader's filters (``CourseDirectory.ignore``, ``include``, ``max_file_size``) for one entry, or None."""
        name = os.path.basename(path)
        if any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.ignore):
            return "excluded by CourseDirectory.ignore"
        if not stat.S_ISREG(info.st_mode):
            return None
        if self.coursedir.include and not any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.include):
            return "not in CourseDirectory.include"
        if self.coursedir.max_file_size and info.st_size > 1000 * self.coursedir.max_file_size:
            return "over CourseDirectory.max_file_size"
        return None

    def copy_files(self) -> None:
        """nbgrader's collection, one student's failed copy costing no one else, the run held to its total.

        An entry over the bounds or the total is refused before nbgrader's step, which would first
        remove the student's previous copy in ``submitted/`` (``--update``): that copy stays.
        """
        records = self.src_records
        total = _Total(int(self.max_total_mb * 1024**2))
        for record in records:
            self.src_records = [record]
            src = os.path.join(self.inbound_path, record["filename"])
            try:
                measured = self._measure(src)
            except CopyRefused as refused:
                self._not_collected(record, str(refused))
                continue
            cost = measured.bytes + ENTRY_COST * measured.entries if self._copies(record) else 0
            if not total.take(cost):
                self._not_collected(record, f"it would pass this run's total of {self.max_total_mb:g} MiB "
                                            f"(c.CourseCollect.max_total_mb): the entry counts {cost / 1024**2:.1f} "
                                            f"MiB, {total.used / 1024**2:.1f} MiB were collected before it")
                continue
            self._measured = {src: measured}
            try:
                super().copy_files()
            except (OSError, CopyRefused) as error:
                total.used -= cost  # nothing of it is left
                self._not_collected(record, str(error))
                dest = self._destination(record)
                shutil.rmtree(dest, ignore_errors=True)  # nothing half-copied is graded
        self.src_records = records

    def _destination(self, record: dict[str, Any]) -> str:
        return str(self.coursedir.format_path(self.coursedir.submitted_directory, record["username"],
                                              self.coursedir.assignment_id))

    def _copies(self, record: dict[str, Any]) -> bool:
        """Whether nbgrader's ``copy_files`` (0.9.6) copies ``record``: the same decision, taken before it."""
        dest = self._destination(record)
        if not os.path.isdir(dest):
            return True
        existing = self.coursedir.get_existing_timestamp(dest)
        if self.update and (existing is None or record["timestamp"] > existing):
            return True
        return bool(self.before_duedate and existing != record["timestamp"])

    def _not_collected(self, record: dict[str, Any], reason: str) -> None:
        self.log.error("Not collected: %s (%s): %s", printable(record["username"]), printable(record["filename"]),
                       printable(reason))


@dataclass
class _Total:
    """What a collect run has copied so far (bytes, as :data:`ENTRY_COST` counts them) against its limit."""

    limit: int
    used: int = 0

    def take(self, cost: int) -> bool:
        """Count ``cost`` when it keeps within the limit; whether it did."""
        if self.used + cost > self.limit:
            return False
        self.used += cost
        return True
