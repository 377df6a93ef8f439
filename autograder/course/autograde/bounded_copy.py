"""Copy a student's folder within what was measured of it: no link followed, no byte past the bound.

``nbgrader collect`` copies an inbound entry the student wrote, and the student may still be
writing it: a file that grows (or a sparse one, which costs them no disk and the course its whole
apparent size), a folder swapped for a link, a file swapped for a FIFO. :func:`copy_folder` copies
folders and regular files only, each opened relative to its folder without following a link (a
FIFO never blocks), and reads at most the bytes and entries the walk before it measured
(:func:`~autograder.grading.reading.folder_bounds.check_folder`): past them it stops with
:class:`CopyRefused`, and the caller discards the partial copy. So a copy never holds more than the
bound, whatever the entry does meanwhile.

A sparse file (a hole: apparent bytes that hold no disk) is copied with its holes: only the
extents that hold data are read and written (``SEEK_DATA``/``SEEK_HOLE``) and the copy is cut to
the file's size, so four entries of one sparse 70 MiB file each write a few blocks, not 280 MiB.
The holes still count as bytes against the measure (it counts apparent sizes, as every later copy
of the folder writes them). Where the file system cannot tell the holes, the file is copied byte
for byte, within the same bound.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...grading.reading.folder_bounds import FolderSize
from ...output.safe_text import printable

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang the copy
_CHUNK = 1024**2
# Linux, the BSDs, macOS and Solaris have them; elsewhere lseek refuses the value and the copy is plain.
_SEEK_DATA, _SEEK_HOLE = getattr(os, "SEEK_DATA", 3), getattr(os, "SEEK_HOLE", 4)

#: Why an entry is left out (``None``: copied), from its path in the folder and what ``lstat`` said of it.
LeaveOut = Callable[[str, os.stat_result], "str | None"]


class CopyRefused(Exception):
    """The folder changed during the copy past what was measured; the message says how."""


@dataclass
class _Left:
    """What the copy may still take: entries and bytes (the measured ones at first)."""

    entries: int
    bytes: int


def copy_folder(source: str, dest: str, measured: FolderSize, leave_out: LeaveOut,
                log: Callable[[str], None]) -> None:
    """Copy folder ``source`` to the new folder ``dest``, holding the copy to ``measured``.

    ``leave_out`` decides on each folder and regular file (nbgrader's filters); links, FIFOs, sockets
    and devices are always left out. Each left-out entry is one ``log`` line, its path escaped.

    Raises
    ------
    CopyRefused
        When ``source`` is a link or no folder, or holds more entries or bytes than ``measured``
        (it grew since), or a file turned into something else while it was copied.
    OSError
        When reading or writing fails; ``dest`` is then partial (the caller removes it).
    """
    try:
        root = os.open(source, _DIRECTORY)
    except OSError as error:
        raise CopyRefused(f"the entry is no longer a folder ({error.strerror})") from None
    os.mkdir(dest, 0o700)
    left = _Left(measured.entries, measured.bytes)
    pending = [(root, Path(dest), "")]
    try:
        while pending:
            folder, target, prefix = pending.pop()
            try:
                _copy_entries(folder, target, prefix, left, leave_out, log, pending)
            finally:
                os.close(folder)
    finally:
        for folder, _, _ in pending:
            os.close(folder)


def _copy_entries(folder: int, target: Path, prefix: str, left: _Left, leave_out: LeaveOut,
                  log: Callable[[str], None], subfolders: list[tuple[int, Path, str]]) -> None:
    """Copy the files of one folder (a descriptor) into ``target``; add its subfolders, opened, to ``subfolders``."""
    with os.scandir(folder) as listing:
        for entry in listing:  # counted as listed: a folder that grows is stopped at the bound, not listed whole
            left.entries -= 1
            if left.entries < 0:
                raise CopyRefused("it holds more files and folders than when it was measured")
            path = prefix + entry.name
            info = entry.stat(follow_symlinks=False)
            reason = _kind(info) or leave_out(path, info)
            if reason is not None:
                log(f"{printable(path)} ({reason})")
            elif stat.S_ISDIR(info.st_mode):
                (target / entry.name).mkdir(0o700)
                subfolders.append((os.open(entry.name, _DIRECTORY, dir_fd=folder), target / entry.name, path + "/"))
            else:
                _copy_file(folder, entry.name, target / entry.name, left)
    os.chmod(target, stat.S_IMODE(os.fstat(folder).st_mode) & 0o777 | 0o700)


def _kind(info: os.stat_result) -> str | None:
    if stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode):
        return None
    return "a link" if stat.S_ISLNK(info.st_mode) else "not a regular file"


def _copy_file(folder: int, name: str, target: Path, left: _Left) -> None:
    """Copy regular file ``name`` of ``folder`` to ``target``, reading at most the bytes ``left``."""
    try:
        source = os.open(name, _FILE, dir_fd=folder)
    except OSError as error:  # swapped for a link since it was listed: ELOOP
        raise CopyRefused(f"{printable(name)} changed during the copy ({error.strerror})") from None
    try:
        info = os.fstat(source)
        if not stat.S_ISREG(info.st_mode):
            raise CopyRefused(f"{printable(name)} is no longer a regular file")
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            _copy_bytes(source, out, left)
            os.fchmod(out, stat.S_IMODE(info.st_mode) & 0o777 | 0o600)
            os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(out)
    finally:
        os.close(source)


def _copy_bytes(source: int, out: int, left: _Left) -> None:
    """Copy ``source`` to ``out`` keeping its holes, within the bytes ``left`` (holes counted: apparent size)."""
    size = os.fstat(source).st_size  # taken before each look for data: data added later is seen by that look
    try:
        start = _next_data(source, 0)
    except OSError:  # EINVAL, EOPNOTSUPP: the file system cannot tell the holes
        _copy_plain(source, out, left)
        return
    copied = 0  # where the copy has got to in the file, its holes included
    while start is not None:
        _charge(left, start - copied)  # the hole before this extent
        end = _hole_after(source, start)
        copied = start + _copy_extent(source, out, start, end - start, left)
        size = os.fstat(source).st_size
        start = _next_data(source, copied)
    if size > copied:  # a hole at the end (a file that shrank meanwhile is left as far as it was read)
        _charge(left, size - copied)
        os.ftruncate(out, size)


def _seek(source: int, offset: int, whence: int, past_the_end: int | None) -> int | None:
    """``lseek`` from ``offset``; ``past_the_end`` where the kernel says ENXIO (nothing such follows, or EOF)."""
    try:
        return os.lseek(source, offset, whence)
    except OSError as error:
        if error.errno == errno.ENXIO:
            return past_the_end
        raise


def _next_data(source: int, offset: int) -> int | None:
    """Where the next extent holding data starts at or after ``offset`` (None: only a hole, or the end, follows)."""
    return _seek(source, offset, _SEEK_DATA, None)


def _hole_after(source: int, offset: int) -> int:
    """Where the extent holding data at ``offset`` ends (``offset`` when the file shrank below it meanwhile)."""
    end = _seek(source, offset, _SEEK_HOLE, offset)
    return offset if end is None else end


def _copy_extent(source: int, out: int, offset: int, length: int, left: _Left) -> int:
    """Copy ``length`` bytes at ``offset`` (fewer if the file ends first); how many were copied."""
    done = 0
    while done < length:
        chunk = os.pread(source, min(_CHUNK, length - done, left.bytes + 1), offset + done)
        if not chunk:
            break
        _charge(left, len(chunk))
        _write_all(out, chunk, offset + done)
        done += len(chunk)
    return done


def _copy_plain(source: int, out: int, left: _Left) -> None:
    """Copy ``source`` to ``out`` byte for byte, reading at most one byte past the bytes ``left`` (then refused)."""
    offset = 0
    while chunk := os.read(source, min(_CHUNK, left.bytes + 1)):
        _charge(left, len(chunk))
        _write_all(out, chunk, offset)
        offset += len(chunk)


def _charge(left: _Left, size: int) -> None:
    """Take ``size`` bytes off what the copy may still take; :class:`CopyRefused` when past the measure."""
    left.bytes -= max(size, 0)
    if left.bytes < 0:
        raise CopyRefused("its files hold more bytes than when it was measured")


def _write_all(out: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(out, view, offset)
        view, offset = view[written:], offset + written
