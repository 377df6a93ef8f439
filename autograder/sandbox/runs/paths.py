"""Paths of the tutor's machine, kept out of every text a student is shown.

A sandboxed process sees the grader's Python at its real place (bubblewrap mounts it where it is,
and in the weak mode it sees everything), so an exception message, a module's ``repr`` or the
editable install's finder (whose ``MAPPING`` names the project folder) can name the course's
folder, the tutor's home or the virtual environment. :func:`redact_paths` replaces each such path
in a text with a placeholder before the text becomes part of a result. It catches the paths as
they are written; a student who spells one out in pieces or encodes it is not stopped (see
docs/security.md).
"""

from __future__ import annotations

import ast
import os
import re
import site
import sys
from functools import cache
from pathlib import Path

PYTHON, COURSE, HOME = "<python>", "<course>", "<home>"
#: Folders every Linux machine has: naming them tells nothing about this one.
_GENERIC = frozenset({
    "/", "/usr", "/usr/local", "/usr/lib", "/tmp", "/var", "/var/tmp", "/opt", "/home", "/bin", "/sbin", "/lib",
    "/lib64", "/etc", "/srv", "/mnt", "/dev", "/proc", "/run",
})
_MAPPING = re.compile(r"^MAPPING\s*(?::[^=\n]*)?=\s*(\{.*?\})\s*$", re.MULTILINE | re.DOTALL)


def _python_dirs() -> list[Path]:
    """The grader's Python installation (the folders the bubblewrap sandbox mounts, see ``bubblewrap.py``)."""
    return [Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent]


def _site_dirs() -> list[Path]:
    dirs = [Path(path) for path in site.getsitepackages()] if hasattr(site, "getsitepackages") else []
    return [folder for folder in dirs if folder.is_dir()]


def _editable_targets() -> list[Path]:
    """The folders editable installs point at: their finders' ``MAPPING`` values, their ``.pth`` lines."""
    targets: list[Path] = []
    for folder in _site_dirs():
        for finder in folder.glob("__editable__*finder.py"):
            match = _MAPPING.search(finder.read_text(encoding="utf-8", errors="replace"))
            try:
                mapping = ast.literal_eval(match.group(1)) if match else {}
            except (ValueError, SyntaxError):
                mapping = {}
            targets += [Path(value) for value in mapping.values() if isinstance(value, str)]
        for pth in folder.glob("*.pth"):
            lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            targets += [Path(line.strip()) for line in lines if line.startswith("/")]
    return targets


@cache
def _fixed_paths() -> tuple[tuple[str, str], ...]:
    pairs = [(path, PYTHON) for path in _python_dirs()]
    # the project folder (a package's parent) names the course: ".../course/autograder" is "<course>/autograder"
    for target in _editable_targets():
        pairs += [(target, f"{COURSE}/{target.name}"), (target.parent, COURSE)]
    pairs.append((Path.home(), HOME))
    return tuple((str(path), label) for path, label in pairs)


def host_paths() -> list[tuple[str, str]]:
    """(path, placeholder) for every path to keep out, their real paths too, longest first.

    The working directory (the course, when the grader runs in it) counts as well.
    """
    return list(_host_paths(os.getcwd()))


@cache
def _host_paths(cwd: str) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for path, label in (*_fixed_paths(), (cwd, COURSE)):
        for variant in (path, os.path.realpath(path)):
            variant = variant.rstrip("/")
            if variant and variant not in _GENERIC:
                found.setdefault(variant, label)
    return tuple(sorted(found.items(), key=lambda pair: -len(pair[0])))


@cache
def _pattern(cwd: str) -> tuple[re.Pattern[str], dict[str, str]]:
    pairs = _host_paths(cwd)
    # a path ends where a name cannot go on: "/root" is not redacted inside "/rootfs"
    alternatives = "|".join(re.escape(path) for path, _ in pairs)
    return re.compile(f"(?:{alternatives})(?![\\w.\\-])"), dict(pairs)


def redact_paths(text: str) -> str:
    """``text`` with each path of :func:`host_paths` replaced by its placeholder.

    Examples
    --------
    >>> import sys
    >>> redact_paths(f"No such file: {sys.prefix}/lib/x.py")
    'No such file: <python>/lib/x.py'
    """
    pattern, labels = _pattern(os.getcwd())
    return pattern.sub(lambda match: labels[match.group()], text)
