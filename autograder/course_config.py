"""The course's ``nbgrader_config.py``, loaded as nbgrader loads it, once per version of the file.

Loading it runs the file: it imports the kit's nbgrader classes (nbgrader itself, seconds on a busy
machine) and makes the default exchange. A grade run asks for it from several steps (its settings,
privacy, the gradebook's URL, late penalties); each gets the same settings from one load, and an
edited file (another modification time or size) is loaded again.
"""

from __future__ import annotations

import copy
import threading
from pathlib import Path

from traitlets.config import Config

from .errors import CourseError

CONFIG_NAME = "nbgrader_config.py"
_LOADED: dict[tuple[Path, int, int], Config] = {}
_LOCK = threading.Lock()


def course_config(root: Path | None) -> Config:
    """The course's ``nbgrader_config.py`` loaded as nbgrader loads it (an empty config outside a course).

    Parameters
    ----------
    root : Path or None
        The course directory; None (or a folder without the file): outside a course.

    Returns
    -------
    Config
        A copy of its one load: a caller may change it without changing another's.

    Raises
    ------
    CourseError
        When the file does not load (nbgrader would log it and run without the file: we say so instead).
    """
    path = None if root is None else root / CONFIG_NAME
    if path is None or not path.is_file():
        return Config()
    state = path.stat()
    key = (path.resolve(), state.st_mtime_ns, state.st_size)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = _load(path)
        return copy.deepcopy(_LOADED[key])


def _load(path: Path) -> Config:
    from traitlets.config.loader import PyFileConfigLoader

    try:
        return PyFileConfigLoader(CONFIG_NAME, path=str(path.parent)).load_config()
    except Exception as error:  # the tutor's Python: any error, said in one line
        raise CourseError(f"cannot load {path}: {type(error).__name__}: {error}") from error
