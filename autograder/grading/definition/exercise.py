"""What an exercise tells the engine: its test groups and cases, reference, probes, diagnosis, mistakes.

The engine grades any exercise whose students write functions that take JSON-like arguments
(numbers, lists of numbers) and return a number. An exercise package (``autograder/exercises/``)
builds one :class:`Exercise`; nothing in the engine names a particular exercise.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from ...files import code_digest
from ...sandbox import CallRecord, Limits
from ..model import Diagnosis, StudentResult
from .hand_hook import ByHand


def _literal(value: Any) -> str:
    """A call argument as a student writes it (the tuples that keep calls hashable read as lists)."""
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _frozen(value: Any) -> Any:
    """``value`` with every list (at any depth) made a tuple."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


#: Rounding to this many decimals or more changes a value by less than any tolerance worth having.
MAX_ROUNDING = 9


def rounded(value: float) -> bool:
    """Whether ``value`` has at most ``MAX_ROUNDING - 1`` decimals (``round(x, 6)`` has, a float32 sum has not).

    >>> rounded(2.430677), rounded(3.692535877227783)
    (True, False)
    """
    return any(math.isclose(value, round(value, n), rel_tol=1e-15, abs_tol=0.0) for n in range(MAX_ROUNDING))


def within_tolerance(
    value: float, reference: float, rel_tol: float, abs_tol: float, noise_rel_tol: float = 0.0,
) -> bool:
    """Whether ``value`` counts as ``reference``: the one tolerance policy of the grader.

    Parameters
    ----------
    value, reference
        A student's number and the number it should be (the definition's, or the student's own
        value on a companion call times a factor).
    rel_tol, abs_tol
        How close any value must be (``math.isclose``).
    noise_rel_tol
        A looser relative tolerance for floating-point noise, such as a sum accumulated in single
        precision (``float32``, off by about 1e-7). It never admits a value with few decimals
        (:func:`rounded`): noise is forgiven, rounding is not.

    Examples
    --------
    >>> within_tolerance(0.7763, 0.776296, 1e-9, 1e-12, 1e-5)  # rounded to 4 decimals
    False
    >>> within_tolerance(3.692535877227783, 3.692536065216308, 1e-9, 1e-12, 1e-5)  # summed in float32
    True
    """
    if math.isclose(value, reference, rel_tol=rel_tol, abs_tol=abs_tol):
        return True
    if not noise_rel_tol or not math.isclose(value, reference, rel_tol=noise_rel_tol, abs_tol=abs_tol):
        return False
    return not rounded(value)


@dataclass(frozen=True)
class Call:
    """One call ``function(*args)`` of a student's function.

    List arguments are stored as tuples (so that calls can be dictionary keys) and reach the
    student's function as fresh lists.
    """

    function: str
    args: tuple[Any, ...]

    def __post_init__(self) -> None:
        # an exercise author writes the lecture's lists as lists; a call must stay hashable (a dict key)
        object.__setattr__(self, "args", _frozen(self.args))

    @property
    def text(self) -> str:
        """The call as a student would write it, e.g. ``dcg([1, 0, 2], 3)``."""
        return f"{self.function}({', '.join(_literal(a) for a in self.args)})"


class Expect(StrEnum):
    """What a case asks of the number a call returns."""

    #: The exercise's reference value.
    REFERENCE = "reference"
    #: A plain number, whatever its value: the contract (with ``check_unchanged``: and the input kept).
    NUMBER = "number"
    #: ``factor`` times what the student's own function returns on ``companion``: a property that holds
    #: whatever else the student got wrong, so that one mistake costs only the group it is about.
    SAME_AS = "same as"


#: How :attr:`Case.provenance` shows :attr:`Case.constructed` to students and tutors; display only:
#: the grader reads the flag, never this text back.
CONSTRUCTED = "constructed: "


