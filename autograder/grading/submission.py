"""Grade one student's submission: read the notebook, run it in the sandbox, score, diagnose."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..sandbox import (
    NOT_RUN_CALL,
    Budget,
    CallOrder,
    CallOutcome,
    CallRecord,
    CellOutcome,
    Limits,
    RunOutcome,
    Sandbox,
    run_submission,
)
from ..sandbox.runs.deadline import OUT_OF_BUDGET, default_budget
from .compiled import CompiledCode
from .definition.answered import with_answers
from .definition.calls import CallPlan, call_orders, extra_call_orders, next_call_id, plan_calls, skip_rest_of_group
from .definition.draws import draw_label, draw_seed, drawn_groups, drawn_witnesses
from .definition.exercise import Call, Classmates, Exercise
from .model import CellProblem, Status, StudentResult, TestResult
from .reading.folder_bounds import DEFAULT_MAX_FOLDER_BYTES, DEFAULT_MAX_FOLDER_FILES
from .reading.notebook import (
    DEFAULT_MAX_NOTEBOOK_BYTES,
    FileId,
    NotebookFile,
    SubmissionProblem,
    cell_labels,
    student_code,
)
from .scoring import score
from .shown_names import HIDDEN_EXCEPTIONS, hidden_exception_name, hidden_type_name

#: Told when the process that ran the hidden tests could not be used (its own words may carry them).
BLIND_FAILED = "the hidden tests could not be run: the process running them broke the grader's protocol"
#: The message of a notebook whose code is the release's, unchanged.
NOT_ATTEMPTED = "not attempted: the notebook's code is the released notebook's, unchanged"
#: A code test's message when the submission used up its time budget (every code test then scores 0).
OUT_OF_TIME = "not scored: the notebook used up its time budget before every test had run (see above)"
#: Cells with a problem listed in a result, named in its message (the rest are counted), the longest message.
MAX_LISTED_CELLS = 20
MAX_NAMED_CELLS = 5
MAX_MESSAGE = 4000


#: Seconds each code cell and each test call may take, unless the course or the command says otherwise.
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class GradingSettings:
    """What every submission of a batch is graded with."""

    exercise: Exercise
    #: Seconds each code cell and each call may take.
    timeout: float
    #: Grade ids of the notebook's cells that are not the student's code (tests, helpers).
    skip_ids: frozenset[str]
    #: Larger notebooks are refused unread.
    max_notebook_bytes: int = DEFAULT_MAX_NOTEBOOK_BYTES
    #: A submission folder with more entries, or more bytes of files, is refused unlisted
    #: (:mod:`.reading.folder_bounds`).
    max_folder_files: int = DEFAULT_MAX_FOLDER_FILES
    max_folder_bytes: int = DEFAULT_MAX_FOLDER_BYTES
    #: The course's own files: a notebook that is one of them (a hard link) is refused.
    course_files: frozenset[FileId] = frozenset()
    #: The course's secret that keys the draw of fresh hidden instances (:mod:`.definition.draws`); never
    #: mounted into a sandbox. Empty: instances anyone can recompute (tests, examples).
    draw_key: bytes = field(default=b"", repr=False)
    #: The release's own code cells (the stubs): a notebook whose code is exactly these was not attempted.
    release_cells: tuple[str, ...] | None = None
    #: The sandbox's resource limits; None: the exercise's (:attr:`~.Exercise.limits`). Carried here so
    #: that a Dask worker, which chooses its own sandbox, uses the coordinator's.
    limits: Limits | None = None
    #: The release's cells the exercise's answered part reads its data from, as ``(grade id, source)``
    #: pairs (:attr:`~.AnsweredPart.published_ids`): what the release gave every student.
    published: tuple[tuple[str, str], ...] = ()
    #: The course's students, against whose variants the answered part checks the answers (and whether
    #: follow-through is credited for answers that fit another's). Left out of the grading fingerprint
    #: but its setting: a saved result is checked against the class of the run
    #: (:func:`.definition.answered.answers_current`).
    classmates: Classmates = field(default_factory=Classmates)

    @property
    def sandbox_limits(self) -> Limits:
        """The limits each submission's sandbox is given: :attr:`limits`, else the exercise's."""
        return self.exercise.limits if self.limits is None else self.limits

    @property
    def budget(self) -> float:
        """Seconds one submission may take in all (charged: see sandbox.deadline): the limits' ``budget_seconds``,
        else :func:`~autograder.sandbox.runs.deadline.default_budget` of the timeout."""
        configured = self.sandbox_limits.budget_seconds
        return default_budget(self.timeout) if configured is None else float(configured)


def submission_seed(student_id: str, file: NotebookFile, settings: GradingSettings) -> bytes:
    """The seed of a submission's fresh instances, from the course's secret (b"" for a notebook without code).

    Drawn where the secret is (the coordinator), so that a grading process elsewhere needs only this.
    """
    try:
        cells = student_code(file, settings.skip_ids)
    except SubmissionProblem:  # graded as an error before any draw: no seed needed
        return b""
    return draw_seed(settings.draw_key, student_id, cells)


def grade_submission(
    student_id: str, file: NotebookFile, submitted: Path, settings: GradingSettings, sandbox: Sandbox, slot: int = 0,
    *, seed: bytes | None = None,
) -> StudentResult:
    """Grade one student's notebook (already read from ``submitted/<student_id>/``) and return their result.

    ``seed`` is :func:`submission_seed`'s, where the caller drew it already (then ``settings.draw_key``
    is not used: a grading process on another machine is handed the seed, never the secret).

    Never raises for anything the submission does: a corrupt, hanging or crashing submission
    gets a status (``error``, ``timeout``) and a message.

    Raises
    ------
    MachineOverloaded
        When the machine, not the submission, used up the time: the student must stay ungraded.
    """
    result = _grade_code(student_id, file, submitted, settings, sandbox, slot, seed)
    return with_answers(result, file, settings.exercise.answered, dict(settings.published), settings.classmates)


def _grade_code(
    student_id: str, file: NotebookFile, submitted: Path, settings: GradingSettings, sandbox: Sandbox, slot: int,
    seed: bytes | None,
) -> StudentResult:
    exercise = settings.exercise
    try:
        cells = student_code(file, settings.skip_ids)
    except SubmissionProblem as problem:
        return StudentResult.without_grading(student_id, problem.status, problem.message, exercise.max_score)
    path = submitted / student_id / exercise.assignment / file.name
    if _unchanged_release(cells, settings.release_cells):
        result = StudentResult.without_grading(student_id, Status.NOT_ATTEMPTED, NOT_ATTEMPTED, exercise.max_score)
        result.notebook, result.sha256 = str(path), file.sha256
        return result
    labels = cell_labels(file, settings.skip_ids, frozenset(group.function for group in exercise.groups))
    labels = labels if len(labels) == len(cells) else []
    # this submission's fresh instances beside the fixed cases: a leaked hidden input is worth nothing
    seed = draw_seed(settings.draw_key, student_id, cells) if seed is None else seed
    calls = _SubmissionCalls.drawn(exercise, seed)
    outcome = _run(calls, cells, settings, sandbox, slot, seed)
    problems = _cell_problems(outcome)
    result = StudentResult(
        student_id=student_id, status=Status.GRADED, score=0.0, max_score=exercise.max_score,
        # every result stays small, whatever the notebook holds: the first few cells are listed
        cells=problems[:MAX_LISTED_CELLS], notebook=str(path), sha256=file.sha256, instances=draw_label(seed),
        compiled=CompiledCode.of(outcome.cells, cells),
    )
    if outcome.fatal:
        result.status = Status.ERROR
        result.message = f"could not grade the notebook: {outcome.fatal}"
        return result
    _score(result, calls, outcome, settings, labels)
    messages = ([file.note] if file.note else []) + _cell_messages(problems, settings.timeout, labels)
    messages += _hang_messages(calls, outcome, settings.timeout) + outcome.notes
    if _timed_out(calls, outcome, result.cells):
        result.status = Status.TIMEOUT
    text = "; ".join(messages)
    result.message = (text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "...") if messages else None
    return result


@dataclass(frozen=True)
class _SubmissionCalls:
    """Every call one submission is asked, by id: the tests' (with this submission's drawn instances), the
    probes of the diagnosis, and the witness calls drawn for it."""

    plan: list[CallPlan]
    probes: dict[int, Call]
    witnesses: dict[int, Call]
    #: For a test call that hung: the other calls of its group (:func:`~.definition.calls.skip_rest_of_group`).
    rest_of_group: Callable[[int], list[int]]

    @classmethod
    def drawn(cls, exercise: Exercise, seed: bytes) -> _SubmissionCalls:
        """The calls for the submission whose instances ``seed`` draws; ids in one sequence."""
        plan = plan_calls(exercise, groups=drawn_groups(exercise, seed))
        first_probe = next_call_id(plan)
        probes = {first_probe + number: probe for number, probe in enumerate(exercise.probes)}
        first_witness = first_probe + len(probes)
        witnesses = {first_witness + n: call for n, call in enumerate(drawn_witnesses(exercise, seed))}
        return cls(plan, probes, witnesses, skip_rest_of_group(plan))

    def skip_after_shown(self, call_id: int) -> list[int]:
        """The first process's calls not worth making after ``call_id`` hung."""
        # a hung probe makes the rest of the diagnosis unreliable: skip the other probes
        if call_id in self.probes:
            return [other for other in self.probes if other > call_id]
        return self.rest_of_group(call_id)

    def skip_after_extra(self, call_id: int) -> list[int]:
        """The third process's calls not worth making after ``call_id`` hung."""
        # a hung witness: the others would say no more than the ones that finished
        if call_id in self.witnesses:
            return [other for other in self.witnesses if other > call_id]
        return self.rest_of_group(call_id)


