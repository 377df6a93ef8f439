"""A tutor's whole assignment cycle through a real exchange, in each order the README allows.

Eight students fetch the release and submit with nbgrader's own commands (each as their own user
name, from a folder of their own): on time, a known mistake (and Task 1.2 by hand with one, whose
nDCG follows through), late with an extension, a double submission whose second one is late, the
release unchanged, a syntax error, a classmate's Task 1.2 numbers (issue 33.2), another id typed
into STUDENT_ID on a laptop (33.3); a ninth is on the roster and never submits. The tutor
collects, sets the due date, grades on either path (``python -m autograder grade`` or ``nbgrader
autograde``) or both, gives manual marks (a test's points restored, a by-hand step's point taken
back) with a comment, re-grades one student, releases feedback (with or without
``generate_feedback`` first), and exports for the LMS. Whatever the order, every student ends with
the same final score in the gradebook, ``nbgrader export``, the Moodle file and the page the student
fetches, and where the batch command ran after the mark, in its table, ``results.json``,
``grades.csv`` and every figure of the class report (statistics, histogram, roster); the student who
never submitted is in all of them as ``missing`` with 0. Expected scores come from the catalogue's
declared groups and nbgrader's rules (penalty ``zero``), written out in tests/semester_run.py. The
copy and the typed id are flagged in every output the order wrote. Apart from the orders, the same
hand-in meets a salt change (33.8): refused, forced, released (the stale exchange named with its
command) and graded on both paths against the lists the notebooks showed. The browser part is in
tests/e2e/test_formgrader.py.
"""

from __future__ import annotations

import csv
import re
import shlex
import shutil
from pathlib import Path

import graded_outputs
import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.exercises.ndcg.byhand.cells import DERIVATION_ID, earlier_salts
from autograder.exercises.ndcg.byhand.derive import CUTOFF, student_list
from autograder.exercises.ndcg.byhand.marking import OTHER_LIST
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant
from autograder.exercises.ndcg.byhand.steps import every_steps

