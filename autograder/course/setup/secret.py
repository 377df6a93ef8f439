"""The course's secret: the key of the fresh hidden instances' draw (:mod:`autograder.grading.definition.draws`).

It lives in the course directory (``.grading-secret``, git-ignored, mode 0600, created on first
use), is read by the grader's own process only and is never mounted into a sandbox. Both grading
paths (``python -m autograder grade`` and nbgrader's autograde with ``SandboxedExecute``) read the
same file, so both draw the same instances for the same submission. Deleting it draws new
instances for everybody at the next re-grade (the resume cache notices).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from ...errors import CourseError

SECRET_NAME = ".grading-secret"
#: 256 bits, as hex text (one line: a tutor can back it up or copy it to a second grading server).
SECRET_BYTES = 32


def _read(path: Path) -> bytes:
    """The secret's bytes, from a regular file of the grader's own user that nobody else can read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise CourseError(f"{path} is not a regular file: remove it, and a new secret is made")
        if info.st_mode & 0o077:
            os.fchmod(descriptor, 0o600)  # it was copied with a wider mode: close it again
        data = os.read(descriptor, 4096).strip()
    finally:
        os.close(descriptor)
    try:
        key = bytes.fromhex(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) < 16:
        raise CourseError(f"{path} does not hold a secret (hex, at least 32 digits): remove it, and a new one is made")
    return key


def course_secret(root: Path) -> bytes:
    """The course's secret, created (0600, atomically) if the course has none yet.

    Parameters
    ----------
    root
        The course directory.

    Returns
    -------
    bytes
        The key of the draw of fresh hidden instances.

    Raises
    ------
    CourseError
        If the file is a link, not a regular file, or does not hold a secret.
    """
    path = root / SECRET_NAME
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise CourseError(f"{path} is a symbolic link: the course's secret must be a file of its own") from None
        raise CourseError(f"cannot read the course's secret {path}: {error.strerror}") from None
    # written in full under a temporary name, then linked into place: a second grader starting at the
    # same moment finds either no secret or a whole one, never a half-written file
    temporary = root / f"{SECRET_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(descriptor, (secrets.token_hex(SECRET_BYTES) + "\n").encode("ascii"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another grader made it first: use theirs
    except OSError as error:
        raise CourseError(f"cannot create the course's secret {path}: {error.strerror}") from None
    finally:
        temporary.unlink(missing_ok=True)
    return _read(path)
