"""The by-hand hook an answered part may carry: a variant per student, drawn from a published salt and pool.

An exercise whose answered part gives every student a variant of their own (a list to work out by
hand) hands the course what it needs through one :class:`ByHand`: how to read and write the salt
the notebook publishes, how to derive a student's variant, how each way of working it out (right,
or a common mistake) comes out for the paper exam, and how to tell answers that fit another
student's variant for the copying report. The course's by-hand feature (``autograder/byhand/``)
reaches the exercise only through it, so a second exercise with such a part needs no edit there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from nbformat.notebooknode import NotebookNode


@dataclass(frozen=True)
class CopiedAnswers:
    """A student whose by-hand answers are another student's values, not their own."""

    student_id: str
    #: The student whose variant gives these values.
    source_id: str
    #: The answer names that match (e.g. ``DCG_AT_K``), in step order.
    steps: tuple[str, ...]


@dataclass(frozen=True)
class WorkedWay:
    """One way of working a variant out (right, or a common mistake) and the values it writes down."""

    #: "right", or the mistake's name.
    name: str
    #: The catalogue ID of the mistake ("" for the right calculation).
    mistake: str
    #: The steps' values in the part's order: a sequence (e.g. an ideal ranking), then numbers.
    sequence: tuple[float, ...]
    numbers: tuple[float, ...]


@dataclass(frozen=True)
class ByHand:
    """What the course needs of an answered part that gives every student a variant of their own."""

    #: How students and tutors name the part, e.g. "Task 1.2".
    task: str
    #: The salt of a course that has not chosen one.
    default_salt: str
    #: The pool of variants the release publishes (text, as the derivation cell holds it).
    pool: Callable[[], str]
    #: The salt and pool a notebook publishes; raises :class:`~autograder.errors.CourseError` when it publishes none.
    published: Callable[[NotebookNode], tuple[str, str]]
    #: Publish a salt in the source notebook at the path: ``(path, salt, keep_earlier)``; returns the ids changed.
    #: ``keep_earlier``: the salt it replaces stays valid for what students handed in.
    write_salt: Callable[[Path, str, bool], list[str]]
    #: A student's variant from their id, the salt and the pool.
    variant: Callable[[str, str, str], tuple[int, ...]]
    #: A salt ``base-N`` that gives every student of the roster a variant of their own (``roster, pool, base``).
    choose_salt: Callable[[Iterable[str], str, str], str]
    #: The cutoff (k) every variant is worked out at.
    cutoff: int
    #: Every way of working a variant out: the right one first, then each common mistake's.
    worked: Callable[[tuple[int, ...]], tuple[WorkedWay, ...]]
    #: How close a written answer must be.
    tolerance: float
    #: The paper exam's task text (plain text).
    wording: str
    #: The grade id of the cell the answers are written in.
    answers_id: str
    #: Why a student's answer cell (None: there is none) cannot be compared; None when some number was read.
    unanswered: Callable[[str | None], str | None]
    #: The students whose answers (their answer cells, by id) fit another's variant and not their own.
    copied: Callable[[Mapping[str, str], str, str], list[CopiedAnswers]]
