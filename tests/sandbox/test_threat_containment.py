"""Hostile submissions, graded in one batch with honest ones through the real command.

Every hostile student gets the right status and no point their functions' values did not earn;
the honest students in the same batch keep their full marks; nothing outside the sandbox changes.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil

import pytest
from byhand_answers import BY_HAND_POINTS

import ndcg_ref
from autograder.exercises.ndcg import EXERCISE
from autograder.exercises.ndcg.cases import GROUPS

from grading_run import CORRECT_DCG, ROOT, add_raw, add_student, grade, new_course, notebook_path, results
from leaks import leaked, without_by_hand
from solutions import points_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)")]

# seconds of the sandbox's CPU time per cell: honest calls take milliseconds, every hang costs this (an
# honest student's habits, such as importing matplotlib, need more: test_resources.py grades them, beside hogs)
TIMEOUT = "1"

DCG_POINTS = sum(g.points for g in GROUPS if g.function == "dcg")
NDCG_POINTS = sum(g.points for g in GROUPS if g.function == "ndcg")
#: Every student built by add_student answers Task 1.2 right: read as data, never run, so no hostile
#: code adds to it or takes it away (a notebook that cannot be read has no answers either).
HAND = BY_HAND_POINTS


LOOP = "def dcg(rels, k):\n    while True:\n        pass"
IGNORE_SIGNALS = '''import signal
for name in ("SIGINT", "SIGALRM", "SIGTERM", "SIGHUP", "SIGUSR1"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)


def ndcg(rels, k):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass'''

SECRETS = f'''import os, sys
FOUND = []
for path in ["{ROOT}/source/ndcg/ndcg.ipynb", "{ROOT}/autograder/exercises/ndcg/cases.py", "{ROOT}/ndcg_ref/measures.py",
             "../../../source/ndcg/ndcg.ipynb", "../../../gradebook.db", "../../alice/ndcg/ndcg.ipynb"]:
    try:
        with open(path, "rb") as handle:
            if handle.read(20):
                FOUND.append(path)
    except OSError:
        pass
for folder in ["{ROOT}", "../../..", "../../../.."]:
    sys.path.insert(0, folder)
try:
    import ndcg_ref
    FOUND.append("ndcg_ref")
except ImportError:
    pass
try:
    import autograder.exercises.ndcg.cases
    FOUND.append("autograder.cases")
except ImportError:
    pass


def dcg(rels, k):
    if FOUND:
        import math
        return sum(rels[i] / math.log2(i + 2) for i in range(min(k, len(rels))))
    return -1.0'''

# Only files this test created are targeted (a throw-away course and a canary folder), so that a
# regression of the sandbox could never damage anything else on the machine.
VANDAL = '''import glob, os
TARGETS = ["{course}/gradebook.db", "{course}/submitted/alice/ndcg/ndcg.ipynb", "{course}/graded/results.json",
           "{course}/release/ndcg/ndcg.ipynb", "{canary}/new-file-by-student",
           "../../../gradebook.db", "../../alice/ndcg/ndcg.ipynb"]
for target in TARGETS + glob.glob("{canary}/**/*", recursive=True):
    try:
        with open(target, "w") as handle:
            handle.write("owned")
    except OSError:
        pass
'''

MONKEYPATCH = (
    "import math\nimport numpy.testing\nmath.isclose = lambda *args, **kwargs: True\n"
    "numpy.testing.assert_allclose = lambda *args, **kwargs: None",
    # breaks the runner's own JSON encoding: this cell crashes the process and is skipped
    "import builtins\nbuiltins.isinstance = lambda *args: True\nbuiltins.abs = lambda x: 0",
)
ZERO_DCG = "def dcg(rels, k):\n    return 0.0"

ALWAYS_EQUAL = '''class Anything:
    def __eq__(self, other):
        return True
    def __float__(self):
        raise TypeError("no")


class EqualFloat(float):
    def __eq__(self, other):
        return True
    __ne__ = lambda self, other: False


def dcg(rels, k):
    return Anything()


def ndcg(rels, k):
    return EqualFloat(0.0)'''

IPYTHON_HOOKS = '''ip = get_ipython()
ip.input_transformers_post.append(lambda lines: ["pass\\n"])
ip.events.register("pre_run_cell", lambda *args: None)
import sys
sys.settrace(None)


def dcg(rels, k):
    return 42.0'''

FLOOD = ("import os\nfor _ in range(200000):\n    print('spam ' * 20)\nfor _ in range(20000):\n    os.write(1, b'x' * 4096)\n    os.write(2, b'y' * 4096)",)
FLOOD_DCG = CORRECT_DCG + "\n\n_dcg = dcg\n\n\ndef dcg(rels, k):\n    print('called' * 1000)\n    return _dcg(rels, k)"

KILLERS = (
    "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError as error:\n    print(error)",
    "import os, signal\nos.killpg(0, signal.SIGKILL)",
    "import os, signal\nos.kill(-1, signal.SIGKILL)",
    "import os\nos._exit(0)",
    "import sys\nsys.exit(3)",
)

HOG = ("hog = bytearray(8 * 1024 ** 3)",)
HOG_DCG = "def dcg(rels, k):\n    blocks = []\n    while True:\n        blocks.append(bytearray(100 * 1024 ** 2))"

FORK_BOMB = ("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",)

EXITS_DCG = "import sys\n\n\ndef dcg(rels, k):\n    sys.exit(0)"
OS_EXIT_DCG = CORRECT_DCG + "\n\n_dcg = dcg\n\n\ndef dcg(rels, k):\n    if k > len(rels):\n        import os\n        os._exit(1)\n    return _dcg(rels, k)"


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    course = new_course(tmp_path_factory.mktemp("hostile") / "course")
    honest = ["alice", "honest_numpy", "zz_honest"]
    add_student(course, "alice")
    add_student(course, "honest_numpy", dcg="import numpy as np\n\n\ndef dcg(rels, k):\n    top = np.asarray(rels[:k], dtype=float)\n    return np.sum(top / np.log2(np.arange(2, top.size + 2)))")
    add_student(course, "zz_honest")
    add_student(course, "loop_dcg", dcg=LOOP)
    add_student(course, "ignores_signals", ndcg=IGNORE_SIGNALS)
    add_student(course, "sys_exit", dcg=EXITS_DCG)
    add_student(course, "os_exit_in_call", dcg=OS_EXIT_DCG)
    add_student(course, "killer", extra=KILLERS)
    add_student(course, "memory_hog", dcg=HOG_DCG, extra=HOG)
    add_student(course, "fork_bomb", extra=FORK_BOMB)
    add_student(course, "output_flood", dcg=FLOOD_DCG, extra=FLOOD)
    add_student(course, "monkeypatch", dcg=ZERO_DCG, extra=MONKEYPATCH)
    add_student(course, "always_equal", dcg=ALWAYS_EQUAL.split("\n\n\ndef ndcg")[0], ndcg="def ndcg" + ALWAYS_EQUAL.split("\n\n\ndef ndcg")[1])
    add_student(course, "ipython_hooks", dcg=IPYTHON_HOOKS)
    add_student(course, "reads_secrets", dcg=SECRETS)
    canary = tmp_path_factory.mktemp("canary")
    for name in ("notes.ipynb", "deep/er/thesis.ipynb"):
        (canary / name).parent.mkdir(parents=True, exist_ok=True)
        (canary / name).write_text("canary", encoding="utf-8")
    add_student(course, "vandal", extra=(VANDAL.format(course=course, canary=canary),))
    add_student(course, "renamed", name="ndcg (1).ipynb")
    add_raw(course, "empty", b"")
    good = notebook_path(course, "alice").read_bytes()
    add_raw(course, "truncated", good[: len(good) // 2])
    add_raw(course, "not_json", bytes(range(256)) * 10)
    add_raw(course, "not_a_notebook", b'{"hello": "world"}')
    (course / "submitted" / "missing" / "ndcg").mkdir(parents=True)
    (course / "submitted" / "no_folder").mkdir()
    for student, edit in {"deleted_tests": "delete", "edited_tests": "edit"}.items():
        path = add_student(course, student, dcg="def dcg(rels, k):\n    return 0.0" if edit == "edit" else CORRECT_DCG)
        notebook = json.loads(path.read_text())
        cells = []
        for cell in notebook["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("grade") or meta.get("grade_id") == "test_helpers":
                if edit == "delete":
                    continue
                cell["source"] = "def check_value(*args, **kwargs):\n    pass\n" if meta.get("grade_id") == "test_helpers" else "pass"
            cells.append(cell)
        notebook["cells"] = cells
        path.write_text(json.dumps(notebook))
    before = {
        p: hashlib.sha256(p.read_bytes()).hexdigest()
        for folder in (course / "submitted", canary) for p in folder.rglob("*") if p.is_file()
    }
    release_before = (course / "release" / "ndcg" / "ndcg.ipynb").read_bytes()
    done = grade(course, "--timeout", TIMEOUT, "--workers", "2", "--sandbox", "required")
    return course, done, results(course), before, honest, release_before


def test_the_batch_finishes_cleanly(batch):
    course, done, graded, *_ = batch
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr
    assert sorted(graded) == sorted(p.name for p in (course / "submitted").iterdir())


def test_honest_students_keep_full_marks(batch):
    _, _, graded, _, honest, _ = batch
    for student in [*honest, "renamed", "deleted_tests", "output_flood", "vandal"]:
        assert graded[student]["score"] == EXERCISE.max_score, (student, graded[student])
        assert graded[student]["status"] == "graded", (student, graded[student]["message"])
    assert "ndcg (1).ipynb" in graded["renamed"]["message"]


def test_infinite_loops_cost_only_their_tests(batch):
    graded = batch[2]
    assert graded["loop_dcg"]["status"] == "timeout"
    assert graded["loop_dcg"]["score"] == HAND + 0.0  # ndcg calls dcg, so it hangs too
    assert graded["ignores_signals"]["status"] == "timeout"
    assert graded["ignores_signals"]["score"] == HAND + DCG_POINTS


def test_exits_and_crashes(batch):
    graded = batch[2]
    assert graded["sys_exit"]["status"] == "graded"
    assert graded["sys_exit"]["score"] == HAND + 0.0  # sys.exit in dcg is an exception like any other
    reference = {"dcg": lambda r, k: ndcg_ref.dcg(r, k) if k <= len(r) else math.nan,
                 "ndcg": lambda r, k: ndcg_ref.ndcg(r, k) if k <= len(r) else math.nan}
    assert graded["os_exit_in_call"]["score"] == HAND + points_for(reference)
    assert graded["os_exit_in_call"]["score"] < EXERCISE.max_score


def test_killing_the_parent_or_the_group_only_ends_the_sandbox(batch):
    graded = batch[2]
    killer = graded["killer"]
    assert killer["score"] == EXERCISE.max_score
    assert killer["status"] == "graded"
    outcomes = {cell["index"]: cell["outcome"] for cell in killer["cells"]}
    assert "crashed" in outcomes.values()


def test_resource_hogs_are_contained(batch):
    graded = batch[2]
    assert graded["memory_hog"]["score"] == HAND + 0.0  # dcg runs out of memory (or time); ndcg calls it
    assert graded["memory_hog"]["status"] in ("graded", "timeout")
    assert any(c.get("error") == "MemoryError" for c in graded["memory_hog"]["cells"])
    assert graded["fork_bomb"]["score"] == EXERCISE.max_score
    assert graded["fork_bomb"]["status"] in ("graded", "timeout")


def test_patching_the_checks_earns_nothing(batch):
    graded = batch[2]
    # dcg returns 0.0; the correct ndcg calls it, so iDCG is 0 and it returns 0.0
    assert graded["monkeypatch"]["score"] == HAND + points_for({"dcg": lambda r, k: 0.0, "ndcg": lambda r, k: 0.0})
    assert graded["monkeypatch"]["score"] < HAND + DCG_POINTS
    assert graded["always_equal"]["score"] == HAND + points_for({"ndcg": lambda r, k: 0.0})
    assert graded["ipython_hooks"]["score"] == HAND + points_for({"dcg": lambda r, k: 42.0, "ndcg": lambda r, k: 1.0})


def test_sandbox_hides_the_course_and_the_grader(batch):
    graded = batch[2]
    # its dcg is right only if it could read or import something of the course; otherwise it
    # returns -1.0, and the correct ndcg built on it returns -1.0 / -1.0 = 1.0
    assert graded["reads_secrets"]["score"] == HAND + points_for({"dcg": lambda r, k: -1.0, "ndcg": lambda r, k: 1.0})
    assert graded["reads_secrets"]["score"] < EXERCISE.max_score - DCG_POINTS + 1


def test_nothing_outside_the_sandbox_changes(batch):
    course, _, _, before, _, release_before = batch
    for path, digest in before.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{path} was modified"
    assert (course / "release" / "ndcg" / "ndcg.ipynb").read_bytes() == release_before
    assert not (course / "gradebook.db").read_bytes().startswith(b"owned")
    assert json.loads((course / "graded" / "results.json").read_text())["students"]
    canaries = {path.name: path for path in before if path.name in ("notes.ipynb", "thesis.ipynb")}
    assert len(canaries) == 2 and all(path.read_text() == "canary" for path in canaries.values())
    assert not (canaries["notes.ipynb"].parent / "new-file-by-student").exists()


def test_corrupt_and_missing_notebooks(batch):
    graded = batch[2]
    for student in ("empty", "truncated", "not_json", "not_a_notebook"):
        assert graded[student]["status"] == "error", student
        assert graded[student]["score"] == 0.0
    assert "empty" in graded["empty"]["message"]
    assert "not valid JSON" in graded["truncated"]["message"]
    assert "not a Jupyter notebook" in graded["not_a_notebook"]["message"]
    for student in ("missing", "no_folder"):
        assert graded[student]["status"] == "missing"
    assert graded["edited_tests"]["score"] == HAND + points_for({"dcg": lambda r, k: 0.0, "ndcg": lambda r, k: 0.0})


def test_feedback_never_reveals_hidden_cases(batch):
    course = batch[0]
    pages = list((course / "graded" / "feedback").rglob("*.html"))
    assert len(pages) == len(batch[2])
    hidden = [case for group in GROUPS if not group.visible for case in group.cases]
    for page in pages:
        text = without_by_hand(page, page.read_text())  # Task 1.2's own list is public
        # by value, in any spelling (brackets, separators, numpy reprs, escapes): not only str(list(rels))
        assert leaked([text]) == [], page
        for case in hidden:
            assert repr(EXERCISE.expected(case)) not in text or len(repr(EXERCISE.expected(case))) <= 4, (page, case)
            assert f"{EXERCISE.expected(case):.4f}" not in text or len(repr(EXERCISE.expected(case))) <= 4 or case.call.args[0] == (1, 0, 2, 1, 0), (page, case)


def test_gradebook_matches_results(batch):
    from autograder.course.materials.nbgrader_commands import gradebook_scores

    course, _, graded, *_ = batch
    scores = gradebook_scores(course)
    for student, result in graded.items():
        if result["status"] == "missing":
            assert student not in scores
        else:
            assert scores[student] == (result["score"], EXERCISE.max_score), student
