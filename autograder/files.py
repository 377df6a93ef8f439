"""Files the grader writes and reads for itself: atomic writes, digests of source trees."""

from __future__ import annotations

import ast
import contextlib
import errno
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from .errors import KitError


class DiskFull(KitError):
    """The grader's own disk is full: what was saved stays, and the next run resumes from it."""


def _current_umask() -> int:
    """The process's umask, read without changing it (os.umask sets it too, racing other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            line = next((line for line in status if line.startswith("Umask:")), None)
        if line is not None:
            return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # at import time, before any worker thread exists
    os.umask(mask)
    return mask


#: Files are created as the user's umask says (mkstemp alone would make them 0600).
FILE_MODE = 0o666 & ~_current_umask()


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    with open_atomic(path) as stream:
        stream.write(text)


def write_changed(path: Path, text: str) -> bool:
    """:func:`write_atomic`, unless ``path`` holds exactly ``text`` already; whether it wrote.

    A re-run that changed nothing for a student leaves their files (and their mtimes) alone, and
    costs a read instead of a write and an ``fsync``.
    """
    if _holds(path, text.encode("utf-8")):
        return False
    write_atomic(path, text)
    return True


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file (not a link to one) whose bytes are ``data``."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # none yet, a link, or unreadable: written anew
    with os.fdopen(handle, "rb") as stream:
        found = os.fstat(handle)
        return stat.S_ISREG(found.st_mode) and found.st_size == len(data) and stream.read(len(data) + 1) == data


def _same_file(temporary: str, path: Path) -> bool:
    """Whether ``path`` (a regular file, not a link) has the bytes of ``temporary``."""
    try:
        found = os.lstat(path)
        if not stat.S_ISREG(found.st_mode) or found.st_size != os.stat(temporary).st_size:
            return False
        with open(temporary, "rb") as new, open(path, "rb") as old:
            return _same_bytes(new, old)
    except OSError:
        return False


def _same_bytes(new: BinaryIO, old: BinaryIO) -> bool:
    while True:  # a block at a time: results.json of 50,000 students is hundreds of MB
        block = new.read(1 << 20)
        if block != old.read(1 << 20):
            return False
        if not block:
            return True


@contextlib.contextmanager
def open_atomic(path: Path, *, keep_unchanged: bool = False) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` in one step when the ``with`` block ends without error.

    For files written piece by piece (``results.json`` of 50,000 students): readers see the old
    file or the whole new one, never half of it, and the writer never holds the whole text.
    With ``keep_unchanged``, a ``path`` that already holds the same bytes is left as it is (its mtime too).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
            stream.flush()
            unchanged = keep_unchanged and _same_file(temporary, path)
            if not unchanged:
                os.fsync(stream.fileno())
        if unchanged:
            os.unlink(temporary)
        else:
            os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(
                f"the disk is full: cannot write {path}. What was saved is kept; free some space and run the "
                "same command again: it goes on where it stopped"
            ) from None
        raise


def source_digest(folder: Path) -> str:
    """SHA-256 over every ``.py`` file below ``folder`` (names and contents): changes with any edit."""
    digest = hashlib.sha256()
    for source in sorted(folder.rglob("*.py")):
        digest.update(source.relative_to(folder).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def code_digest(*functions: Callable[..., Any]) -> str:
    """SHA-256 over :func:`code_files` of ``functions`` (their names in the package and contents)."""
    digest = hashlib.sha256()
    for path, name in sorted(code_files(*functions).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def code_files(*functions: Callable[..., Any]) -> dict[Path, str]:
    """The modules that define ``functions`` and those of their package they import, transitively.

    What results computed with ``functions`` depend on: a change to one of these files may change
    them; a change to another module of the same package (one they never import) cannot. Imports
    are read from the source (relative and absolute, type-only ones too), not from what happens to
    be imported already. A package's ``__init__`` counts where it is imported, not merely because
    a module below it is (it runs first, but defines none of the functions' code).

    Parameters
    ----------
    functions
        Functions of a package installed from source files (``__module__`` names a ``.py`` file).

    Returns
    -------
    dict
        Each file and its module's name.

    Raises
    ------
    ValueError
        If a function's module has no source file.
    """
    files: dict[Path, str] = {}
    pending = []
    for function in functions:
        module = sys.modules[function.__module__]
        if module.__file__ is None or not module.__file__.endswith(".py"):
            raise ValueError(f"{function.__qualname__}: its module {function.__module__} has no source file")
        pending.append((Path(module.__file__), function.__module__))
    while pending:
        path, name = pending.pop()
        if path in files:
            continue
        files[path] = name
        top = Path(sys.modules[name.split(".")[0]].__file__ or path).parent
        pending += _package_imports(path, name, top)
    return files


def _package_imports(path: Path, name: str, top: Path) -> list[tuple[Path, str]]:
    """The modules below ``top`` (a package's folder) that the module ``name`` at ``path`` imports."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    names = []
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            within = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join([*within, node.module or ""]).strip(".")
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
    found = []
    for imported in names:
        parts = imported.split(".")
        if parts[0] != top.name:
            continue
        candidate = top.parent.joinpath(*parts)
        for file in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if file.is_file():
                found.append((file, imported))
    return found


def holders(path: Path) -> list[str]:
    """Other processes that have ``path`` open, as ``pid N (command)``, where ``/proc`` lets us see them.

    What ``fuser`` does, for one message: which program holds a busy gradebook. Processes of
    other users are invisible to an unprivileged grader; the list is then shorter, never wrong.
    """
    target = os.path.realpath(path)
    try:
        pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []
    return [holder for pid in pids if pid != os.getpid() and (holder := _holder(pid, target)) is not None]


def _holder(pid: int, target: str) -> str | None:
    """``pid N (command)`` if process ``pid`` has ``target`` open, else None (also where /proc does not say)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        if not any(_link(f"/proc/{pid}/fd/{fd}") == target for fd in fds):
            return None
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read(400).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:  # gone meanwhile, or another user's
        return None
    return f"pid {pid} ({command[:120] or '?'})"


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None