from grading_run import results
from semester_run import (
    ABSENT,
    BY_HAND,
    BY_HAND_WAY,
    COMMENT,
    COPIER,
    COURSE_ID,
    EXPECTED_FINAL,
    EXPECTED_RAW,
    EXPORTED,
    FULL,
    LAPTOP,
    MARKED,
    ORDERS,
    POINTS,
    POOL,
    SALT,
    STEP_POINTS,
    TAKEN_BACK,
    TYPED,
    Semester,
    autograder,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap here"),
]


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
        text = run.page(name).read_text(encoding="utf-8")
        assert "The definition used for grading" in text, name
        assert f'id="final-score">{final:g} / {FULL:g}</strong>' in text, name
        assert ("From your tutor" in text) == (name == "bob"), name
    pages = {name: run.page(name).read_text(encoding="utf-8")
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
    soup = graded_outputs.soup(run.page("bob"))
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


def _words(page: Path) -> str:
    """The text of a page as a reader sees it (entities decoded, line breaks as spaces)."""
    return " ".join(graded_outputs.soup(page).get_text(" ").split())


def _by_hand_points(course: Path, name: str) -> dict[str, float]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {grade_id: gradebook.find_grade(grade_id, "ndcg", "ndcg", name).score for grade_id in STEP_POINTS}


def _pages(run: Semester, order: tuple[str, ...], name: str) -> list[Path]:
    """Every page of ``name`` the order wrote: the one fetched, nbgrader's own, the batch command's."""
    return ([run.page(name)] + [run.course / "feedback" / name / "ndcg" / "ndcg.html"] * ("generate" in order)
            + [run.course / "graded" / "feedback" / name / "ndcg.html"] * any(s.startswith("grade") for s in order))


def test_copied_answers_earn_no_follow_through_and_every_output_names_the_classmate(semester):
    """Issue 33.2: COPIER handed in ada's Task 1.2 numbers (ada's grades, another order) on whichever path graded."""
    run, order = semester
    # ada's ideal ranking and iDCG are COPIER's too; ada's DCG is not, and the division of it is no follow-through
    assert _by_hand_points(run.course, COPIER) == {**STEP_POINTS, "byhand_dcg": 0.0, "byhand_ndcg": 0.0}
    for page in _pages(run, order, COPIER):
        assert OTHER_LIST in _words(page), page
    assert OTHER_LIST not in _words(run.page("ada")) and OTHER_LIST not in _words(run.page("bob"))
    if not any(step.startswith("grade") for step in order):
        return
    found = results(run.course)
    assert {name: s["copied_from"] for name, s in found.items()} == {name: None for name in EXPORTED} | {
        COPIER: "ada"}
    flagged = graded_outputs.needs_a_look(run.course / "graded")
    assert any("ada" in entry for entry in flagged[COPIER]) and "ada" not in flagged
    rows = [row for table in run.tables if (row := graded_outputs.table_rows(table).get(COPIER))]  # notes wrapped
    assert rows and all("needs a look" in row and "fit the list of ada" in row for row in rows)


def test_a_laptop_s_typed_id_is_marked_on_the_submitter_s_list_and_flagged(semester):
    """Issue 33.3: LAPTOP's STUDENT_ID is TYPED, whose list they worked out right: marked on LAPTOP's own list."""
    run, order = semester
    # right on TYPED's list, none of it LAPTOP's (byhand_answers.stranger_of): every step 0
    assert _by_hand_points(run.course, LAPTOP) == dict.fromkeys(STEP_POINTS, 0.0)
    said = (f"Your notebook's STUDENT_ID is {TYPED!r}, but you handed it in as {LAPTOP!r}: the notebook showed the "
            f"list of {TYPED!r}")
    for page in _pages(run, order, LAPTOP):
        assert said in _words(page), page
    assert "STUDENT_ID is" not in _words(run.page("ada"))
    if not any(step.startswith("grade") for step in order):
        return
    found = results(run.course)
    assert [name for name, s in found.items() if s["needs_a_look"]] == [LAPTOP]
    (reason,) = found[LAPTOP]["needs_a_look"]
    assert repr(TYPED) in reason and repr(LAPTOP) in reason
    flagged = graded_outputs.needs_a_look(run.course / "graded")
    assert any(repr(TYPED) in entry for entry in flagged[LAPTOP])


def _sharing_a_list(salt: str, pool: str) -> tuple[str, str]:
    """Two ids the derivation gives one list under ``salt``: a salt chosen for a roster with both must change."""
    seen: dict[tuple[int, ...], str] = {}
    for n in range(20_000):
        rels = student_list(f"p{n}", salt, pool)
        if rels in seen:
            return seen[rels], f"p{n}"
        seen[rels] = f"p{n}"
    raise AssertionError("no two of 20,000 ids share a list: the pool changed shape")


@pytest.fixture(scope="module")
def salt_changed(set_up, tmp_path_factory):
    """Issue 33.8: after the hand-in the tutor chooses a salt for a roster (refused, then forced), releases, grades.

    Both grading paths grade the notebooks handed in before the change: nbgrader's autograde (its
    by-hand points read from the gradebook), then the batch command (its ``results.json``).
    """
    run = set_up.copied_to(tmp_path_factory.mktemp("salt-changed"))
    with open(run.course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"c.Exchange.root = {str(run.exchange)!r}\n")  # what the release compares with
    roster = run.root / "roster.csv"
    roster.write_text("student_id\n" + "\n".join([*EXPORTED, *_sharing_a_list(SALT, POOL)]) + "\n", encoding="utf-8")
    choose = ("variants", "--roster", str(roster), "--out", str(run.root / "paper"), "--choose-salt")
    said = {"refused": autograder(run.course, *choose)}
    said["refused salt"] = published_variant(nbformat.read(run.course / "source" / "ndcg" / "ndcg.ipynb",
                                                           as_version=4))[0]
    said["forced"] = autograder(run.course, *choose, "--force")
    said["release"] = autograder(run.course, "release", "--allow-readable-course")
    run.tutor("autograde", "ndcg", "--force", "--SandboxedExecute.timeout=5")
    nbgrader = {name: sum(_by_hand_points(run.course, name).values()) for name in BY_HAND}
    said["grade"] = autograder(run.course, "grade", "--timeout", "5")
    return run, said, nbgrader


def test_a_salt_change_after_the_hand_in_is_refused_unless_forced(salt_changed):
    run, said, _ = salt_changed
    refused = said["refused"]
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr[-2000:]
    assert "the course already has submissions" in refused.stderr and "--force" in refused.stderr
    assert said["refused salt"] == SALT  # nothing written
    assert said["forced"].returncode == 0, said["forced"].stderr[-2000:]
    released = nbformat.read(run.course / "release" / "ndcg" / "ndcg.ipynb", as_version=4)
    salt, _ = published_variant(released)
    derivation = next(c.source for c in released.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                      == DERIVATION_ID)
    assert salt != SALT and earlier_salts(derivation) == (SALT,)


def test_the_release_names_the_stale_exchange_and_the_one_command_that_updates_it(salt_changed):
    run, said, _ = salt_changed
    release = said["release"]
    assert release.returncode == 0, release.stderr[-2000:]
    assert "the exchange still hands students the earlier ndcg (ndcg.ipynb changed)" in release.stdout
    command = re.search(r"run `(nbgrader [^`]+)`", release.stdout)
    assert command and shlex.split(command.group(1)) == ["nbgrader", "release_assignment", "ndcg", "--force"]
    assert "checksum" in release.stdout  # what autograde will then say, explained
    run.tutor(*shlex.split(command.group(1))[1:])  # the command it names updates the exchange
    outbound = run.exchange / COURSE_ID / "outbound" / "ndcg" / "ndcg.ipynb"
    assert outbound.read_bytes() == (run.course / "release" / "ndcg" / "ndcg.ipynb").read_bytes()


def test_notebooks_handed_in_before_keep_their_list_on_both_paths(salt_changed):
    """A forced salt change: what was handed in is still marked against the list it showed (EARLIER_SALTS)."""
    run, said, nbgrader = salt_changed
    salt, pool = published_variant(nbformat.read(run.course / "release" / "ndcg" / "ndcg.ipynb", as_version=4))
    moved = [name for name in BY_HAND if student_list(name, salt, pool) != student_list(name, SALT, POOL)]
    assert moved  # the new salt gives them other lists: marked on those, their answers would be wrong
    assert nbgrader == pytest.approx(BY_HAND)
    assert said["grade"].returncode == 0, said["grade"].stderr[-2000:]
    found = results(run.course)
    by_hand = {name: sum(t["points"] for t in found[name]["tests"] if t["name"] in STEP_POINTS) for name in BY_HAND}
    assert by_hand == pytest.approx(BY_HAND)
    assert found["ada"]["tests"][0]["message"].startswith("Your notebook came from a release before")
    assert found[COPIER]["copied_from"] == "ada" and found[LAPTOP]["needs_a_look"]
