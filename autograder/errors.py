"""Errors the command line reports as one line; each class carries its exit code (as click does).

Anything else that escapes is a bug of the grader and ends with its traceback, so that it is
never mistaken for bad input.
"""

from __future__ import annotations


class KitError(Exception):
    """The tool cannot do what was asked; the message says why and what to do."""

    exit_code = 2


class UsageError(KitError):
    """A command-line option or argument that cannot be used."""


class CourseError(KitError):
    """The course directory or an nbgrader step is not in a usable state (nbgrader's log ends the message)."""


class GradebookError(KitError):
    """The results were written but the gradebook could not be updated."""

    exit_code = 1