def _run(
    calls: _SubmissionCalls, cells: list[str], settings: GradingSettings, sandbox: Sandbox, slot: int, seed: bytes,
) -> RunOutcome:
    """Run the submission's calls in three processes and put their outcomes together.

    Three, so that nothing shown to the student comes from one that has seen a hidden input: the
    first makes the visible tests and the probes (its messages may be shown), the second, started
    afterwards, only the hidden tests (only its numbers and built-in names count), the third, also
    blind, the cases' extra calls (companions, own-ratio calls: a function with state cannot answer
    a companion with what its case's call returned) and the witness calls. The first gets its calls
    all at once: it holds nothing hidden that a look ahead could find; the blind ones get each call
    only after the one before has reported.
    """
    budget = Budget(settings.budget)  # one for all three processes
    visible = [p for p in calls.plan if p.group.visible]
    hidden = [p for p in calls.plan if not p.group.visible]
    shown = run_submission(
        sandbox, cells, call_orders(visible) + [CallOrder(i, p.function, p.args) for i, p in calls.probes.items()],
        timeout=settings.timeout, budget=budget, slot=slot, skip_after_timeout=calls.skip_after_shown, batched=True,
        compiled=True,  # the compiled record comes from this process alone: it never holds a hidden input
    )
    blind_runs = [run_submission(
        sandbox, cells, call_orders(hidden), timeout=settings.timeout, budget=budget, slot=slot,
        skip_after_timeout=calls.rest_of_group,
    )]
    extras = extra_call_orders(calls.plan) + [CallOrder(i, c.function, c.args) for i, c in calls.witnesses.items()]
    random.Random(seed).shuffle(extras)  # no call's place (or count before it) says what it is for
    if extras:
        blind_runs.append(run_submission(
            sandbox, cells, extras, timeout=settings.timeout, budget=budget, slot=slot,
            skip_after_timeout=calls.skip_after_extra,
        ))
    shown_errors = shown_error(shown.calls.values())
    return RunOutcome(
        cells=shown.cells,
        calls={**shown.calls, **{i: _blinded(r, shown_errors) for run in blind_runs for i, r in run.calls.items()}},
        # the blind processes' own words are never shown: a fixed sentence stands for them
        fatal=shown.fatal or (BLIND_FAILED if any(run.fatal for run in blind_runs) else None),
        notes=list(dict.fromkeys(shown.notes + [note for run in blind_runs for note in run.notes])),
        out_of_budget=shown.out_of_budget or any(run.out_of_budget for run in blind_runs),
    )


