"""The grading engine: it grades any :class:`~.definition.exercise.Exercise` and knows none by name.

Layers below: :mod:`autograder.sandbox` (where student code runs). Layers above: the output
(:mod:`autograder.output`) reads the :mod:`.model` records this package builds.
"""

from .batch import Executor, Graded, Job, ThreadedExecutor, default_workers, grade_batch, grade_job, student_folders
from .definition.draws import draw_label, draw_seed, drawn_groups, drawn_witnesses
from .definition.exercise import (
    AnsweredPart,
    Call,
    Case,
    CaseTemplate,
    Classmates,
    Exercise,
    Expect,
    Mistake,
    TestGroup,
    within_tolerance,
)
from .definition.hand_hook import ByHand, CopiedAnswers, WorkedWay
from .final import FinalScore
from .model import (
    SCHEMA_VERSION,
    BatchResult,
    CaseResult,
    CellMark,
    CellProblem,
    Diagnosis,
    Finding,
    GroupInfo,
    Lateness,
    ManualMarks,
    Status,
    StudentResult,
    TestResult,
)
from .submission import GradingSettings, grade_submission, submission_seed

__all__ = [
    "SCHEMA_VERSION",
    "AnsweredPart",
    "BatchResult",
    "ByHand",
    "Call",
    "Case",
    "CaseResult",
    "CaseTemplate",
    "CellMark",
    "CellProblem",
    "Classmates",
    "CopiedAnswers",
    "Diagnosis",
    "Executor",
    "Exercise",
    "Expect",
    "FinalScore",
    "Finding",
    "Graded",
    "GradingSettings",
    "GroupInfo",
    "Job",
    "Lateness",
    "ManualMarks",
    "Mistake",
    "Status",
    "StudentResult",
    "TestGroup",
    "TestResult",
    "ThreadedExecutor",
    "WorkedWay",
    "default_workers",
    "draw_label",
    "draw_seed",
    "drawn_groups",
    "drawn_witnesses",
    "grade_batch",
    "grade_job",
    "grade_submission",
    "student_folders",
    "submission_seed",
    "within_tolerance",
]
