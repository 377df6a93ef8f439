"""What a submission folder may pass on besides the notebook, and what is dropped, with the reason.

Every entry of ``submitted/<student>/<assignment>/`` (and of the ``autograded/`` folder made
from it) is untrusted: nbgrader's ``autograde`` and ``generate_feedback`` copy every extra file on
with ``shutil.copy``, which follows links (to the instructor's notebook, to
``/proc/self/environ``, to ``/dev/zero`` that never ends) and blocks on a FIFO, and
``release_feedback`` puts every ``*.html`` of the feedback folder into the exchange under a name
the student can compute. In this course only these travel on: the files ``nbgrader collect``
writes (``timestamp.txt`` holding a readable time, ``submission_secret.txt``) and files the
release itself shipped (``release/<assignment>/``, notebooks aside), each a regular file with a
single link, found without following a link. Notebooks are never copied as files (nbgrader
converts the assignment's own), so every other entry is dropped and named with its reason.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nbformat.notebooknode import NotebookNode

from ...errors import UsageError
from ...grading.reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES, check_folder
from ...grading.reading.notebook import (
    DEFAULT_MAX_NOTEBOOK_BYTES,
    SubmissionProblem,
    notebook_node,
    read_notebook,
    read_side_file,
)
from ...output.safe_text import first_few, printable
from ...output.timestamps import TimestampProblem, parse_timestamp

#: What ``nbgrader collect`` writes beside the notebooks, and ``release_feedback`` reads beside the feedback.
COLLECT_FILES = ("timestamp.txt", "submission_secret.txt")


@dataclass(frozen=True)
class Dropped:
    """An entry of a submission folder that is not passed on."""

    #: Its path relative to the assignment folder, as the file system gave it (maybe not UTF-8).
    path: str
    #: Why, in a few words: "a link", "not a regular file", "not part of the assignment", ...
    reason: str

    def __str__(self) -> str:
        return f"{printable(self.path)} ({self.reason})"


#: The assignment folder or the student's folder is a link.
WHOLE_FOLDER_IS_A_LINK = Dropped(".", "a link")


def shipped_files(root: Path, assignment: str) -> frozenset[str]:
    """The files the release ships beside its notebooks (relative paths), which a submission may carry."""
    release = root / "release" / assignment
    if not release.is_dir():
        return frozenset()
    return frozenset(
        path.relative_to(release).as_posix()
        for path in release.rglob("*")
        if path.suffix != ".ipynb" and not path.is_symlink() and path.is_file()
    )


def screen_folder(folder: Path, keep: frozenset[str]) -> list[Dropped]:
    """Every entry of ``folder`` that must not be copied on; ``keep``: the relative paths that may be.

    A notebook (``*.ipynb``) that is a regular file is neither kept nor dropped: nbgrader converts
    the assignment's notebooks and skips the others. ``timestamp.txt`` is dropped when its time
    cannot be read (see :mod:`autograder.output.timestamps`). A folder that does not exist drops
    nothing; a folder that is a link, or lies in a student folder that is one, is dropped whole
    (``Dropped(".", "a link")``): nothing in it is the student's own.
    """
    if folder.is_symlink() or folder.parent.is_symlink():
        return [WHOLE_FOLDER_IS_A_LINK]
    try:
        return _screen(folder, "", keep | frozenset(COLLECT_FILES))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _screen(folder: Path, prefix: str, keep: frozenset[str]) -> list[Dropped]:
    dropped = []
    with os.scandir(folder) as entries:
        listed = sorted(entries, key=lambda entry: entry.name)
    for entry in listed:
        path = prefix + entry.name
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            dropped.append(Dropped(path, "a link"))
        elif stat.S_ISDIR(info.st_mode):
            if any(kept.startswith(path + "/") for kept in keep):
                dropped += _screen(Path(entry.path), path + "/", keep)
            else:
                dropped.append(Dropped(path, "a folder the release does not have"))
        elif not stat.S_ISREG(info.st_mode):
            dropped.append(Dropped(path, "not a regular file (a FIFO, socket or device)"))
        elif path.endswith(".ipynb"):
            continue
        elif path not in keep:
            dropped.append(Dropped(path, "not part of the assignment"))
        elif info.st_nlink > 1:
            dropped.append(Dropped(path, "a hard link"))
        elif path == "timestamp.txt" and (problem := timestamp_problem(folder, entry.name)):
            dropped.append(Dropped(path, problem))
    return dropped


def timestamp_problem(folder: Path, name: str = "timestamp.txt") -> str | None:
    """Why the time in ``folder/name`` cannot be read, to follow "timestamp.txt is" (None if it can or is absent)."""
    try:
        data = read_side_file(folder.parent, ".", folder.name, name)
    except SubmissionProblem as problem:
        return problem.message.removeprefix(f"{name} is ")
    if data is None:
        return None
    try:
        parse_timestamp(data)
    except TimestampProblem as problem:
        return f"not a readable time: {problem.message}"
    return None


@dataclass(frozen=True)
class Collected:
    """What ``nbgrader collect`` left beside one student's notebook, read as untrusted input."""

    #: ``timestamp.txt`` and ``submission_secret.txt`` where they are usable, by name.
    files: dict[str, bytes]
    #: The submission time (None: no timestamp.txt, or one that cannot be read).
    timestamp: datetime | None
    #: For the tutor: "timestamp unknown: ...", "not copied: leak.html (a link), ...".
    warnings: tuple[str, ...]