def _cell_problems(outcome: RunOutcome) -> list[CellProblem]:
    """The student's cells that did not run cleanly, in notebook order."""
    return [
        CellProblem(index, record.outcome, record.error, record.message, record.detail)
        for index, record in sorted(outcome.cells.items())
        if record.outcome is not CellOutcome.OK
    ]


def _score(
    result: StudentResult, calls: _SubmissionCalls, outcome: RunOutcome, settings: GradingSettings, labels: list[str],
) -> None:
    """The tests' points, the diagnosis, and the failed tests that a broken cell explains."""
    exercise = settings.exercise
    witnessed = {call: outcome.calls.get(call_id, NOT_RUN_CALL) for call_id, call in calls.witnesses.items()}
    tests = score(exercise, calls.plan, outcome.calls, settings.timeout, witnessed if calls.witnesses else None)
    if outcome.out_of_budget:
        # which tests had run when the time ran out depends on the machine's speed: none counts, so that
        # two runs (or the two grading paths) give one score
        tests = [replace(test, points=0.0, passed=False, message=OUT_OF_TIME) for test in tests]
    probe_records = {probe: outcome.calls.get(call_id, NOT_RUN_CALL) for call_id, probe in calls.probes.items()}
    result.diagnosis = exercise.diagnose(probe_records)
    result.score = sum(test.points for test in tests)
    result.tests = _with_broken_cell(tests, result.cells, labels)


def _cell_messages(problems: list[CellProblem], timeout: float, labels: list[str]) -> list[str]:
    """The first few cells with a problem, named; the rest counted."""
    messages = [cell_message(cell, timeout, _label(cell, labels)) for cell in problems[:MAX_NAMED_CELLS]]
    if len(problems) > MAX_NAMED_CELLS:
        messages.append(f"and {len(problems) - MAX_NAMED_CELLS} more code cells that did not run cleanly")
    return messages


