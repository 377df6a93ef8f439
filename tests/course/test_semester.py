"""A tutor's whole assignment cycle through a real exchange, in each order the README allows.

Six students fetch the release and submit with nbgrader's own commands (each as their own user
name, from a folder of their own): on time, a known mistake (and Task 1.2 by hand with one, whose
nDCG follows through), late with an extension, a double submission whose second one is late, the
release unchanged, a syntax error; a seventh is on the roster and never submits. The tutor
collects, sets the due date, grades on either path (``python -m autograder grade`` or ``nbgrader
autograde``) or both, gives manual marks (a test's points restored, a by-hand step's point taken
back) with a comment, re-grades one student, releases feedback (with or without
``generate_feedback`` first), and exports for the LMS. Whatever the order, every student ends with
the same final score in the gradebook, ``nbgrader export``, the Moodle file and the page the student
fetches, and where the batch command ran after the mark, in its table, ``results.json``,
``grades.csv`` and every figure of the class report (statistics, histogram, roster); the student who
never submitted is in all of them as ``missing`` with 0. Expected scores come from the catalogue's
declared groups and nbgrader's rules (penalty ``zero``), written out below. The browser part is in
tests/e2e/test_formgrader.py.
"""

from __future__ import annotations

import copy
import csv
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import graded_outputs
import nbformat
import pytest
from byhand_answers import BY_HAND_POINTS, answer_by_hand
from nbgrader.api import Gradebook

from autograder.course.example_notebooks import fill_solutions
from autograder.course.nbgrader import tool_environment
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import STEPS
from autograder.exercises.ndcg.byhand.notebook import published_variant
from autograder.exercises.ndcg.byhand.steps import every_steps
from autograder.exercises.ndcg.catalogue import CATALOGUE

from grading_run import CORRECT_DCG, CORRECT_NDCG, grade, results, whole_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]

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

#: What each student submits: (dcg, ndcg) or None for the release unchanged; the late ones after the due date.
ON_TIME = {
    "ada": (CORRECT_DCG, CORRECT_NDCG),
    "bob": (LN_DCG, CORRECT_NDCG),
    "dave": (LN_DCG, CORRECT_NDCG),  # his first submission; the second one, late, is correct
    "erin": None,
    "finn": (SYNTAX_ERROR_DCG, CORRECT_NDCG),
}
LATE = {"carol": (CORRECT_DCG, CORRECT_NDCG), "dave": (CORRECT_DCG, CORRECT_NDCG)}
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

    def copied_to(self, tmp: Path) -> Semester:
        """This semester as it stands, in ``tmp``: course, exchange and homes copied (none holds its folder's path)."""
        shutil.copytree(self.root, tmp, symlinks=True, dirs_exist_ok=True)
        run = copy.copy(self)
        run.root, run.course, run.exchange, run.homes = tmp, tmp / "course", tmp / "exchange", tmp / "homes"
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
            fill_solutions(release, {"dcg": answer[0], "ndcg": answer[1]}), name, BY_HAND_WAY.get(name, "right"))
        nbformat.write(notebook, path)
        self.student(name, "submit", "ndcg")

    def setup(self) -> None:
        with open(self.course / "nbgrader_config.py", "a", encoding="utf-8") as config:
            config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
        self.tutor("generate_assignment", "ndcg", "--force")
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
            done = grade(self.course, "--timeout", "5", *step.split()[1:])
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            self.graded_summary = done.stdout
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
            self.tutor("export", "--exporter=autograder.course.lms_export.MoodleExportPlugin", "--to=moodle.csv")
        else:
            raise ValueError(step)


@pytest.fixture(scope="module")
def set_up(tmp_path_factory) -> Semester:
    """Released, fetched, submitted (two late) and collected once: every order starts from a copy of it."""
    run = Semester(tmp_path_factory.mktemp("set-up"))
    run.setup()
    return run


@pytest.fixture(scope="module", params=list(ORDERS), ids=list(ORDERS))
def semester(request, set_up, tmp_path_factory):
    run = set_up.copied_to(tmp_path_factory.mktemp("semester"))
    for step in ORDERS[request.param]:
        run.step(step)
    return run, ORDERS[request.param]


def test_the_gradebook_and_nbgraders_export_hold_the_final_scores(semester):
    run, _ = semester
    with Gradebook(f"sqlite:///{run.course / 'gradebook.db'}") as gradebook:
        for name, final in EXPECTED_FINAL.items():
            submission = gradebook.find_submission("ndcg", name)
            assert submission.score == pytest.approx(EXPECTED_RAW[name]), name
            assert max(0.0, submission.score - submission.late_submission_penalty) == pytest.approx(final), name
    with open(run.course / "export.csv", newline="", encoding="utf-8") as handle:
        exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert exported == pytest.approx(EXPORTED)