#: At most this many dropped entries are named in a warning; the rest are counted.
NAMED = 5


def left_out_note(names: Iterable[str], graded: str) -> str | None:
    """The warning on a folder's other notebooks, which are not graded; None when ``graded`` is its only one.

    One rule and one text for both grading paths: the course's ``autograde`` logs it, the batch
    command puts it in the student's warnings (table, report, ``results.json``).

    Examples
    --------
    >>> left_out_note(["ndcg.ipynb", "timestamp.txt", "ndcg-Copy1.ipynb", "draft.ipynb"], "ndcg.ipynb")
    "left out, not the assignment's notebook: draft.ipynb, ndcg-Copy1.ipynb"
    >>> left_out_note(["ndcg.ipynb", "timestamp.txt"], "ndcg.ipynb") is None
    True
    """
    others = sorted(other for other in names if other.endswith(".ipynb") and other != graded)
    if not others:
        return None
    return f"left out, not the assignment's notebook: {first_few(others, NAMED)}"


def read_collected(
    submitted: Path, student: str, assignment: str, keep: frozenset[str], *, notebook: str | None = None,
    graded: str | None = None, max_files: int = DEFAULT_MAX_FOLDER_FILES, max_bytes: int = DEFAULT_MAX_FOLDER_BYTES,
) -> Collected:
    """The files and warnings of ``submitted/<student>/<assignment>/``; ``keep`` as for :func:`screen_folder`.

    A folder over ``max_files`` entries or ``max_bytes`` bytes
    (:func:`~autograder.grading.reading.folder_bounds.check_folder`,
    ``notebook`` the assignment's) is not listed: that student was refused for it, and nothing in it is used.
    ``graded``: the name of the notebook graded there; the folder's other notebooks are named in a
    warning (:func:`left_out_note`).
    """
    folder = submitted / student / assignment
    try:
        check_folder(folder, max_files=max_files, max_bytes=max_bytes, notebook=notebook)
    except SubmissionProblem:
        return Collected({}, None, ())
    try:
        dropped = screen_folder(folder, keep)
    except OSError as error:
        dropped = [Dropped(".", f"unreadable ({error.strerror})")]
    if dropped == [WHOLE_FOLDER_IS_A_LINK]:  # graded as an error already; nothing in it is used
        return Collected({}, None, ())
    refused = {item.path: item.reason for item in dropped}
    files, warnings = {}, []
    for name in COLLECT_FILES:
        try:
            data = None if name in refused else read_side_file(submitted, student, assignment, name)
        except SubmissionProblem as problem:
            refused[name] = problem.message.removeprefix(f"{name} is ")
            data = None
        if data is not None:
            files[name] = data
    timestamp = None
    if "timestamp.txt" in refused:
        warnings.append(f"timestamp unknown: timestamp.txt is {refused['timestamp.txt']}")
    elif "timestamp.txt" in files:
        try:
            timestamp = parse_timestamp(files["timestamp.txt"])
        except TimestampProblem as problem:  # changed since the screening
            warnings.append(f"timestamp unknown: timestamp.txt is not a readable time: {problem.message}")
            del files["timestamp.txt"]
    warnings += _not_copied(dropped, refused)
    if graded is not None and (left_out := left_out_note(os.listdir(folder), graded)):
        warnings.append(left_out)
    return Collected(files, timestamp, tuple(warnings))


def _not_copied(dropped: list[Dropped], refused: dict[str, str]) -> list[str]:
    """The warning naming what is not copied on (the timestamp aside, said apart), or none."""
    others = [item for item in dropped if item.path != "timestamp.txt"]
    if "submission_secret.txt" in refused and all(item.path != "submission_secret.txt" for item in others):
        others.append(Dropped("submission_secret.txt", refused["submission_secret.txt"]))
    if not others:
        return []
    return [f"not copied: {first_few([str(item) for item in others], NAMED, show=str)}"]


def read_submitted_notebook(submitted: Path, student: str, assignment: str, notebook: str) -> NotebookNode:
    """``submitted/<student>/<assignment>/<notebook>`` as a notebook, read as the batch command reads one.

    No link is followed, a FIFO does not block, and no file beyond the size bound is read (:func:`read_notebook`).

    Raises
    ------
    SubmissionProblem
        When the file is missing, is not a safe regular file, or is not a notebook; the message says which.
    """
    file = read_notebook(submitted, student, assignment, notebook, max_bytes=DEFAULT_MAX_NOTEBOOK_BYTES,
                         fallback=False)
    return notebook_node(file)  # within the reader's bounds (depth, values, unique ids), or that student's problem


def require_submissions(submitted: Path, assignment: str, notebook: str) -> None:
    """Refuse, in one line naming the layout and how it is made, a submissions folder that is not there.

    Raises
    ------
    UsageError
        If ``submitted`` is not a folder.
    """
    if not submitted.is_dir():
        layout = f"{submitted}/<student_id>/{assignment}/{notebook}"
        raise UsageError(f"no submissions folder {submitted} (expected {layout}; nbgrader collect {assignment} puts "
                         "them there)")