@dataclass(frozen=True)
class Case:
    """One test call, what its result must be, and where it comes from."""

    call: Call
    #: What the case checks (``rank 1 is not discounted``) or where it comes from (a lecture slide):
    #: what a hidden case's message and the report say about it.
    what: str
    #: Also check that the caller's list (the first argument) is unchanged after the call.
    check_unchanged: bool = False
    expect: Expect = Expect.REFERENCE
    #: With :attr:`Expect.SAME_AS`: the other call of the student's function, and the factor.
    companion: Call | None = None
    factor: float = 1.0
    #: Also accepted: the ratio of the student's own values on these two calls (0.0 where the second
    #: is 0), e.g. a normalised measure that divides the student's own helper's values as its
    #: definition says. A follow-up error (a wrong helper, used rightly) then costs only the groups
    #: of its cause.
    own_ratio: tuple[Call, Call] | None = None
    #: Drawn for one submission from a :class:`CaseTemplate` (its reference value is not cached).
    drawn: bool = False
    #: What the case checks, in words a student can use: said where a hidden case fails, whose input
    #: cannot be shown (e.g. "a k beyond the list must give the value of the whole list").
    meaning: str = ""
    #: Written for the exercise, not taken from a lecture or paper (:attr:`provenance` shows it).
    constructed: bool = False

    def __post_init__(self) -> None:
        if (self.expect is Expect.SAME_AS) != (self.companion is not None):
            raise ValueError(f"{self.call.text}: a companion call is given exactly when the case expects SAME_AS")
        if self.companion is not None and self.companion.function != self.call.function:
            raise ValueError(f"{self.call.text}: the companion {self.companion.text} calls another function")

    @property
    def provenance(self) -> str:
        """Where the case comes from, as the notebook's test cells and ``results.json`` show it.

        :attr:`what`, with :data:`CONSTRUCTED` before it when :attr:`constructed` is set.
        """
        return CONSTRUCTED + self.what if self.constructed else self.what

    @property
    def function(self) -> str:
        return self.call.function

    @property
    def extra_calls(self) -> tuple[Call, ...]:
        """The other calls the case needs: its companion, then the two calls of :attr:`own_ratio`."""
        return ((self.companion,) if self.companion is not None else ()) + (self.own_ratio or ())


@dataclass(frozen=True, kw_only=True)
class CaseTemplate:
    """A recipe for fresh cases of one edge case of a group, drawn anew for every graded submission.

    A hidden input that leaks (through a cache the sandbox cannot close) is then worth nothing: a
    hard-coded answer to a known input fails the fresh instance beside it. ``draw`` must return a
    case that every correct solution passes and that each known mistake passes or fails exactly as
    it does the group's fixed cases (a property test draws many instances to prove it).
    """

    #: What every instance checks, e.g. ``drawn for this submission: one relevant document at a random rank``.
    provenance: str
    draw: Callable[[random.Random], Case]

    def instance(self, rng: random.Random) -> Case:
        """One fresh case, marked as drawn and named after the template."""
        return replace(self.draw(rng), what=self.provenance, constructed=False, drawn=True)


@dataclass(frozen=True)
class TestGroup:
    """One nbgrader grade cell: a named property of one function, worth ``points``."""

    __test__ = False  # not a pytest test class, whatever its name

    grade_id: str
    function: str
    description: str
    points: float
    visible: bool
    cases: tuple[Case, ...]
    #: Fresh cases drawn per submission beside the fixed ones (hidden groups).
    templates: tuple[CaseTemplate, ...] = ()

    @property
    def contract(self) -> bool:
        """Whether the group only asks for plain numbers (and unchanged input), whatever their values."""
        return all(case.expect is Expect.NUMBER for case in self.cases)


@dataclass(frozen=True)
class Mistake:
    """A known mistake: a stable ID (in ``results.json``), a title and the explanation students read."""

    id: str
    title: str
    explanation: str


@dataclass(frozen=True)
class AnsweredPart:
    """Grade cells scored from answers read as data: nothing of this part runs (a calculation by hand).

    Its :attr:`mark` gets the student's id, the sources of the submitted notebook's cells among
    :attr:`cell_ids` and the release's cells among :attr:`published_ids` (what the release
    publishes for every student, never what the submission says it published) and the course's
    :class:`Classmates`, and returns the part's result: one test per group, its findings, and
    :attr:`~..StudentResult.copied_from` where the answers fit another student's variant.
    """

    #: One per grade cell, with its points; no cases (nothing is called).
    groups: tuple[TestGroup, ...]
    #: The part's code cells (answers, read-only cells, its grade cells): never run as the student's code.
    cell_ids: frozenset[str]
    #: The release's cells the part reads its data from (e.g. the cell that derives each student's variant).
    published_ids: frozenset[str]
    mark: Callable[[str, Mapping[str, str], Mapping[str, str], Classmates], StudentResult]
    #: Writes the part's cells into the instructor's notebook at the given path and returns the grade
    #: ids it changed (``sync`` and ``release`` call it before the test cells); None: the part's cells
    #: are written by hand in Jupyter and nothing rewrites them.
    sync: Callable[[Path], list[str]] | None = None
    #: A variant per student, from a salt the release publishes (the paper exam, the copying report's
    #: by-hand half, a new offering's salt); None: every student answers the same.
    by_hand: ByHand | None = None