def test_the_lms_file_holds_the_final_scores(semester):
    run, _ = semester
    with open(run.course / "moodle.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))  # as Moodle's importer maps it: Username and the grade item "ndcg"
    assert {row["Username"]: float(row["ndcg"]) for row in rows} == pytest.approx(EXPORTED)


def test_each_student_fetches_one_current_page(semester):
    run, _ = semester
    for name, final in EXPECTED_FINAL.items():
        pages = sorted((run.homes / name / "ndcg" / "feedback").rglob("ndcg.html"))
        assert pages, f"{name} fetched no feedback"
        text = pages[-1].read_text(encoding="utf-8")
        assert "The definition used for grading" in text, name
        assert f'id="final-score">{final:g} / {FULL:g}</strong>' in text, name
        assert ("From your tutor" in text) == (name == "bob"), name
    pages = {name: sorted((run.homes / name / "ndcg" / "feedback").rglob("ndcg.html"))[-1].read_text(encoding="utf-8")
             for name in ("bob", "carol", "dave", "erin", "finn")}
    assert COMMENT in pages["bob"] and "What went wrong" in pages["bob"]
    assert "(extension" in pages["carol"] and "on time" in pages["carol"]
    assert "late" in pages["dave"] and f"Late penalty: {FULL:g} points." in pages["dave"]
    assert "unchanged" in pages["erin"]
    assert "the cell that defines `dcg`" in pages["finn"].replace("<code>", "`").replace("</code>", "`")


def _batch_after_mark(order: tuple[str, ...]) -> None:
    if "mark" not in order or not any(s.startswith("grade") for s in order[order.index("mark"):]):
        pytest.skip("the batch command did not run after the mark in this order")


def test_the_batch_outputs_agree_when_the_batch_ran_after_the_mark(semester):
    run, order = semester
    _batch_after_mark(order)
    found = results(run.course)
    assert {name: found[name]["final_score"] for name in EXPECTED_FINAL} == pytest.approx(EXPECTED_FINAL)
    assert found["erin"]["status"] == "not attempted"
    assert found["dave"]["late"]["penalty"] == pytest.approx(FULL)
    assert found["carol"]["late"]["extended_due"] is not None and found["carol"]["late"]["seconds_late"] == 0


def test_every_figure_of_every_batch_output_is_the_final_score(semester):
    """Issue 33.1: the table, results.json, grades.csv, the pages and every figure of the report: one score."""
    run, order = semester
    _batch_after_mark(order)
    out = run.course / "graded"
    for output, shown in graded_outputs.every_output(out).items():
        assert shown == pytest.approx(EXPORTED), output
    statuses = {s["student_id"]: s["status"] for s in graded_outputs.students(out)}
    for shown, expected in zip(graded_outputs.statistics_rows(out), graded_outputs.expected_statistics(
            EXPORTED, statuses), strict=True):
        assert shown == pytest.approx(expected, abs=0.0051)  # the mean shows 2 decimals
    scored = [EXPORTED[name] for name, status in statuses.items() if status in graded_outputs.SCORED]
    assert graded_outputs.histogram_counts(out) == {score: scored.count(score) for score in set(scored)}
    trouble = graded_outputs.trouble_scores(out)
    assert trouble == pytest.approx({name: EXPORTED[name] for name in trouble}) and ABSENT in trouble
    # the grader's own score appears only labelled so: dave's score before the penalty, bob's before the marks
    report = graded_outputs.soup(out / "report.html")
    (dave,) = [row for row in report.find(id="late").find_all("tr") if row.find("a") and row.find("a").text == "dave"]
    assert float(dave.find_all("td")[-1].get_text()) == pytest.approx(EXPECTED_RAW["dave"])
    assert "score before the penalty" in report.find(id="late").find("tr").get_text()
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(rows["dave"]["grader_score"]) == EXPECTED_RAW["dave"] != EXPORTED["dave"]  # labelled, not final
    assert float(rows["bob"][TAKEN_BACK]) == 0.0 and float(rows["bob"][MARKED]) == POINTS[MARKED]  # the tutor's points


def test_a_rostered_student_who_never_submitted_is_listed_missing_with_0(semester):
    """Issue 33.7: on the roster, nothing submitted: in every output as missing with 0, counted apart."""
    run, order = semester
    if not any(step.startswith("grade") for step in order):
        pytest.skip("the batch command did not run in this order")
    out = run.course / "graded"
    (absent,) = [s for s in graded_outputs.students(out) if s["student_id"] == ABSENT]
    assert absent["status"] == "missing" and absent["final_score"] == 0.0 and "roster" in absent["message"]
    for output, shown in graded_outputs.every_output(out).items():
        assert shown[ABSENT] == 0.0, output
    report = graded_outputs.soup(out / "report.html")
    assert f"{len(EXPORTED)} students" in report.find(id="counts").get_text()
    assert report.find(id="not-submitted").get_text() == "1"
    assert "of them 1 on the roster with no submission" in run.graded_summary
    assert not (run.course / "feedback" / ABSENT).exists()  # nothing to release to her
    with Gradebook(f"sqlite:///{run.course / 'gradebook.db'}") as gradebook:
        assert [s.student.id for s in gradebook.assignment_submissions("ndcg") if s.student.id == ABSENT] == []


def test_a_follow_through_row_says_what_it_is_and_the_tutors_mark_wins(semester):
    """Issue 33.5: bob's nDCG step is his own DCG / iDCG, not his list's nDCG; his tutor gave it 0."""
    run, _ = semester
    page = sorted((run.homes / "bob" / "ndcg" / "feedback").rglob("ndcg.html"))[-1]
    soup = graded_outputs.soup(page)
    (row,) = [tr for tr in soup.find(id="tests").find_all("tr") if "your own DCG / iDCG counts" in tr.get_text()]
    result, points, details = (td.get_text(" ", strip=True) for td in row.find_all("td")[1:])
    assert result == "failed (your tutor)" and "passed" not in result
    assert points.startswith(f"0 / {STEP_POINTS[TAKEN_BACK]:g}") and "the grader gave 1" in points
    salt, pool = published_variant(nbformat.read(run.course / "release" / "ndcg" / "ndcg.ipynb", as_version=4))
    ways = every_steps(student_list("bob", salt, pool), CUTOFF)
    theirs, right = ways[BY_HAND_WAY["bob"]], ways["right"]
    assert (f"consistent with your own DCG and iDCG ({round(theirs.dcg, 2):g} / {round(theirs.idcg, 2):g}); "
            f"the value for your list is {right.ndcg:.4f}") in details
    assert ": right" not in details
