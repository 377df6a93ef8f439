"""Find and read one student's notebook, safely, once; extract the code the student wrote.

Submissions arrive from ``unzip``, ``tar``, git clones and LMS downloads, which all keep links, so
only regular files that really lie inside ``submitted/<student_id>/`` are read: every folder on
the way is opened without following links (``O_NOFOLLOW`` relative to the folder before it), the
notebook too, and what was opened is checked with ``fstat`` afterwards (a regular file, not a hard
link to a course file). Its size is checked before a byte is read.

Only the student's own code cells are run: the cells named in ``skip_ids`` (the release's test,
helper and other read-only cells) are skipped whatever the student did to them (edited,
deleted, emptied), because the tests are run by the grader from the exercise's cases. IPython
syntax in the cells is left as it is: it is turned into Python inside the sandbox.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..model import Status
from .notebook_schema import schema_problem
from .notebook_shape import MAX_DEPTH, ShapeProblem, check_shape, duplicate_grade_ids, json_error_text

#: Default cap on a notebook's size (outputs of a print flood, embedded data): larger ones are refused unread.
DEFAULT_MAX_NOTEBOOK_BYTES = 8 * 1024**2

#: A file's identity on this machine: (device, inode).
FileId = tuple[int, int]


class SubmissionProblem(Exception):
    """A submission that cannot be graded; ``status`` is :attr:`Status.MISSING` or :attr:`Status.ERROR`."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class NotebookFile:
    """One student's notebook as read from disk (once)."""

    #: The file's name inside the assignment folder.
    name: str
    data: bytes
    sha256: str
    #: (device, inode) of the file read.
    file_id: FileId
    #: Said to the student when the file is not the expected one (``exercise (1).ipynb``).
    note: str | None = None


