"""Where the course is: the folder of its ``nbgrader_config.py``.

Nothing heavy is imported here: the command line asks this before it loads the course.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import CourseError


def find_root(start: Path | None = None) -> Path:
    """Return the course directory: the nearest folder upwards holding ``nbgrader_config.py``.

    Parameters
    ----------
    start : Path, optional
        Where to look from (default: the working directory).

    Raises
    ------
    CourseError
        When no folder from ``start`` upwards holds one.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "nbgrader_config.py").is_file():
            return folder
    raise CourseError(f"no nbgrader_config.py in {here} or above: run this from the course directory")
