"""How much a submission's folder may hold: entries and bytes, counted in one walk that stops early.

nbgrader's ``autograde`` copies a submission folder's extra files into ``autograded/`` through a
filter that is quadratic in their number (3,000 empty files beside the notebook: 92.7 s for that
student, against 10.6 s for an honest one), and everything that lists or screens a folder is at
least linear in it. So before anything lists, screens or copies ``submitted/<student>/<assignment>/``,
both grading paths count what it holds with :func:`check_folder`: one ``os.scandir`` walk, links
counted but never followed, that stops as soon as a limit is passed, so it costs at most
``max_files`` entries whatever the folder holds. A folder over a limit is that student's
``error``; the limits are settings (``--max-folder-files``/``--max-folder-mb`` of ``grade``,
``c.SandboxedExecute.max_folder_files``/``max_folder_mb`` for ``nbgrader autograde``), with
their one default here.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..model import Status
from .notebook import SubmissionProblem

#: The most entries (files, folders, links: all counted) a submission's assignment folder may hold, its
#: subfolders included. An honest one holds the notebook, nbgrader's two small files, maybe a checkpoint
#: folder and a few figures; nbgrader's copy costs about 2.4 s at 500 entries and grows quadratically.
DEFAULT_MAX_FOLDER_FILES = 250
#: The most bytes its regular files may hold together (apparent sizes, as a copy would write them):
#: the notebook's own limit is 8 MiB.
DEFAULT_MAX_FOLDER_BYTES = 64 * 1024**2


class FolderOverLimit(SubmissionProblem):
    """A folder over one of :func:`check_folder`'s limits: the student's message, and the limit on its own."""

    def __init__(self, passed: str) -> None:
        super().__init__(Status.ERROR, f"the submission's folder {passed}: {_HAND_IN}")
        #: Which limit, in words ("holds more than 250 files and folders (the limit)"), for a tutor's line.
        self.passed = passed


@dataclass(frozen=True)
class FolderSize:
    """What a folder held when :func:`check_folder` walked it."""

    #: Entries of every kind, its subfolders' included.
    entries: int
    #: Apparent bytes of its regular files (the notebook's aside when it was named).
    bytes: int


def check_folder(folder: Path, *, max_files: int, max_bytes: int, notebook: str | None = None) -> FolderSize:
    """Refuse ``folder`` when it holds more than ``max_files`` entries or ``max_bytes`` bytes of files.

    The assignment's ``notebook`` directly in ``folder`` is counted as an entry but not in bytes:
    it has its own limit, which its reader checks before reading a byte (and says so in its own
    words: a sparse 4 GiB notebook is "over the 8 MiB limit"). A folder that is missing, a link
    or not a folder is left to the notebook's reader too (and measures as empty).

    Returns
    -------
    FolderSize
        What it holds, within the limits (a copy can hold it to that: ``course/bounded_copy.py``).

    Raises
    ------
    FolderOverLimit
        A :class:`SubmissionProblem` with status ``error``, naming the limit passed (files or bytes).
    """
    if folder.is_symlink() or folder.parent.is_symlink():  # refused by the reader; never walked into
        return FolderSize(0, 0)
    counted = _Count(max_files, max_bytes, os.path.join(folder, notebook) if notebook else None)
    pending = [str(folder)]
    while pending:
        try:
            listing = os.scandir(pending.pop())
        except OSError:  # gone, a link, not a folder, unreadable: the reader tells
            continue
        with listing:
            pending += [entry.path for entry in listing if counted.add(entry)]
    return FolderSize(counted.entries, counted.bytes)


class _Count:
    """Entries and bytes seen so far; :class:`FolderOverLimit` as soon as one passes its limit."""

    def __init__(self, max_files: int, max_bytes: int, notebook: str | None) -> None:
        self.max_files, self.max_bytes, self.notebook = max_files, max_bytes, notebook
        self.entries, self.bytes = 0, 0

    def add(self, entry: os.DirEntry[str]) -> bool:
        """Count ``entry`` (never following a link); whether it is a folder to walk into."""
        self.entries += 1
        if self.entries > self.max_files:
            raise FolderOverLimit(f"holds more than {self.max_files:,} files and folders (the limit)")
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:  # gone since it was listed: counted, nothing to add
            return False
        if stat.S_ISREG(info.st_mode) and entry.path != self.notebook:
            self.bytes += info.st_size
            if self.bytes > self.max_bytes:
                raise FolderOverLimit(f"holds more than {self.max_bytes / 1024**2:g} MiB of files (the limit)")
        return stat.S_ISDIR(info.st_mode)


_HAND_IN = "hand in the notebook with only the files the assignment needs"
