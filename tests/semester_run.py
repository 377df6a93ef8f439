"""Shared by the semester tests: one course through a real exchange, its students and the tutor's buttons.

The students, what each hands in, and the scores nbgrader's rules and the catalogue's groups give
them (written out here, never read from a grading run); :class:`Semester` runs the tutor's and the
students' real nbgrader commands (and ``python -m autograder grade``) on a course in a folder of its own.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
from byhand_answers import BY_HAND_POINTS, LOST, answer_by_hand, answer_cell, copier_of, stranger_of
from nbgrader.api import Gradebook

from autograder.course.materials.example_notebooks import fill_solutions
from autograder.course.materials.nbgrader_commands import tool_environment
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import STEPS
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant
from autograder.exercises.ndcg.byhand.steps import right_steps
from autograder.exercises.ndcg.catalogue import CATALOGUE

from grading_run import CORRECT_DCG, CORRECT_NDCG, ROOT, whole_course

COURSE_ID = "ir-ranking-evaluation"
NBGRADER = Path(sys.executable).parent / "nbgrader"
POINTS = {group.grade_id: group.points for group in EXERCISE.groups}
FULL = EXERCISE.max_score
LN_DCG = CORRECT_DCG.replace("math.log2(i + 2)", "math.log(i + 2)")
SYNTAX_ERROR_DCG = "def dcg(rels, k)\n    return 0"  # no colon
LN_LOSES = next(item for item in CATALOGUE if item.id == "log-base").loses
MARKED = "test_dcg_discount"  # bob's tutor gives its full points by hand
assert MARKED in LN_LOSES
COMMENT = "Right idea; the discount needs log base 2."
STEP_POINTS = {step.grade_id: step.points for step in STEPS}
#: bob works Task 1.2 with the gain 2^rel - 1: DCG and iDCG wrong, nDCG his own DCG / iDCG (follow-through),
#: which is not his list's nDCG (a natural log would cancel in the ratio); his tutor takes that step's point
#: back by hand (0 of 1).
BY_HAND_WAY = {"bob": "gain 2^rel - 1"}
TAKEN_BACK = "byhand_ndcg"
#: On the gradebook's roster, never submits: every output lists her as missing with 0.
ABSENT = "gwen"

#: The salt and pool the course's source publishes: every list of this semester (the release is generated from it).
SALT, POOL = published_variant(nbformat.read(ROOT / "source" / "ndcg" / "ndcg.ipynb", as_version=4))
#: Hands in ada's Task 1.2 answers: their list has ada's grades in another order (issue 33.2).
COPIER = copier_of("ada", SALT, POOL)
#: Works on a laptop and typed another student's id (of no one in this course, whose list's values are
#: none of the course's: not also a copy) into STUDENT_ID, then worked that id's list out right (issue 33.3).
LAPTOP = "hal"
TYPED = stranger_of(LAPTOP, SALT, POOL, ("ada", "bob", "carol", "dave", "erin", "finn", ABSENT, COPIER))

#: What each student submits: (dcg, ndcg) or None for the release unchanged; the late ones after the due date.
ON_TIME = {
    "ada": (CORRECT_DCG, CORRECT_NDCG),
    "bob": (LN_DCG, CORRECT_NDCG),
    "dave": (LN_DCG, CORRECT_NDCG),  # his first submission; the second one, late, is correct
    "erin": None,
    "finn": (SYNTAX_ERROR_DCG, CORRECT_NDCG),
    COPIER: (CORRECT_DCG, CORRECT_NDCG),
    LAPTOP: (CORRECT_DCG, CORRECT_NDCG),
}
LATE = {"carol": (CORRECT_DCG, CORRECT_NDCG), "dave": (CORRECT_DCG, CORRECT_NDCG)}
#: The Task 1.2 answer cell of those who do not work their own list: ada's numbers, and the typed id's.
ANSWERS = {COPIER: answer_cell(right_steps(student_list("ada", SALT, POOL), CUTOFF)),
           LAPTOP: answer_cell(right_steps(student_list(TYPED, SALT, POOL), CUTOFF))}
#: Task 1.2's points before any mark, on the list each submitter was given: the copier loses DCG (ada's is
#: not theirs) and the follow-through; the laptop's answers are another list's, no step of theirs.
BY_HAND = {
    "ada": BY_HAND_POINTS, "carol": BY_HAND_POINTS, "dave": BY_HAND_POINTS, "finn": BY_HAND_POINTS,
    "bob": BY_HAND_POINTS - sum(STEP_POINTS[g] for g in LOST[BY_HAND_WAY["bob"]]),
    "erin": 0.0,
    COPIER: BY_HAND_POINTS - STEP_POINTS["byhand_dcg"] - STEP_POINTS["byhand_ndcg"],
    LAPTOP: 0.0,
}
#: nbgrader's "zero" penalty takes a late submission's whole score; carol's extension covers her lateness.
EXPECTED_RAW = {
    "ada": FULL,
    # the mark restores the discount test; the by-hand gain costs DCG and iDCG, the tutor the nDCG step
    "bob": FULL - sum(POINTS[g] for g in LN_LOSES) + POINTS[MARKED]
    - STEP_POINTS["byhand_dcg"] - STEP_POINTS["byhand_idcg"] - STEP_POINTS[TAKEN_BACK],
    "carol": FULL,
    "dave": FULL,
    "erin": 0.0,  # not attempted
    "finn": BY_HAND_POINTS,  # no code runs (`dcg` is not defined); Task 1.2 is read, not run, and right
    COPIER: FULL - BY_HAND_POINTS + BY_HAND[COPIER],
    LAPTOP: FULL - BY_HAND_POINTS + BY_HAND[LAPTOP],
}
EXPECTED_FINAL = {**EXPECTED_RAW, "dave": 0.0}
#: Every student of the roster, as nbgrader's export and the LMS files list them.
EXPORTED = {**EXPECTED_FINAL, ABSENT: 0.0}

ORDERS = {
    "batch": ("grade", "mark", "grade --student dave", "release", "fetch", "export"),
    "nbgrader": ("autograde", "mark", "generate", "autograde --student dave", "release", "fetch", "export"),
    "batch then nbgrader": ("grade", "autograde", "mark", "grade --student dave", "generate", "release", "fetch",
                            "export"),
    "nbgrader then batch, mark after generate": ("autograde", "grade", "generate", "mark", "release", "fetch",
                                                  "export"),
}


def _run(cwd: Path, *args: str, user: str | None = None, home: Path | None = None) -> subprocess.CompletedProcess:
    env = tool_environment()
    if user is not None:  # nbgrader names a submission by the login name
        env.update(USER=user, LOGNAME=user, HOME=str(home))
    done = subprocess.run([str(NBGRADER), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
    return done


def autograder(course: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m autograder ARGS`` in ``course``, as a tutor runs it (with its table, without progress bar)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=600)


class Semester:
    """The course, the exchange and the students' folders of one run."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp
        self.course = whole_course(tmp / "course")
        self.exchange = tmp / "exchange"
        self.exchange.mkdir()
        os.chmod(self.exchange, 0o777)  # as nbgrader's docs ask of a shared exchange
        self.homes = tmp / "homes"
        self.extension = None
        self.due: datetime | None = None
        self.graded_summary = ""  # what the last `python -m autograder grade` printed
        self.tables: list[str] = []  # what each `python -m autograder grade` printed, its table included

    def copied_to(self, tmp: Path) -> Semester:
        """This semester as it stands, in ``tmp``: course, exchange and homes copied (none holds its folder's path)."""
        shutil.copytree(self.root, tmp, symlinks=True, dirs_exist_ok=True)
        run = copy.copy(self)
        run.root, run.course, run.exchange, run.homes = tmp, tmp / "course", tmp / "exchange", tmp / "homes"
        run.tables = []
        return run

    def tutor(self, *args: str) -> subprocess.CompletedProcess:
        return _run(self.course, *args, f"--Exchange.root={self.exchange}")

    def student(self, name: str, *args: str) -> subprocess.CompletedProcess:
        home = self.homes / name
        home.mkdir(parents=True, exist_ok=True)
        # one account runs every student here: nbgrader takes the id from CourseDirectory.student_id
        return _run(home, *args, f"--Exchange.root={self.exchange}", f"--CourseDirectory.course_id={COURSE_ID}",
                    f"--CourseDirectory.student_id={name}", user=name, home=home)

    def submit(self, name: str, answer: tuple[str, str] | None) -> None:
        if not (self.homes / name / "ndcg").is_dir():
            self.student(name, "fetch_assignment", "ndcg")
        path = self.homes / name / "ndcg" / "ndcg.ipynb"
        release = nbformat.read(self.course / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
        notebook = release if answer is None else answer_by_hand(
            fill_solutions(release, {"dcg": answer[0], "ndcg": answer[1]}), name, BY_HAND_WAY.get(name, "right"),
            ANSWERS.get(name), TYPED if name == LAPTOP else None)
        nbformat.write(notebook, path)
        self.student(name, "submit", "ndcg")

    def setup(self) -> None:
        with open(self.course / "nbgrader_config.py", "a", encoding="utf-8") as config:
            config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
        self.tutor("generate_assignment", "ndcg", "--force")
        released = nbformat.read(self.course / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
        assert published_variant(released) == (SALT, POOL)  # the lists the students' names were chosen for
        self.tutor("db", "student", "add", ABSENT, "--first-name=Gwen", "--last-name=Green")
        self.tutor("release_assignment", "ndcg", "--force")
        for name, answer in ON_TIME.items():
            self.submit(name, answer)
        time.sleep(1.1)
        self.due = datetime.now(UTC).replace(tzinfo=None)
        time.sleep(1.1)
        for name, answer in LATE.items():
            self.submit(name, answer)
        carol_due = self.due + timedelta(days=1)
        with open(self.course / "nbgrader_config.py", "a", encoding="utf-8") as config:
            config.write(f'c.CourseLatePenalties.extensions = {{"ndcg": {{"carol": "{carol_due:%Y-%m-%d %H:%M:%S} UTC"}}}}\n')
        self.tutor("db", "assignment", "add", "ndcg", f"--duedate={self.due:%Y-%m-%d %H:%M:%S.%f} UTC")
        self.tutor("collect", "ndcg")

    def mark(self) -> None:
        """What formgrader's manual grading stores (the browser does it in tests/e2e/test_formgrader.py)."""
        with Gradebook(f"sqlite:///{self.course / 'gradebook.db'}") as gradebook:
            gradebook.find_grade(MARKED, "ndcg", "ndcg", "bob").manual_score = POINTS[MARKED]
            gradebook.find_grade(TAKEN_BACK, "ndcg", "ndcg", "bob").manual_score = 0.0
            gradebook.find_comment("dcg", "ndcg", "ndcg", "bob").manual_comment = COMMENT
            gradebook.db.commit()

    def step(self, step: str) -> None:
        if step == "mark":
            self.mark()
        elif step.startswith("grade"):
            done = autograder(self.course, "grade", "--timeout", "5", *step.split()[1:])
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            self.graded_summary = done.stdout
            self.tables.append(done.stdout)
        elif step.startswith("autograde"):
            self.tutor("autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5", *step.split()[1:])
        elif step == "generate":
            self.tutor("generate_feedback", "ndcg", "--force")
        elif step == "release":
            self.tutor("release_feedback", "ndcg")
        elif step == "fetch":
            for name in {**ON_TIME, **LATE}:
                self.student(name, "fetch_feedback", "ndcg")
        elif step == "export":
            self.tutor("export", "--to=export.csv")
            self.tutor("export", "--exporter=autograder.course.handback.lms_export.MoodleExportPlugin", "--to=moodle.csv")
        else:
            raise ValueError(step)

    def page(self, name: str) -> Path:
        """The newest feedback page ``name`` fetched."""
        pages = sorted((self.homes / name / "ndcg" / "feedback").rglob("ndcg.html"))
        assert pages, f"{name} fetched no feedback"
        return pages[-1]