@contextmanager
def _open_folder(name: str, parent: int | None, what: str, status_if_missing: Status) -> Iterator[int]:
    """Open folder ``name`` below the folder ``parent`` (a descriptor) without following a link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        raise SubmissionProblem(status_if_missing, f"no folder {what} in the submission") from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            # O_DIRECTORY answers ENOTDIR before O_NOFOLLOW's ELOOP: ask what it is
            link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
            kind = "a link" if link else "not a folder"
            raise SubmissionProblem(Status.ERROR, f"{what} is {kind}: only real folders are graded") from None
        raise SubmissionProblem(Status.ERROR, f"cannot open {what}: {error.strerror}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def choose_notebook(names: list[str], notebook: str, fallback: bool = True) -> tuple[str, str | None]:
    """The file to grade of a folder's ``names`` and the note said of it: ``notebook``, or the only other ``.ipynb``.

    The one rule of both grading paths (the course's ``autograde`` gives nbgrader the file chosen here), so
    an honest student whose notebook was saved as ``exercise-Copy1.ipynb`` keeps the grade; ``fallback=False``: none.

    Raises
    ------
    SubmissionProblem
        ``missing``, naming what the folder holds, when there is no ``notebook`` and not exactly one other.
    """
    if notebook in names:
        return notebook, None
    if not fallback:
        raise SubmissionProblem(Status.MISSING, f"no {notebook} in the assignment folder")
    found = sorted(name for name in names if name.endswith(".ipynb"))
    if len(found) == 1:
        return found[0], renamed_note(found[0], notebook)
    listed = ", ".join(found) or "no notebook at all"
    raise SubmissionProblem(Status.MISSING, f"no {notebook} in the assignment folder (found {listed})")


def renamed_note(graded: str, notebook: str) -> str:
    """What the student is told when the file graded is ``graded``, not the release's ``notebook``."""
    return f"graded {graded} (expected {notebook})"


def read_notebook(
    submitted: Path, student: str, assignment: str, notebook: str, *, max_bytes: int,
    course_files: frozenset[FileId] = frozenset(), fallback: bool = True,
) -> NotebookFile:
    """Read ``submitted/<student>/<assignment>/<notebook>`` (or the one other notebook there) safely.

    Raises
    ------
    SubmissionProblem
        ``missing`` when there is no folder or notebook; ``error`` for a link anywhere on the
        path, something that is not a regular file, a hard link to a course file, a file over
        ``max_bytes``, or one that cannot be read. The message says which.
    """
    root = os.open(submitted, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the tutor's folder: may be a link
    try:
        with (
            _open_folder(student, root, "the student's folder", Status.MISSING) as student_fd,
            _open_folder(assignment, student_fd, f"{assignment}/", Status.MISSING) as folder_fd,
        ):
            name, note = choose_notebook(os.listdir(folder_fd), notebook, fallback)
            return _read_file(folder_fd, name, note, max_bytes, course_files)
    finally:
        os.close(root)


def _read_file(
    folder_fd: int, name: str, note: str | None, max_bytes: int, course_files: frozenset[FileId]
) -> NotebookFile:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang us
    try:
        fd = os.open(name, flags, dir_fd=folder_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SubmissionProblem(Status.ERROR, f"{name} is a link: hand in the notebook itself") from None
        raise SubmissionProblem(Status.ERROR, f"cannot open {name}: {error.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionProblem(Status.ERROR, f"{name} is not a regular file")
        if (info.st_dev, info.st_ino) in course_files:
            message = f"{name} is a hard link to a file of the course, not the student's work"
            raise SubmissionProblem(Status.ERROR, message)
        if info.st_size > max_bytes:
            size, limit = info.st_size / 1024**2, max_bytes / 1024**2
            raise SubmissionProblem(Status.ERROR, f"{name} is {size:.1f} MiB, over the {limit:g} MiB limit")
        chunks, total = [], 0
        while chunk := os.read(fd, min(1024**2, max_bytes + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # it grew after fstat
                raise SubmissionProblem(Status.ERROR, f"{name} is over the {max_bytes / 1024**2:g} MiB limit")
    except OSError as error:
        raise SubmissionProblem(Status.ERROR, f"cannot read {name}: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return NotebookFile(name, data, hashlib.sha256(data).hexdigest(), (info.st_dev, info.st_ino), note)


def read_side_file(submitted: Path, student: str, assignment: str, name: str, limit: int = 1000) -> bytes | None:
    """A small file nbgrader keeps beside the notebook (``timestamp.txt``), or None if there is none.

    Read as the notebook is: no link on the way, a regular file, at most ``limit`` bytes.

    Raises
    ------
    SubmissionProblem
        With status ``error`` when the file is there but is a link, not a regular file, over
        ``limit`` bytes or unreadable; the message names the file and says which.
    """
    try:
        return read_notebook(submitted, student, assignment, name, max_bytes=limit, fallback=False).data
    except SubmissionProblem as problem:
        if problem.status is Status.MISSING:
            return None
        if "is a link" in problem.message:  # the notebook's wording asks for the notebook itself
            raise SubmissionProblem(Status.ERROR, f"{name} is a link") from None
        if " MiB" in problem.message:
            raise SubmissionProblem(Status.ERROR, f"{name} is over {limit} bytes") from None
        raise


def file_ids(folders: list[Path]) -> frozenset[FileId]:
    """(device, inode) of every regular file below ``folders`` (the course's own files)."""
    found = set()
    for folder in folders:
        for path in folder.rglob("*") if folder.is_dir() else ():
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.add((info.st_dev, info.st_ino))
    return frozenset(found)


def student_code(file: NotebookFile, skip_ids: frozenset[str]) -> list[str]:
    """The sources of the student's own code cells.

    Raises
    ------
    SubmissionProblem
        With status ``error`` for a file that is empty, not UTF-8, not JSON or not a notebook;
        the message says which.
    """
    cells = _cells(file)
    try:
        return _code_cells(cells, skip_ids)
    except Exception as error:
        message = f"{file.name} is JSON but not a Jupyter notebook ({type(error).__name__}: {error})"
        raise SubmissionProblem(Status.ERROR, message) from error


def cell_sources(file: NotebookFile, ids: frozenset[str]) -> dict[str, str]:
    """The sources of the notebook's cells whose nbgrader grade id is among ``ids`` (the first of each).

    Raises
    ------
    SubmissionProblem
        As :func:`student_code`, for a file that is not a notebook.
    """
    found: dict[str, str] = {}
    for cell in _cells(file):
        metadata = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
        cell_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if isinstance(cell_id, str) and cell_id in ids and cell_id not in found and isinstance(source, str):
            found[cell_id] = source
    return found


def _cells(file: NotebookFile) -> list[object]:
    """The notebook's cells as JSON (an older format upgraded); :class:`SubmissionProblem` if it is none."""
    cells = notebook_document(file)["cells"]
    return cells if isinstance(cells, list) else []  # a list: notebook_document checked it (for the type checker)


def notebook_document(file: NotebookFile) -> dict[str, object]:
    """The notebook as JSON within the bounds of :mod:`.notebook_shape` (an older format upgraded), ids unique.

    Every reader of a submitted notebook on both grading paths goes through this (or
    :func:`notebook_node`) first, so that no reader after it meets a shape it cannot take.

    Raises
    ------
    SubmissionProblem
        With status ``error`` for a file that is empty, not UTF-8, not JSON, nested too deeply or too
        large in values (:func:`.notebook_shape.check_shape`), not a notebook nbformat can read, or
        that has one nbgrader cell id on two cells; the message says which.
    """
    return _checked(file)[0]


def notebook_node(file: NotebookFile) -> nbformat.NotebookNode:
    """The notebook as nbformat reads it, once :func:`notebook_document`'s checks accepted it.

    Raises
    ------
    SubmissionProblem
        As :func:`notebook_document`.
    """
    return _checked(file)[1]


def _checked(file: NotebookFile) -> tuple[dict[str, object], nbformat.NotebookNode]:
    """See :func:`notebook_document`: the JSON and nbformat's notebook of ``file``, both checked."""
    name, data = file.name, file.data
    if not data.strip():
        raise SubmissionProblem(Status.ERROR, f"{name} is empty ({len(data)} bytes): the upload probably failed")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        message = f"{name} is not a text file (not UTF-8 at byte {error.start})"
        raise SubmissionProblem(Status.ERROR, message) from error
    try:
        document = json.loads(text)
        check_shape(document)
    except RecursionError:  # deeper than the C parser nests: far beyond MAX_DEPTH
        raise SubmissionProblem(Status.ERROR, f"{name}: the notebook is nested deeper than {MAX_DEPTH} levels") \
            from None
    except ShapeProblem as problem:
        raise SubmissionProblem(Status.ERROR, f"{name}: {problem}") from None
    except json.JSONDecodeError as error:
        raise SubmissionProblem(
            Status.ERROR, f"{name} is not valid JSON ({json_error_text(error)}); "
            "the file is truncated or was edited outside Jupyter"
        ) from error
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise SubmissionProblem(Status.ERROR, f"{name} holds a number of more than {sys.get_int_max_str_digits()} "
                                "digits: the file was edited outside Jupyter") from None
    return _as_notebook(name, text, document)


def _as_notebook(name: str, text: str, document: object) -> tuple[dict[str, object], nbformat.NotebookNode]:
    """``document`` (an older format upgraded) and the notebook as nbformat reads ``text``; ids checked.

    nbformat's reader must take it too: nbgrader's path reads every notebook with it, so a file it
    cannot read (a cell's metadata that is a list, a cell that is a string) would be graded by one
    path and refused by the other. It reads an honest notebook in about a millisecond.
    """
    try:
        current = isinstance(document, dict) and document.get("nbformat") == 4
        if current and not isinstance(document["cells"], list):  # type: ignore[index]  # a dict: checked
            raise TypeError("its cells are not a list")
        strict: dict[str, object] = {}  # nbformat validates strictly (after its repairs) and only logs: kept here
        node = nbformat.reads(text, as_version=4, capture_validation_error=strict)
        if not current:
            document = node  # an older format, upgraded
        if not isinstance(document, dict) or not isinstance(document["cells"], list):
            raise TypeError("its cells are not a list")
    except Exception as error:
        text = str(error).splitlines()[0][:200] if str(error) else ""
        message = f"{name} is JSON but not a Jupyter notebook ({type(error).__name__}: {text})"
        raise SubmissionProblem(Status.ERROR, message) from None
    invalid, twice = schema_problem(node) if strict else None, duplicate_grade_ids(document["cells"])
    if invalid is not None or twice is not None:  # nbgrader's path refuses both: so does this one
        raise SubmissionProblem(Status.ERROR, f"{name} {invalid}" if invalid is not None else f"{name}: {twice}")
    return dict(document), node


def release_code(release: Path | None, skip_ids: frozenset[str]) -> tuple[str, ...] | None:
    """The code cells the release gives a student (the stubs), read as :func:`student_code` does; None if none."""
    if release is None or not release.is_file():
        return None
    data = release.read_bytes()
    try:
        return tuple(student_code(NotebookFile(release.name, data, "", (0, 0)), skip_ids))
    except SubmissionProblem:
        return None


def release_sources(release: Path | None, ids: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The release's cells among ``ids`` as ``(grade id, source)`` pairs (none without a release)."""
    if release is None or not release.is_file():
        return ()
    try:
        return tuple(sorted(cell_sources(NotebookFile(release.name, release.read_bytes(), "", (0, 0)), ids).items()))
    except SubmissionProblem:
        return ()


def cell_labels(file: NotebookFile, skip_ids: frozenset[str], functions: frozenset[str]) -> list[str]:
    """How the student finds each of their code cells (in :func:`student_code`'s order) in their notebook.

    An answer cell whose nbgrader id names a function is "the cell that defines `dcg`"; any other is
    "cell N of your notebook", N counting every cell from the top (markdown included), as the
    notebook shows them. Empty where the file cannot be read (:func:`student_code` says why).
    """
    try:
        cells = _cells(file)
    except SubmissionProblem:
        return []
    labels = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        metadata = cell.get("metadata", {})
        nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
        cell_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
        if cell_id in skip_ids:
            continue
        defines = cell_id in functions
        labels.append(f"the cell that defines `{cell_id}`" if defines else f"cell {number} of your notebook")
    return labels


def _code_cells(cells: object, skip_ids: frozenset[str]) -> list[str]:
    if not isinstance(cells, list):
        raise TypeError("its cells are not a list")
    sources = []
    for cell in cells:
        if not isinstance(cell, dict):
            raise TypeError("a cell is not an object")
        if cell.get("cell_type") != "code":
            continue
        metadata = cell.get("metadata", {})
        nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
        if isinstance(nbgrader, dict) and nbgrader.get("grade_id") in skip_ids:
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise TypeError("a code cell's source is not text")
        sources.append(source)
    return sources
