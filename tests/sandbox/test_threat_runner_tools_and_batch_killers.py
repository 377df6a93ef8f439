"""Hostile submissions against the batch and the runner: links, leaks of hidden inputs, the runner's own tools, batch-killers,
unbounded work for the grader, output that lies to the tutor.

Each class of attack has its own students in one batch with honest ones; every class is closed by
design (see docs/security.md), and these tests check the promise, not one exploit. Hostile code
only ever targets files this test created in temporary folders.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.grading.reading.notebook_shape import MAX_CELLS
from autograder.output.results import score_table
from autograder.pipeline import GradeOptions, grade_course

from grading_run import CORRECT_DCG, ROOT, add_student, new_course, notebook_path
from leaks import hidden_sequences, leaked, without_by_hand

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

HONEST = ("alice", "bob")

# ----- 2. hidden inputs must not come back through the student's own feedback ---------------------
SNOOP = '''import gc, sys

SEEN = []


def _collect(own):
    found = []
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            found.append(value)
        frame = frame.f_back
    found += gc.get_objects()
    lists = []
    for value in found:
        try:
            # only lists of numbers, the shape of a hidden input: a repr of every object in the process
            # took seconds per call and ran the snoop into its time limit before it reported anything
            if (isinstance(value, (list, tuple)) and value is not own and 0 < len(value) < 200
                    and all(type(item) in (int, float) for item in value)):
                lists.append(repr(value))
        except Exception:
            pass
    return lists


def dcg(rels, k):
    data = _collect(rels)
    SEEN.extend(data[:50])
    rels.extend([len(data)] * 3)  # into the argument list, which the grader reports back
    raise ValueError(" | ".join(SEEN)[:5000])


def ndcg(rels, k):
    raise RuntimeError(" | ".join(_collect(rels))[:5000])
'''

# ----- 3. the runner's tools must be out of reach by name ------------------------------------------
REBIND_RUNNER = '''import builtins, json, sys, __main__
FOUND = [name for name in ("main", "_runner_tools", "_snapshot", "snapshot", "emit") if hasattr(__main__, name)]
for module in list(sys.modules.values()):
    for name in ("_snapshot", "snapshot", "_as_number", "as_number", "emit", "_runner_tools", "_dumps"):
        # the runner's own (its module is __main__ when it starts cold, runner when forked warm), not
        # numpy's or pickle's function of the same name that a warm start has imported
        defined_in = getattr(getattr(module, name, None), "__module__", None)
        if getattr(module, "__name__", "") != "__main__" and defined_in in ("__main__", "runner"):
            FOUND.append(module.__name__ + "." + name)
            try:
                setattr(module, name, lambda *args, **kwargs: None)
            except Exception:
                pass
json.dumps = lambda *args, **kwargs: '{"call": 0, "status": "value", "value": 1.0, "after": null}'
json.JSONEncoder.encode = lambda self, o: "{}"
builtins.isinstance = lambda *args: True
builtins.callable = lambda *args: False
'''
# right only if nothing of the runner was found by name; the ndcg sorts the caller's list in place
REBIND_DCG = CORRECT_DCG.replace("    return sum(", "    if FOUND:\n        return -1.0\n    return sum(")
SORTING_NDCG = """def ndcg(rels, k):
    actual = dcg(rels, k)
    rels.sort(reverse=True)
    ideal = dcg(rels, k)
    return actual / ideal if ideal else 0.0"""

# ----- 4. one submission must not stop the batch ----------------------------------------------------
SURROGATE_DCG = 'def dcg(rels, k):\n    raise ValueError("\\udcff\\ud800 broken text" * 50)'
HUGE_DCG = "def dcg(rels, k):\n    return 10 ** 400"

# ----- 6. the grader's own work stays bounded --------------------------------------------------------
# failing code cells, as many as a notebook may have (MAX_CELLS, less the release's): their list stays bounded
MANY_CELLS = MAX_CELLS - 100
TIME_MAGICS = "\n".join(f"%time x{i} = {i}" for i in range(150))

# ----- 7. output that lies ---------------------------------------------------------------------------
FAKE_ROW = "\r\x1b[2Kalice      graded       10    10  \n"
LYING_DCG = f"def dcg(rels, k):\n    raise ValueError({FAKE_ROW!r})"


def _link(path: Path, target: str | Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _hard_link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.link(target, path)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("hostile2") / "course")
    shutil.copytree(ROOT / "source", course / "source")  # a solution to point links at
    source = course / "source" / "ndcg" / "ndcg.ipynb"
    for student in HONEST:
        add_student(course, student)
    submitted = course / "submitted"
    # 1. links and other things that are not the student's notebook
    _link(notebook_path(course, "link_absolute"), source)
    _link(notebook_path(course, "link_relative"), "../../alice/ndcg/ndcg.ipynb")
    _link(submitted / "link_folder" / "ndcg", submitted / "alice" / "ndcg")
    _link(submitted / "link_student", submitted / "alice")
    _hard_link(notebook_path(course, "hard_link_source"), source)
    add_student(course, "shares_a")
    _hard_link(notebook_path(course, "shares_b"), notebook_path(course, "shares_a"))
    notebook_path(course, "fifo").parent.mkdir(parents=True)
    os.mkfifo(notebook_path(course, "fifo"))
    # 2, 3
    add_student(course, "snoop", dcg=SNOOP.split("\n\ndef ndcg")[0], ndcg="def ndcg" + SNOOP.split("\n\ndef ndcg")[1])
    add_student(course, "rebinds_runner", dcg=REBIND_DCG, ndcg=SORTING_NDCG, extra=(REBIND_RUNNER,))
    # 4
    add_student(course, "surrogates", dcg=SURROGATE_DCG)
    add_student(course, "huge_number", dcg=HUGE_DCG)
    non_utf8 = os.fsdecode(b"caf\xe9")
    add_student(course, non_utf8)
    long_name = "l" * 250
    add_student(course, long_name)
    # 6
    path = notebook_path(course, "sparse")
    path.parent.mkdir(parents=True)
    with open(path, "wb") as handle:
        handle.truncate(4 * 1024**3)  # 4 GiB that take no disk space
    add_student(course, "many_cells", extra=tuple(f"raise ValueError('{i}' * 300)" for i in range(MANY_CELLS)))
    add_student(course, "time_magics", extra=(TIME_MAGICS,) * 3)
    # 7
    add_student(course, '=HYPERLINK("example.invalid";"click")')  # refused by the student-id rule, as the next
    add_student(course, "lying\x1b[2J\r")
    add_student(course, "lying", dcg=LYING_DCG)
    started = time.monotonic()
    run = grade_course(GradeOptions(
        EXERCISE, submitted=submitted, out=course / "graded", workers=2, timeout=5, sandbox="required",
        gradebook="none", progress=False, course_root=course,
    ))
    elapsed = time.monotonic() - started
    students = {s.student_id: s for s in run.batch.students}
    return course, run, students, elapsed, non_utf8, long_name


def test_honest_students_keep_full_marks(batch):
    students = batch[2]
    for student in (*HONEST, "time_magics"):
        assert students[student].score == EXERCISE.max_score, (student, students[student].message)


@pytest.mark.parametrize("index, words", [(4, "not valid UTF-8"), (5, "250 characters long")])
def test_names_that_are_no_student_id_are_refused_with_the_reason(batch, index, words):
    result = batch[2][ascii(batch[index])]  # listed under the name escaped
    assert (result.status.value, result.score, result.tests) == ("refused", 0.0, [])
    assert words in result.message


@pytest.mark.parametrize("student, words", [
    ("link_absolute", "is a link"), ("link_relative", "is a link"), ("link_folder", "ndcg/ is a link"),
    ("link_student", "the student's folder is a link"), ("hard_link_source", "hard link to a file of the course"),
    ("shares_a", "the same file as the notebook of shares_b"), ("shares_b", "the same file as the notebook of shares_a"),
    ("fifo", "not a regular file"),
])
def test_links_and_other_files_earn_nothing(batch, student, words):
    result = batch[2][student]
    assert (result.status.value, result.score) == ("error", 0.0), result.message
    assert words in result.message


def test_hidden_inputs_never_reach_feedback_or_results(batch):
    course = batch[0]
    assert len(hidden_sequences()) > 10
    # Task 1.2's own lists (public: id and salt) left out: a list of grades 0-3 may hold a hidden list's
    paths = [course / "graded" / "results.json", *(course / "graded" / "feedback").rglob("*.html")]
    texts = [without_by_hand(path, path.read_text(encoding="utf-8")) for path in paths]
    assert len(texts) > 1
    assert leaked(texts) == []
    snoop = batch[2]["snoop"]
    assert "raised ValueError:" in " ".join(t.message for t in snoop.tests if t.visible)  # its texts are shown


def test_the_runner_cannot_be_reached_by_name(batch):
    result = batch[2]["rebinds_runner"]
    points = {test.name: test.points for test in result.tests}
    dcg_points = sum(g.points for g in EXERCISE.groups if g.function == "dcg")
    assert sum(points[g.grade_id] for g in EXERCISE.groups if g.function == "dcg") == dcg_points  # FOUND stayed empty
    assert points["test_ndcg_contract"] == 0.0 and "mutates-input" in result.diagnosis.ids


def test_odd_text_names_and_numbers_cost_no_one_else(batch):
    course, run, students, *_ = batch
    assert students["surrogates"].status.value == "graded"
    assert students["huge_number"].status.value == "graded"
    assert "returned an int, not a number" in " ".join(t.message for t in students["huge_number"].tests)
    document = json.loads((course / "graded" / "results.json").read_text(encoding="utf-8"))
    ids = {student["student_id"] for student in document["students"]}
    assert ascii(batch[4]) in ids and ascii(batch[5]) in ids
    for student in run.batch.students:  # every page was written
        assert list((course / "graded" / "feedback").glob(f"{glob.escape(student.student_id)}/*.html"))
    assert all(len(name) <= 255 for name in os.listdir(course / "graded" / ".state"))


def test_the_graders_work_is_bounded(batch):
    course, _, students, *_ = batch
    assert students["sparse"].status.value == "error" and "over the 8 MiB limit" in students["sparse"].message
    many = students["many_cells"]
    assert len(many.cells) <= 20 and len(many.message) <= 4000 and "more code cells" in many.message
    entry = next(s for s in json.loads((course / "graded" / "results.json").read_text())["students"]
                 if s["student_id"] == "many_cells")
    assert len(json.dumps(entry)) < 64 * 1024
    assert (course / "graded" / "feedback" / "many_cells" / "ndcg.html").stat().st_size < 2 * 1024**2
    assert students["time_magics"].status.value == "graded"


def test_output_does_not_lie_to_the_tutor(batch):
    course, run, *_ = batch
    table = score_table(run.batch)
    assert "\x1b" not in table and "\r" not in table
    assert sum(line.startswith("alice ") for line in table.splitlines()) == 1  # no second, fake row for alice
    csv = (course / "graded" / "grades.csv").read_text(encoding="utf-8")
    assert "\n'=HYPERLINK(" in csv.replace('"', "") or "'=HYPERLINK" in csv
    assert "\n=HYPERLINK" not in csv and '\n"=HYPERLINK' not in csv
    page = (course / "graded" / "feedback" / "lying" / "ndcg.html").read_text(encoding="utf-8")
    assert "\x1b" not in page and "\r" not in page
    assert "\\r\\x1b[2Kalice" in page  # the code's lie shown, as escapes
    assert table.count(ascii("lying\x1b[2J\r") + " ") == 1  # the id's, refused and escaped once