def _timed_out_calls(calls: Iterable[int], outcome: RunOutcome) -> int:
    return sum(1 for i in calls if outcome.calls.get(i, NOT_RUN_CALL).outcome is CallOutcome.TIMEOUT)


def _hang_messages(calls: _SubmissionCalls, outcome: RunOutcome, timeout: float) -> list[str]:
    """What the student is told about test calls and probes that did not finish."""
    messages = []
    hung = _timed_out_calls((i for p in calls.plan for i in p.ids), outcome)
    if hung:
        messages.append(f"{hung} test call{'s' if hung > 1 else ''} did not finish within {timeout:g} s")
    if _timed_out_calls(calls.probes, outcome):
        messages.append("the mistake diagnosis stopped early: a probe call did not finish")
    return messages


def _timed_out(calls: _SubmissionCalls, outcome: RunOutcome, problems: list[CellProblem]) -> bool:
    """Whether the submission's status is ``timeout``: a test call or a listed cell hung, or the budget ran out."""
    # a probe that hangs costs no points and is no timeout
    hung_call = _timed_out_calls((i for p in calls.plan for i in p.ids), outcome) > 0
    hung_cell = any(cell.outcome is CellOutcome.TIMEOUT for cell in problems)
    return hung_call or hung_cell or bool(outcome.notes)


def shown_error(records: Iterable[CallRecord]) -> frozenset[str]:
    """The exception name, beyond the short list, that a blind record may keep: one the first process raised.

    Its name is on the page already (visible rows, diagnosis), so a hidden case may say it raised the
    same one. One such name at most, else code that raised every built-in exception on the visible
    calls would have them all to encode a hidden input with.
    """
    raised = {r.error for r in records if r.outcome is CallOutcome.RAISED and r.error}
    extra = raised - HIDDEN_EXCEPTIONS
    return frozenset(extra) if len(extra) == 1 else frozenset()


def _blinded(record: CallRecord, shown_errors: frozenset[str] = frozenset()) -> CallRecord:
    """A record from the process that saw hidden inputs, with every text the student chose removed
    (an exception's name is kept if the first process, which never held a hidden input, raised it too)."""
    error = record.error if record.error in shown_errors else hidden_exception_name(record.error or "")
    return replace(
        record, message=None, detail=None,
        error=error if record.error is not None else None,
        type_name=hidden_type_name(record.type_name) if record.type_name is not None else None,
        empty=False,  # one more bit the student's code could choose
    )


def _unchanged_release(cells: list[str], release: tuple[str, ...] | None) -> bool:
    """Whether the student's code is the release's, unchanged (trailing blanks aside)."""
    return release is not None and [c.rstrip() for c in cells] == [c.rstrip() for c in release]


def _label(cell: CellProblem, labels: list[str]) -> str | None:
    return labels[cell.index] if cell.index < len(labels) else None


def _with_broken_cell(tests: list[TestResult], problems: list[CellProblem], labels: list[str]) -> list[TestResult]:
    """Failed tests whose function could not run because a cell of the student's failed: say so.

    "raised Exception on a hidden case" (the hidden process's exception names are cut to a short
    list) or "does not define" says nothing useful when the real cause is a cell that did not run.
    """
    broken = next((p for p in problems if p.outcome is CellOutcome.ERROR), None)
    if broken is None:
        return tests
    where = _label(broken, labels) or f"your code cell {broken.index + 1}"
    cause = f"{where} did not run ({broken.error}): fix that first"
    vague = ("raised Exception", "raised NameError", "does not define")
    return [
        replace(test, message=f"{test.message.split(' on ')[0].split(' (')[0]}: {cause}")
        if not test.passed and any(phrase in test.message for phrase in vague) else test
        for test in tests
    ]


def cell_message(cell: CellProblem, timeout: float, label: str | None = None) -> str:
    """What the student is told about one of their cells that did not run cleanly.

    ``label`` says where the cell is as the student sees it (:func:`~.reading.notebook.cell_labels`).
    """
    where = label or f"your code cell {cell.index + 1}"
    if cell.outcome is CellOutcome.ERROR:
        return f"{where} raised {cell.error}: {cell.message}"
    if cell.outcome is CellOutcome.TIMEOUT and (cell.detail or "").startswith(OUT_OF_BUDGET):
        return f"{where} was still running when the notebook's time budget ran out"
    if cell.outcome is CellOutcome.TIMEOUT:
        return f"{where} did not finish within {timeout:g} s and was skipped"
    if cell.outcome is CellOutcome.CRASHED:
        return f"{where} ended the Python process and was skipped"
    return f"{where} was not run"
