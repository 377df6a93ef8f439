"""Threat: the sandbox's kernel surface. Student code that can reach kernel features shared between
sandboxes (directory watches, locks, the page cache, keyrings) or that widen what it can do (new
user namespaces and mounts, io_uring, userfaultfd, bpf, ptrace) can carry hidden inputs to a
classmate's run or attack the kernel. The seccomp filter is an allowlist (autograder/sandbox/
seccomp_policy.py); these tests run the real sandbox the grader uses:

- a probe script (kernel_probe.py) tries each refused family and gets EPERM; the same probe
  without the filter shows that each probe could have failed (the kernel itself would have said
  something else);
- honest work keeps working: the correct solutions and the corpus keep exactly their marks, and
  IPython magics, matplotlib figures, numpy, threads, processes and the walkthrough all run.

The probe touches only its own scratch home, memory and child processes.
"""

from __future__ import annotations

import errno
import json
import math
import platform
import shutil
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.pipeline import GradeOptions, grade_course
from autograder.sandbox import Bubblewrap, CallOrder, CellOutcome, choose_sandbox, run_submission
from autograder.sandbox.syscall_filter.syscalls import MACHINES
from ndcg_ref import ndcg

from corpus import CORPUS
from grading_run import add_student, new_course, python_in_sandbox
from honest_workload import honest_cells
from solutions import CORRECT_SOLUTIONS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
    pytest.mark.skipif(platform.machine() not in MACHINES, reason="no seccomp table for this machine"),
]

PROBE = (Path(__file__).with_name("kernel_probe.py")).read_text()
#: What the filter answers instead of EPERM, and why (seccomp_policy.FALL_BACK).
NOT_EPERM = {
    "clone3": errno.ENOSYS,  # glibc falls back to clone, whose flags the filter checks
    "preadv2 RWF_NOWAIT": errno.EOPNOTSUPP,  # preadv2 is ENOSYS; glibc then refuses the flag itself
}
#: Probes the kernel answers with something other than EPERM for any unprivileged process, whatever
#: the machine's settings (no capability, no sysctl involved): without the filter they must not say EPERM.
UNPRIVILEGED = (
    "fcntl F_NOTIFY", "fcntl F_SETLK", "fcntl F_SETOWN", "flock", "inotify_init1", "mincore", "posix_fadvise",
    "madvise MADV_WILLNEED", "mlock", "keyctl", "add_key", "bpf", "perf_event_open", "process_vm_readv",
    "pidfd_getfd", "seccomp", "splice", "ioctl TIOCSTI", "io_setup", "setns",
)


def _probe(sandbox: Bubblewrap) -> dict[str, int]:
    done = python_in_sandbox(sandbox, PROBE)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _names(results: dict[str, int]) -> dict[str, str]:
    return {name: errno.errorcode.get(code, str(code)) for name, code in results.items()}


@pytest.fixture(scope="module")
def sandbox() -> Bubblewrap:
    chosen = choose_sandbox("required")
    assert isinstance(chosen, Bubblewrap) and chosen.seccomp is not None
    return chosen


def test_each_refused_family_gets_eperm_and_the_basics_work(sandbox):
    results = _probe(sandbox)
    basics = results.pop("basics")
    wrong = {name: code for name, code in results.items() if code != NOT_EPERM.get(name, errno.EPERM)}
    assert not wrong, _names(wrong)
    assert basics == 0, "fcntl F_GETFL/F_DUPFD_CLOEXEC, pread, preadv, getrandom, fork, socketpair must work"
    # the families are all among the probes
    for family in ("fcntl F_NOTIFY", "flock", "inotify_init1", "fanotify_init", "unshare CLONE_NEWUSER + mount tmpfs",
                   "clone CLONE_NEWUSER", "io_uring_setup", "userfaultfd", "mincore", "posix_fadvise", "keyctl",
                   "bpf", "perf_event_open", "ptrace"):
        assert family in results


def test_the_probes_could_fail_without_the_filter(sandbox, monkeypatch):
    monkeypatch.setattr(sandbox, "seccomp", None)
    results = _probe(sandbox)
    assert results.pop("basics") == 0
    refused_anyway = {name for name, code in results.items() if code == errno.EPERM}
    assert not refused_anyway & set(UNPRIVILEGED), _names({n: results[n] for n in refused_anyway})
    assert results["fcntl F_NOTIFY"] == 0 and results["mincore"] == 0  # the leak channels of the issue work there


def test_correct_solutions_and_the_corpus_keep_their_marks_under_the_allowlist(tmp_path):
    course = new_course(tmp_path / "course")
    for name, (dcg, ndcg_source) in CORRECT_SOLUTIONS.items():
        add_student(course, f"correct_{name}", dcg=dcg, ndcg=ndcg_source)
    for number, implementation in enumerate(CORPUS):
        add_student(course, f"corpus_{number}", dcg=implementation.dcg, ndcg=implementation.ndcg)
    grade_course(GradeOptions(
        EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2, timeout=10,
        sandbox="required", gradebook="none", progress=False, course_root=course,
    ))
    students = {s["student_id"]: s for s in json.loads((course / "graded" / "results.json").read_text())["students"]}
    for name in CORRECT_SOLUTIONS:
        student = students[f"correct_{name}"]
        assert student["score"] == EXERCISE.max_score, (name, student["message"])
    for number, implementation in enumerate(CORPUS):
        lost = {test["name"] for test in students[f"corpus_{number}"]["tests"] if not test["passed"]}
        assert lost == implementation.loses, implementation.name


def test_magics_figures_numpy_processes_and_the_walkthrough_run_under_the_allowlist(sandbox):
    cells = honest_cells()
    lecture = (1, 0, 2, 1, 0)
    outcome = run_submission(sandbox, cells, [CallOrder(0, "ndcg", (lecture, 5))], timeout=60, budget=900)
    failed = {cells[i][:60]: (c.outcome, c.error, c.message, c.detail)
              for i, c in outcome.cells.items() if c.outcome is not CellOutcome.OK}
    assert not failed and len(outcome.cells) == len(cells), failed
    assert math.isclose(outcome.calls[0].value, ndcg(list(lecture), 5))  # the walkthrough's own solution
