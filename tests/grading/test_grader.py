"""The grade command on honest batches: agreement with nbgrader, resume after SIGKILL, sandbox modes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from byhand_answers import LOST

from autograder.course.notebook_cells.generated_cells import skipped_cell_ids
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.cases import GROUPS
from autograder.grading import SCHEMA_VERSION, grade_batch
from autograder.sandbox import ResourceLimitsOnly, choose_sandbox

from grading_run import (
    CORRECT_DCG,
    CORRECT_NDCG,
    ROOT,
    add_student,
    grade,
    new_course,
    release_settings,
    results,
    whole_course,
)

pytestmark = pytest.mark.slow  # end to end: starts the grader, nbgrader or a kernel

needs_bwrap = pytest.mark.skipif(
    subprocess.run(["which", "bwrap"], capture_output=True).returncode != 0, reason="needs bubblewrap"
)


@pytest.fixture(scope="module")
def ours(graded_course, tmp_path_factory):
    """The examples graded by this kit's grader, in a copy of the course nbgrader graded (the session's
    course stays as nbgrader left it: other tests look for what only nbgrader's path wrote there)."""
    course = tmp_path_factory.mktemp("ours") / "course"
    shutil.copytree(graded_course[0], course, symlinks=True)
    done = grade(course, "--gradebook", "none", "--timeout", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    return course, results(course)


def test_scores_equal_plain_nbgrader_on_the_examples(graded_course, ours):
    _, nbgrader_scores = graded_course
    _, ours = ours
    assert set(ours) == set(nbgrader_scores)
    for student, (score, maximum) in nbgrader_scores.items():
        assert (ours[student]["score"], ours[student]["max_score"]) == (score, maximum), student
        # the examples' stubs (the release's code, unchanged) are not attempted; the others are graded
        assert ours[student]["status"] == ("not attempted" if student in ("dave", "zz_stubs") else "graded"), student


def test_results_json_has_the_documented_shape(ours):
    course, _ = ours
    document = json.loads((course / "graded" / "results.json").read_text())
    assert document["assignment"] == "ndcg" and document["max_score"] == EXERCISE.max_score
    for student in document["students"]:
        assert {"student_id", "status", "score", "max_score", "tests", "diagnoses", "message", "feedback"} <= set(student)
        assert (course / "graded" / student["feedback"]).is_file()
        for test in student["tests"]:
            assert {"name", "points", "max_points", "passed", "message"} <= set(test)
            assert test["points"] == (test["max_points"] if test["passed"] else 0.0)
        assert student["score"] == sum(t["points"] for t in student["tests"])
    csv_lines = (course / "graded" / "grades.csv").read_text().splitlines()
    assert csv_lines[0].split(",")[:5] == ["student_id", "status", "final_score", "max_score", "grader_score"]
    assert len(csv_lines) == 1 + len(document["students"])


def _slow_batch(course: Path, count: int) -> None:
    """Honest and wrong students whose first cell sleeps, so that a batch takes a few seconds."""
    for number in range(count):
        dcg = CORRECT_DCG if number % 3 else "import math\n\n\ndef dcg(rels, k):\n    return sum(r / math.log(i + 2) for i, r in enumerate(rels[:k]))"
        ndcg = CORRECT_NDCG if number % 4 else "def ndcg(rels, k):\n    return dcg(rels, k) / dcg(sorted(rels, reverse=True), len(rels))"
        add_student(course, f"s{number:02d}", dcg=dcg, ndcg=ndcg, extra=("import time\ntime.sleep(0.15)",))


def _sandbox_processes(grader_pid: int, scratch_root: Path) -> list[str]:
    """Processes a grader started: in its cgroups, or running in a scratch folder under its TMPDIR."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                groups = (entry / "cgroup").read_text()
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if f"autograder-{grader_pid}/" in groups or str(scratch_root) in command + cwd:
                found.append(command)
    return found


@needs_bwrap
def test_sigkill_in_the_middle_then_resume_equals_an_uninterrupted_run(tmp_path):
    course = new_course(tmp_path / "course")
    _slow_batch(course, 14)
    full = grade(course, "--out", "full", "--gradebook", "none", "--workers", "2")
    assert full.returncode == 0, full.stderr[-2000:]

    scratch_root = tmp_path / "scratch"  # the killed grader's sandboxes run in folders under it
    scratch_root.mkdir()
    environment = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(scratch_root))
    process = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", "--quiet", "--out", "resumed", "--gradebook", "none", "--workers", "2"],
        cwd=course, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    state = course / "resumed" / ".state"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(state.glob("*.json"))) < 4:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    graded_before = {p.name: p.stat().st_mtime_ns for p in state.glob("*.json")}
    assert 4 <= len(graded_before) < 14, "the kill should land in the middle of the batch"
    assert not (course / "resumed" / "results.json").exists()
    time.sleep(0.5)
    assert _sandbox_processes(process.pid, scratch_root) == [], "sandboxes outlived the killed grader"

    resumed = grade(course, "--out", "resumed", "--gradebook", "none", "--workers", "2")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    for name, mtime in graded_before.items():
        assert (state / name).stat().st_mtime_ns == mtime, f"{name} was graded again"
    assert json.loads((course / "resumed" / "results.json").read_text()) == json.loads((course / "full" / "results.json").read_text())
    assert (course / "resumed" / "grades.csv").read_text() == (course / "full" / "grades.csv").read_text()

    forced = grade(course, "--out", "resumed", "--gradebook", "none", "--workers", "2", "--force")
    assert forced.returncode == 0
    assert all((state / name).stat().st_mtime_ns != mtime for name, mtime in graded_before.items())


def test_a_changed_notebook_is_graded_again_and_the_gradebook_follows(tmp_path):
    from autograder.course.materials.nbgrader_commands import gradebook_scores

    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    add_student(course, "bob")
    assert grade(course).returncode == 0
    assert results(course)["alice"]["score"] == EXERCISE.max_score
    add_student(course, "alice", dcg="def dcg(rels, k):\n    return 0.0")
    assert grade(course).returncode == 0
    lower = results(course)["alice"]["score"]
    assert lower < EXERCISE.max_score
    assert gradebook_scores(course) == {"alice": (lower, EXERCISE.max_score), "bob": (EXERCISE.max_score, EXERCISE.max_score)}


def test_resource_limits_only_gives_the_same_scores(tmp_path, graded_course):
    course, nbgrader_scores = graded_course
    settings = release_settings(5.0, course / "release" / "ndcg" / "ndcg.ipynb")
    sandbox = choose_sandbox("none")  # as root: an unprivileged user id if Python starts as one here, else root
    assert isinstance(sandbox, ResourceLimitsOnly)
    students = grade_batch(course / "submitted", tmp_path / "out", settings, sandbox, workers=2, progress=False)
    assert {s.student_id: (s.score, s.max_score) for s in students} == nbgrader_scores


def _path_without_bwrap() -> str:
    return os.pathsep.join([str(Path(sys.executable).parent)])


def test_sandbox_required_refuses_without_bubblewrap(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    done = grade(course, "--sandbox", "required", env={"PATH": _path_without_bwrap()})
    assert done.returncode == 2
    assert "bwrap is not installed" in done.stderr and "Traceback" not in done.stderr
    assert not (course / "graded" / "results.json").exists()


def test_sandbox_none_warns_loudly_and_still_grades(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    done = grade(course, "--gradebook", "none", "--sandbox", "none")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "WITHOUT isolation" in done.stderr
    assert results(course)["alice"]["score"] == EXERCISE.max_score
    assert json.loads((course / "graded" / "results.json").read_text())["sandbox"].startswith("resource limits only")


NOT_ROOT_DCG = CORRECT_DCG.replace("def dcg(rels, k):\n", "def dcg(rels, k):\n    import os\n    assert os.geteuid() != 0\n")


def test_without_bubblewrap_auto_grades_unprivileged_or_refuses(tmp_path):
    # as root, student code must not run as root: auto drops privileges or asks for --sandbox none
    course = new_course(tmp_path / "course")
    add_student(course, "alice", dcg=NOT_ROOT_DCG)
    done = grade(course, "--gradebook", "none", "--sandbox", "auto", env={"PATH": _path_without_bwrap()})
    if done.returncode == 2:
        assert os.geteuid() == 0
        assert "--sandbox none" in done.stderr and "Traceback" not in done.stderr
        assert not (course / "graded" / "results.json").exists()
        return
    assert done.returncode == 0, done.stderr[-2000:]
    assert "WITHOUT isolation" in done.stderr
    assert results(course)["alice"]["score"] == EXERCISE.max_score


@pytest.mark.parametrize(
    "args, words",
    [
        (["--submitted", "nowhere"], "no submissions folder nowhere"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--timeout", "0"], "--timeout must be positive"),
    ],
)
def test_bad_arguments_get_a_clear_message(tmp_path, args, words):
    course = new_course(tmp_path / "course")
    done = grade(course, *args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_another_exercises_results_are_never_overwritten(tmp_path):
    """Grading a second exercise into the first one's --out would replace its results.json, grades.csv, report."""
    course = new_course(tmp_path / "course")
    (course / "submitted" / "alice" / "ndcg").mkdir(parents=True)
    shutil.copy(ROOT / "release" / "ndcg" / "ndcg.ipynb", course / "submitted" / "alice" / "ndcg")
    (course / "graded").mkdir()
    theirs = json.dumps({"schema_version": SCHEMA_VERSION, "assignment": "ap", "max_score": 5})[:-1] + ",\n"
    (course / "graded" / "results.json").write_text(theirs + '"students": [\n]}\n')
    kept = (course / "graded" / "results.json").read_bytes()
    refused = grade(course)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "graded holds the results of ap; grade ndcg into a folder of its own: --out graded-ndcg" in refused.stderr
    assert (course / "graded" / "results.json").read_bytes() == kept
    assert not (course / "graded" / "grades.csv").exists()
    done = grade(course, "--out", "graded-ndcg")  # the way the message names
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((course / "graded-ndcg" / "results.json").read_text())["assignment"] == "ndcg"
    assert "alice" in results(course, "graded-ndcg")


def test_every_group_is_a_grade_cell_of_the_release():

    ids = skipped_cell_ids(EXERCISE, ROOT / "release" / "ndcg" / "ndcg.ipynb")
    assert {g.grade_id for g in GROUPS} <= ids
    assert "dcg" not in ids and "ndcg" not in ids  # solution cells are the student's code


def test_sandbox_mounts_tmp_before_binding_python(tmp_path, monkeypatch):
    # a course cloned under /tmp keeps its venv visible inside the sandbox
    from autograder.sandbox.isolation import bubblewrap

    monkeypatch.setattr(bubblewrap.sys, "prefix", "/tmp/somewhere/.venv")
    argv = bubblewrap.Bubblewrap("bwrap").launch(tmp_path, slot=0).argv
    assert argv[argv.index("--tmpfs") + 1] == "/tmp"
    for mount in ("--tmpfs", "--proc", "--dev"):
        assert argv.index(mount) < argv.index("/tmp/somewhere/.venv")  # mounted before the venv is bound
        assert argv.index(mount) < argv.index("--ro-bind")


def test_a_gradebook_in_a_missing_folder_is_one_line_that_says_so(tmp_path):
    # a tutor's typo in --gradebook got SQLAlchemy's OperationalError with a link to its docs (a walk-through)
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    missing = tmp_path / "nonexistent" / "dir" / "gradebook.db"
    done = grade(course, "--gradebook", f"sqlite:///{missing}")
    assert done.returncode == 1, done.stderr
    line = next(line for line in done.stdout.splitlines() if "gradebook:" in line)
    assert f"NOT updated: the gradebook's folder {missing.parent} does not exist" in line
    assert "sqlalche.me" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert results(course)["alice"]["score"] == EXERCISE.max_score  # the results on disk stand


def test_a_broken_gradebook_costs_no_grade(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    (course / "gradebook.db").write_bytes(b"owned")
    done = grade(course)
    assert done.returncode == 1, done.stderr
    assert "gradebook: NOT updated (the gradebook" in done.stdout and "is not an SQLite database" in done.stdout
    assert results(course)["alice"]["score"] == EXERCISE.max_score
    assert (course / "gradebook.db").read_bytes() == b"owned"  # left for the tutor to look at


def _demo(course: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "demo"], cwd=course, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def test_demo_never_touches_the_course(tmp_path):
    course = whole_course(tmp_path / "course")
    alice = add_student(course, "alice", dcg="def dcg(rels, k):\n    return 0.0")  # a real student's work
    before = alice.read_bytes()
    release = (course / "release" / "ndcg" / "ndcg.ipynb").read_bytes()
    done = _demo(course)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "a scratch course in demo/" in done.stdout
    assert alice.read_bytes() == before and list((course / "submitted").iterdir()) == [course / "submitted" / "alice"]
    assert (course / "release" / "ndcg" / "ndcg.ipynb").read_bytes() == release
    for runtime in ("graded", "autograded", "feedback", "gradebook.db"):
        assert not (course / runtime).exists(), runtime
    # the example alice: every point, Task 1.2's steps included; mallory works her list with the natural
    # log (her hostile code needs bubblewrap to be graded in the demo)
    demo = results(course, "demo/graded")
    assert demo["alice"]["score"] == EXERCISE.max_score
    if shutil.which("bwrap") is not None:
        lost = {t["name"] for t in demo["mallory"]["tests"] if t["name"].startswith("byhand_") and not t["passed"]}
        assert lost == LOST["natural log"], demo["mallory"]["tests"]


def test_demo_without_bubblewrap_leaves_the_hostile_example_out(tmp_path):
    course = whole_course(tmp_path / "course")
    done = _demo(course, {"PATH": _path_without_bwrap()})
    if done.returncode == 2:  # as root with a Python only root can run: the grader refuses, and says why
        assert "--sandbox none" in done.stderr and "Traceback" not in done.stderr
        return
    assert done.returncode == 0, done.stderr[-2000:]
    assert "left out: mallory" in done.stdout
    demo = results(course, "demo/graded")
    assert "mallory" not in demo and "alice" in demo


def test_the_gradebook_reads_as_after_nbgrader_autograde(tmp_path):
    from nbgrader.api import Gradebook

    course = new_course(tmp_path / "course")
    add_student(course, "alice")
    add_student(course, "bob", dcg="def dcg(rels, k):\n    return 0.0")
    (course / "submitted" / "alice" / "ndcg" / "timestamp.txt").write_text("2026-11-30 10:15:00.000000 UTC")
    assert grade(course).returncode == 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        alice, bob = gradebook.find_submission("ndcg", "alice"), gradebook.find_submission("ndcg", "bob")
        assert alice.timestamp.isoformat().startswith("2026-11-30T10:15:00") and bob.timestamp is None
        # autograded, as nbgrader's SaveAutoGrades leaves them: no manual grading asked for
        assert not alice.needs_manual_grade and not bob.needs_manual_grade
        grade_row = gradebook.find_grade("test_dcg_lecture", "ndcg", "ndcg", "bob")
        grade_row.manual_score = 1.0  # a tutor's score wins; formgrader clears the flag as it saves it
        grade_row.needs_manual_grade = False
        gradebook.db.commit()
    assert grade(course, "--force").returncode == 0  # the same automatic score read back: the review stands
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert not gradebook.find_grade("test_dcg_lecture", "ndcg", "ndcg", "bob").needs_manual_grade
    add_student(course, "bob")  # bob hands in a correct dcg: the automatic score under the tutor's changes
    assert grade(course).returncode == 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        changed = gradebook.find_grade("test_dcg_lecture", "ndcg", "ndcg", "bob")
        assert changed.auto_score == 1.0 and changed.manual_score == 1.0 and changed.needs_manual_grade
    # the feedback also where `nbgrader release_feedback` takes it from
    assert (course / "feedback" / "alice" / "ndcg" / "ndcg.html").read_text() == (
        course / "graded" / "feedback" / "alice" / "ndcg.html"
    ).read_text()