@dataclass(frozen=True)
class Classmates:
    """The course's students, for an answered part that checks whether answers fit another student's variant.

    Both grading paths give the same: the gradebook's roster and every submission's accepted id.
    """

    ids: frozenset[str] = frozenset()
    #: Whether answers that fit another student's variant (and not the student's own) still earn
    #: follow-through points (the course's ``c.SandboxedExecute.credit_copied_follow_through``).
    credit_copied: bool = False


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per exercise
class Exercise:
    """Everything the engine needs to grade, diagnose and report one exercise."""

    #: nbgrader's assignment id and the notebook's file name.
    assignment: str
    notebook: str
    #: Shown in feedback and report headings, e.g. "Cumulative gain".
    title: str
    groups: tuple[TestGroup, ...]
    #: The reference value of a call (computed by the exercise's reference implementation).
    reference: Callable[[Call], float]
    #: Calls made only for diagnosis, after the test calls.
    probes: tuple[Call, ...]
    #: Recognise mistakes from the probe records.
    diagnose: Callable[[Mapping[Call, CallRecord]], Diagnosis]
    catalogue: tuple[Mistake, ...]
    #: The definition students are graded against, as trusted HTML written by the course author.
    definition_html: str
    #: A student's value agrees with the reference when this close (relative and absolute).
    rel_tol: float = 1e-9
    abs_tol: float = 1e-12
    #: Also when this close (relative) and not the reference rounded to a few decimals: the noise of
    #: single precision (a sum in float32), which the course does not ask about. 0: no such allowance.
    noise_rel_tol: float = 0.0
    #: Whether a function's values (``{call: value}``, every finite number the student's functions
    #: returned on the test calls) are those of *some* way of computing the measure: the definition's
    #: or a known mistake's. Beyond the contract, a group counts only for a function that does
    #: (:func:`~..scoring.score`); by default every function does.
    resembles: Callable[[str, Mapping[Call, float]], bool] = field(default=lambda function, values: True)
    #: Calls drawn per submission (ordinary inputs, no test cases) whose values :attr:`resembles` judges;
    #: made in a blind process like the hidden tests. None: it judges the test calls' values.
    witnesses: Callable[[random.Random], tuple[Call, ...]] | None = None
    #: Told to a student whose function changed its input list.
    unchanged_hint: str = "do not modify the input list"
    #: Changes whenever the exercise's code could grade an unchanged notebook differently: a digest of
    #: its own source and of the reference functions it calls (the engine's own code is digested apart).
    #: Left empty, it is derived from the modules of the exercise's functions (:meth:`__post_init__`).
    fingerprint: str = ""
    #: The sandbox's resource limits for this exercise's submissions (a heavier exercise raises them);
    #: ``python -m autograder grade`` and ``SandboxedExecute`` may override them.
    limits: Limits = field(default_factory=Limits)
    #: A part of the notebook graded from its answers without running them; None: every group is code.
    answered: AnsweredPart | None = None
    _expected: dict[Call, float] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.fingerprint:
            # never empty: with "" the resume cache would reuse results graded by an exercise since changed
            object.__setattr__(self, "fingerprint", self._derived_fingerprint())

    def _derived_fingerprint(self) -> str:
        """A digest of the source files of the exercise's functions and what they import of their package."""
        functions: list[Callable[..., Any]] = [self.reference, self.diagnose, self.resembles]
        functions += [self.witnesses] if self.witnesses is not None else []
        functions += [self.answered.mark] if self.answered is not None else []
        functions = [inspect.unwrap(f.func if isinstance(f, functools.partial) else f) for f in functions]
        try:
            return code_digest(*functions)
        except (ValueError, KeyError, AttributeError):  # no source file (built in): its name is all there is
            names = [(getattr(f, "__module__", ""), getattr(f, "__qualname__", type(f).__qualname__))
                     for f in functions]
            return hashlib.sha256(repr(names).encode()).hexdigest()

    def expected(self, case: Case) -> float:
        """The reference value of ``case``'s call (computed once for a fixed case); for any kind of case."""
        if case.drawn:  # one submission's: caching it would grow with the class
            return self.reference(case.call)
        if case.call not in self._expected:
            self._expected[case.call] = self.reference(case.call)
        return self._expected[case.call]

    def agrees(self, value: float, reference: float) -> bool:
        """Whether a student's value counts as the reference value (see :func:`within_tolerance`)."""
        return within_tolerance(value, reference, self.rel_tol, self.abs_tol, self.noise_rel_tol)

    @property
    def graded_groups(self) -> tuple[TestGroup, ...]:
        """Every grade cell with points, in the notebook's order: the answered part's, then the code's."""
        return (self.answered.groups if self.answered is not None else ()) + self.groups

    @property
    def max_score(self) -> float:
        """Total points of the exercise (the answered part's included)."""
        return sum(group.points for group in self.graded_groups)

    def mistake(self, mistake_id: str) -> Mistake:
        """The catalogue entry ``mistake_id``; ``KeyError`` names the known ones."""
        for entry in self.catalogue:
            if entry.id == mistake_id:
                return entry
        raise KeyError(f"no mistake {mistake_id!r} in the catalogue; known: {', '.join(m.id for m in self.catalogue)}")

    def group(self, grade_id: str) -> TestGroup:
        """The group with ``grade_id``; ``KeyError`` names the known ids if there is none."""
        for candidate in self.graded_groups:
            if candidate.grade_id == grade_id:
                return candidate
        raise KeyError(f"no test group {grade_id!r}; known: {', '.join(g.grade_id for g in self.graded_groups)}")
