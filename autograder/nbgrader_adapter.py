"""Everything the kit takes from nbgrader, in one place: the names it uses, the hooks it sets, the private parts.

The rest of the kit imports nbgrader's classes and functions from here only (``tests/test_architecture.py``
holds it to that), so that an nbgrader upgrade is checked against this one module:

- **The version.** The kit was tested with the nbgrader versions in :data:`TESTED_VERSIONS` (the one
  ``constraints.txt`` pins). Importing this module with any other version prints one line and exits
  with status 2, before anything else of nbgrader is imported: every way into the kit through nbgrader
  passes here (the course's ``nbgrader_config.py`` imports the kit's preprocessors and converters, and
  ``python -m autograder`` imports the course layer), so no command grades with an nbgrader whose
  internals below may have moved. ``SystemExit`` is no ``Exception``: the config file's
  ``except Exception`` and traitlets' config loader let it through.
- **nbgrader's public extension points**, used wherever one exists, are set in the course's
  ``nbgrader_config.py``: ``c.Autograde.sanitize_preprocessors`` and ``autograde_preprocessors`` (the
  sandboxed ``Execute``), ``c.ExchangeFactory.collect`` and ``release_feedback``, ``c.ExportApp.plugin_class``,
  ``c.LateSubmissionPlugin``, ``c.ClearSolutions``. The course's classes subclass the nbgrader classes
  re-exported below and override their methods (``init_notebooks``, ``init_assignment``,
  ``init_destination``, ``convert_single_notebook``, ``preprocess_cell``, ``report_change``, …).
- **Where nbgrader has no extension point**, the kit reaches in here and nowhere else, each with its reason:
  :func:`install_converters` (nbgrader's apps and API name their converter classes in code),
  :func:`source_folder`/:func:`destination_folder`/:func:`input_step` (a converter's folders) and
  :func:`reading_timestamps_with` (how its converters read ``timestamp.txt``). :func:`remove_hidden_tests`
  applies nbgrader's own rule for the hidden-test markers through the preprocessor's public step.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import nbgrader

#: The nbgrader versions this kit was tested with; ``constraints.txt`` pins one of them
#: (``tests/test_nbgrader_adapter.py`` checks that it does).
TESTED_VERSIONS = ("0.9.6",)


def untested_version_message(version: str) -> str | None:
    """The one line that refuses nbgrader ``version``, or None for a version the kit was tested with."""
    if version in TESTED_VERSIONS:
        return None
    return (f"autograder: nbgrader {version} is installed ({sys.executable}), but this kit was tested only with "
            f"nbgrader {', '.join(TESTED_VERSIONS)}: install that (`make venv`; constraints.txt pins it), or check "
            "the kit against the new version and add it to TESTED_VERSIONS in autograder/nbgrader_adapter.py")


def _require_tested_version() -> None:
    message = untested_version_message(str(getattr(nbgrader, "__version__", "of unknown version")))
    if message is not None:
        print(message, file=sys.stderr)
        raise SystemExit(2)


# before the imports below: in another version they may fail, or succeed and mean something else
_require_tested_version()

# The names the kit uses, re-exported (nbgrader ships no type information: mypy sees them as Any).
from nbgrader.api import (  # noqa: E402
    Assignment,
    Comment,
    Grade,
    Gradebook,
    MissingEntry,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
    new_uuid,
)
from nbgrader.converters import Autograde, GenerateFeedback  # noqa: E402
from nbgrader.converters.base import NbGraderException  # noqa: E402
from nbgrader.coursedir import CourseDirectory  # noqa: E402
from nbgrader.exchange.default import ExchangeCollect, ExchangeReleaseFeedback  # noqa: E402
from nbgrader.exchange.default.collect import groupby  # noqa: E402
from nbgrader.exchange.default.exchange import Exchange  # noqa: E402
from nbgrader.plugins import ExportPlugin, LateSubmissionPlugin  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearOutput,
    ClearSolutions,
    ComputeChecksums,
    Execute,
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    NbGraderPreprocessor,
    OverwriteCells,
    SaveCells,
)
from nbgrader.utils import check_mode, notebook_hash, parse_utc  # noqa: E402

__all__ = [
    "TESTED_VERSIONS",
    "AssignLatePenalties",
    "Assignment",
    "Autograde",
    "CheckCellMetadata",
    "ClearHiddenTests",
    "ClearOutput",
    "ClearSolutions",
    "Comment",
    "ComputeChecksums",
    "CourseDirectory",
    "Exchange",
    "ExchangeCollect",
    "ExchangeReleaseFeedback",
    "Execute",
    "ExportPlugin",
    "GenerateFeedback",
    "Grade",
    "Gradebook",
    "IncludeHeaderFooter",
    "InstantiateTests",
    "LateSubmissionPlugin",
    "LockCells",
    "MissingEntry",
    "NbGraderException",
    "NbGraderPreprocessor",
    "OverwriteCells",
    "SaveCells",
    "Student",
    "SubmittedAssignment",
    "SubmittedNotebook",
    "check_mode",
    "destination_folder",
    "groupby",
    "input_step",
    "install_converters",
    "new_uuid",
    "notebook_hash",
    "parse_utc",
    "reading_timestamps_with",
    "remove_hidden_tests",
    "source_folder",
    "untested_version_message",
]


def install_converters(autograde: type, generate_feedback: type,
                       submitted_students: Callable[[Any, str, set[str]], set[str]]) -> None:
    """Make ``nbgrader autograde``/``generate_feedback`` and the formgrader use the course's converters.

    nbgrader has no setting for the converter class: ``AutogradeApp.start``, ``GenerateFeedbackApp.start``
    and ``NbGraderAPI.autograde``/``generate_feedback`` (the formgrader's buttons) each name the class in
    code, so the classes are bound where those modules look them up. The formgrader's list of submitted
    students (``NbGraderAPI.get_submitted_students``, raw folder names into its pages) has no setting
    either: it is wrapped, ``submitted_students(api, assignment_id, listed)`` deciding what is shown.
    Called from the course's ``nbgrader_config.py``, which every nbgrader app and the formgrader load
    first; ``tests/sandbox/test_threat_extra_files_to_exchange.py`` fails if an upgrade moves these names.

    Parameters
    ----------
    autograde, generate_feedback : type
        Subclasses of :class:`Autograde` and :class:`GenerateFeedback`.
    submitted_students : callable
        ``(api, assignment_id, nbgrader's set) -> the set to show``.
    """
    from nbgrader.apps import api, autogradeapp, generatefeedbackapp

    autogradeapp.Autograde = api.Autograde = autograde
    generatefeedbackapp.GenerateFeedback = api.GenerateFeedback = generate_feedback
    listed = api.NbGraderAPI.get_submitted_students
    original = getattr(listed, "__wrapped__", listed)  # a config loaded twice wraps nbgrader's method once

    def get_submitted_students(self: Any, assignment_id: str) -> set[str]:
        return submitted_students(self, assignment_id, set(original(self, assignment_id)))

    get_submitted_students.__wrapped__ = original  # type: ignore[attr-defined]
    api.NbGraderAPI.get_submitted_students = get_submitted_students


def source_folder(converter: Any, assignment_id: str, student_id: str, escape: bool = False) -> str:
    """The folder ``converter`` reads one student's assignment from (a glob pattern or, escaped, a regex).

    nbgrader's private ``BaseConverter._format_source``: its public ``CourseDirectory.format_path``
    needs the converter's input folder, which only the private ``_input_directory`` knows (``Autograde``'s
    changes between its two conversions).
    """
    folder: str = converter._format_source(assignment_id, student_id, escape=escape)
    return folder


def destination_folder(converter: Any, assignment_id: str, student_id: str) -> str:
    """The folder ``converter`` writes one student's assignment to (nbgrader's private ``_format_dest``)."""
    folder: str = converter._format_dest(assignment_id, student_id)
    return folder


def input_step(converter: Any) -> str:
    """The name of the folder ``converter`` reads (``submitted``, ``autograded``): its private ``_input_directory``."""
    step: str = converter._input_directory
    return step


def remove_hidden_tests(cell: Any, parent: Any) -> None:
    """Remove ``cell``'s hidden-test region as ``generate_assignment`` does (nbgrader's own markers' rule).

    Through ``ClearHiddenTests.preprocess_cell``, the preprocessor's public step, with its check that
    such a cell is a grade cell off (``cell`` is a gradebook cell's source, without its metadata).
    Raises ``RuntimeError`` for unbalanced markers, as nbgrader does.
    """
    ClearHiddenTests(parent=parent, enforce_metadata=False).preprocess_cell(cell, {}, 0)


@contextmanager
def reading_timestamps_with(coursedir: Any, reader: Callable[[str], Any]) -> Iterator[None]:
    """Make ``coursedir.get_existing_timestamp`` (how nbgrader's converters read ``timestamp.txt``) ``reader``.

    nbgrader's converters call that method of the course directory they were given and take no
    reader of their own; it is replaced on this one object only, and what it was is put back after.
    """
    before = coursedir.__dict__.get("get_existing_timestamp")
    coursedir.get_existing_timestamp = reader
    try:
        yield
    finally:
        if before is None:
            del coursedir.get_existing_timestamp  # nbgrader's own method again
        else:
            coursedir.get_existing_timestamp = before
