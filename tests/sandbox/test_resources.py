"""Neighbours cannot steal time, memory or disk: limits per sandbox (cgroups) and capped scratch space.

An honest student's results must not depend on the rest of the batch, nor on the machine's load:
graded alone, beside a CPU hog and a memory hog, or beside busy processes outside the grader,
they are identical. Hostile code here only touches what it creates itself: its children end on
their own after a few seconds, its shared memory is unlinked as soon as it is made, and the files
it writes are in its own (temporary) home and /tmp; so a regressed sandbox costs some seconds
and memory, never the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.exercises.ndcg import EXERCISE
from autograder.sandbox.resources.cgroups import CgroupsUnavailable, detect
from autograder.sandbox.resources.limits import Limits
from autograder.sandbox.runs.deadline import ItemClock, backstop

from grading_run import CORRECT_DCG, add_student, grade, needs_bwrap, needs_cgroups, new_course, results

pytestmark = pytest.mark.slow  # most start sandboxes or the grader; the clock tests are quick



TIMEOUT = "2"
LIMIT = Limits().memory_bytes
SCRATCH = Limits().scratch_bytes

# ---------------------------------------------------------------- the clock (fast, no sandbox)


def test_the_item_clock_judges_cpu_time_with_a_wall_clock_backstop():
    used = [0.0]
    clock = ItemClock(lambda: used[0], budget=100.0)
    clock.start(2.0)
    assert clock.overrun() is None
    used[0] = 1.9
    assert clock.overrun() is None and 0 < clock.wait() <= 0.5
    used[0] = 2.0
    assert clock.overrun() == "timeout" and "CPU time" in clock.detail
    clock.start(2.0)  # the next item starts from the CPU time used so far
    assert clock.overrun() is None
    assert backstop(2.0) == 32.0 and backstop(20.0) == 60.0


def test_without_a_cgroup_the_item_clock_is_wall_clock():
    clock = ItemClock(None, budget=100.0)
    clock.start(0.05)
    assert clock.overrun() is None
    time.sleep(0.06)
    assert clock.overrun() == "timeout" and clock.detail == "no answer within 0.05 s"
    clock = ItemClock(lambda: 0.0, budget=0.05)
    clock.start(10.0)
    time.sleep(0.06)
    assert clock.overrun() == "budget"


# ---------------------------------------------------------------- one run's cgroup


def _in_group(group, code: str, timeout: float = 60, capture: bool = True) -> subprocess.CompletedProcess:
    output = subprocess.PIPE if capture else subprocess.DEVNULL  # an escaped child would hold a pipe open
    return subprocess.run(
        [*group.enter_prefix(), sys.executable, "-I", "-c", textwrap.dedent(code)],
        stdout=output, stderr=output, text=True, timeout=timeout,
    )


@needs_cgroups
def test_a_runs_memory_limit_counts_its_children_and_their_shared_memory():
    small = 256 * 1024**2
    cgroups = detect(Limits(memory_bytes=small))
    group = cgroups.new_run()
    try:
        # four children write 128 MiB each into memfds (not mapped: only a cgroup sees them)
        done = _in_group(group, '''
            import os
            pipes = []
            for _ in range(4):
                r, w = os.pipe()
                if os.fork() == 0:
                    fd, n = os.memfd_create("hog"), 0
                    try:
                        for _ in range(128):
                            os.write(fd, b"x" * 2**20)
                            n += 1
                    except OSError:
                        pass
                    os.write(w, str(n).encode())
                    os._exit(0)
                os.close(w)
                pipes.append(r)
            print(sum(int(os.read(r, 20) or b"0") for r in pipes))
        ''')
    finally:
        group.remove()
        cgroups.close()
    held = int(done.stdout) if done.stdout.strip() else 0  # killed by the group's OOM killer: nothing printed
    assert held * 2**20 < small, (done.returncode, done.stdout, done.stderr[-500:])
    assert all(not folder.exists() for folder in group.folders)


@needs_cgroups
def test_processes_that_left_the_session_are_killed_with_the_run(tmp_path):
    cgroups = detect(Limits())
    group = cgroups.new_run()
    pid_file = tmp_path / "escaped"
    try:
        done = _in_group(group, f'''
            import os, time
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    open({str(pid_file)!r}, "w").write(str(os.getpid()))
                    time.sleep(60)  # ends by itself if the group does not kill it
                os._exit(0)
            time.sleep(0.5)
        ''', capture=False)
        assert done.returncode == 0
        escaped = int(pid_file.read_text())
        assert Path(f"/proc/{escaped}").exists()
    finally:
        group.remove()
        cgroups.close()
    time.sleep(0.1)
    assert not Path(f"/proc/{escaped}").exists() or "Z" in Path(f"/proc/{escaped}/stat").read_text().split()[2]


@needs_cgroups
def test_a_run_gets_one_core_and_its_own_cpu_time():
    cgroups = detect(Limits())
    group = cgroups.new_run()
    try:
        start = time.monotonic()
        # four busy processes for one second of wall time: at most one core between them
        done = _in_group(group, '''
            import os, time
            kids = [pid for pid in (os.fork() for _ in range(3)) if pid]
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                pass
            if len(kids) == 3:
                for pid in kids:
                    os.waitpid(pid, 0)
            else:
                os._exit(0)
        ''')
        wall = time.monotonic() - start
        used = group.cpu_seconds()
    finally:
        group.remove()
        cgroups.close()
    assert done.returncode == 0, done.stderr
    assert used is not None and 0.3 < used < wall + 0.3, (used, wall)


# ---------------------------------------------------------------- whole batches

MATPLOTLIB_FIRST = "%matplotlib inline\nimport matplotlib.pyplot as plt"
#: A student's habits: magics, a warning, a shell escape, numpy and a plot, dcg through a helper. The first
#: cell's matplotlib import needs 0.7-0.8 s of CPU time on an idle machine (graded alone with --timeout 0.6
#: it times out, with 0.7 it loses points; with 1 s beside the hostile batch it once lost 2 points): TIMEOUT is 2 s.
STUDENT_HABITS = (
    "%matplotlib inline\nimport numpy as np\nimport matplotlib.pyplot as plt\nprint('hello')",
    "import warnings\nwarnings.warn('careful')\n!echo shell escape\n%time x = sum(range(10))",
    "def helper(i):\n    return np.log2(i + 2)\nplt.plot([1, 2], [3, 4])\nplt.show()",
)
HABIT_DCG = "def dcg(rels, k):\n    return float(sum(r / helper(i) for i, r in enumerate(rels[:k])))"
HONEST = {
    "h_plain": {},
    "h_habits": {"dcg": HABIT_DCG, "extra": STUDENT_HABITS},
    "h_numpy": {"dcg": "import numpy as np\n\n\ndef dcg(rels, k):\n    top = np.asarray(rels[:k], dtype=float)\n    return np.sum(top / np.log2(np.arange(2, top.size + 2)))"},
    "h_matplotlib": {"extra": (MATPLOTLIB_FIRST, "plt.plot([1, 2], [3, 4])\nplt.show()")},
    "h_wrong": {"dcg": "def dcg(rels, k):\n    return float(sum(rels[:k]))"},
}

# 60 children, each in its own session, spinning for at most 20 s; the cell itself returns at once,
# and the hog's sandbox stays up for a while with the cells that follow it (SLEEPS)
CPU_HOG = '''import os, time
for _ in range(60):
    try:
        if os.fork() == 0:
            os.setsid()
            end = time.monotonic() + 20
            while time.monotonic() < end:
                pass
            os._exit(0)
    except OSError:
        pass'''
SLEEPS = ("import time\ntime.sleep(1.5)",) * 5  # 7.5 s in each of its three processes: the honest are graded meanwhile

# four children, each with an unlinked /dev/shm file (as far as it goes) and 640 MiB of memfds: more
# than the 2 GiB of a sandbox; PEAK is the most they held at once (a child's memory is freed when it
# dies); the children end by themselves a few seconds later
MEMORY_HOG = '''import os, select, time
CHUNK = 2 ** 20
pipes = {}
for number in range(4):
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(r)
        try:
            path = f"/dev/shm/hog-{os.getpid()}"
            shm = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            os.unlink(path)
            for _ in range(32):
                os.write(shm, b"x" * CHUNK)
                os.write(w, b"+")
        except OSError:
            pass
        try:
            held = []
            for _ in range(10):  # 10 x 64 MiB: each file stays within the 64 MiB file size limit
                held.append(os.memfd_create("hog"))
                for _ in range(64):
                    os.write(held[-1], b"x" * CHUNK)
                    os.write(w, b"+")
        except OSError:
            pass
        time.sleep(3)
        os._exit(0)
    os.close(w)
    os.set_blocking(r, False)
    pipes[r] = 0
# the kernel's OOM killer, when it acts, ends this process rather than a child: whether the children's
# count below overshoots after a child is killed depends on the order the kernel releases its files in
with open("/proc/self/oom_score_adj", "w") as adj:
    adj.write("1000")
PEAK = 0
end = time.monotonic() + 30
while pipes and time.monotonic() < end:
    # drain every ready pipe before summing: a killed child's backlog, read bit by bit while the
    # others refill the memory it freed, would count twice (its end of file is at the backlog's end)
    for r in select.select(list(pipes), [], [], 1)[0]:
        while r in pipes:
            try:
                data = os.read(r, 1 << 16)
            except BlockingIOError:
                break
            if data:
                pipes[r] += len(data)
            else:
                del pipes[r]
    PEAK = max(PEAK, sum(pipes.values()) * CHUNK)'''
CONTAINED_DCG = CORRECT_DCG.replace(
    "def dcg(rels, k):\n",
    f"def dcg(rels, k):\n    if 'PEAK' in globals() and not {LIMIT // 2} < PEAK <= {LIMIT}:\n        return -1.0\n",
)


def _honest_course(path: Path) -> Path:
    course = new_course(path)
    for student, parts in HONEST.items():
        add_student(course, student, **parts)
    return course


def _comparable(record: dict) -> dict:
    """What a student gets: score, status, message, tests, diagnoses (no timings or paths)."""
    return {key: record[key] for key in ("score", "status", "message", "tests", "diagnoses")}


@pytest.fixture(scope="module")
def alone_and_beside_hogs(tmp_path_factory):
    base = tmp_path_factory.mktemp("neighbours")
    alone = _honest_course(base / "alone")
    done_alone = grade(alone, "--timeout", TIMEOUT, "--workers", "3", "--sandbox", "required", "--gradebook", "none")
    beside = _honest_course(base / "beside")
    # the hogs sort first, so they start first and run while the honest students are graded
    add_student(beside, "a_cpu_hog", extra=(CPU_HOG, *SLEEPS))
    add_student(beside, "a_memory_hog", dcg=CONTAINED_DCG, extra=(MEMORY_HOG,))
    done_beside = grade(beside, "--timeout", TIMEOUT, "--workers", "3", "--sandbox", "required", "--gradebook", "none")
    return done_alone, results(alone), done_beside, results(beside)


@needs_bwrap
@needs_cgroups
def test_honest_results_do_not_depend_on_hogs_in_the_batch(alone_and_beside_hogs):
    done_alone, alone, done_beside, beside = alone_and_beside_hogs
    assert done_alone.returncode == 0, done_alone.stderr[-2000:]
    assert done_beside.returncode == 0, done_beside.stderr[-2000:]
    assert "no writable cgroups" not in done_beside.stderr
    for student in HONEST:
        assert _comparable(beside[student]) == _comparable(alone[student]), student
    for student in ("h_plain", "h_habits", "h_numpy", "h_matplotlib"):
        assert alone[student]["score"] == EXERCISE.max_score, alone[student]


@needs_bwrap
@needs_cgroups
def test_the_memory_hog_never_held_more_than_its_limit(alone_and_beside_hogs):
    hog = alone_and_beside_hogs[3]["a_memory_hog"]
    # its dcg is wrong (-1) if its children ever held more than the limit at once (or, if its cell
    # finished, did not even get to half of it); if the OOM killer ended the hog's cell, the cell
    # is skipped and dcg is right too
    assert hog["score"] == EXERCISE.max_score, hog


FILLER = f'''import os
CAP = {SCRATCH}
def fill(folder):
    total = 0
    path = os.path.join(folder, "big-0")
    try:
        with open(path, "wb") as handle:
            os.posix_fallocate(handle.fileno(), 0, 2 * 1024 ** 3)
        total = os.path.getsize(path)
    except OSError:
        pass
    for number in range(1, 17):  # at most 16 x 16 MiB = 4 x the cap, each under the file size limit
        try:
            with open(os.path.join(folder, f"big-{{number}}"), "wb") as handle:
                for _ in range(16):
                    handle.write(b"x" * 2 ** 20)
                    handle.flush()
                    total += 2 ** 20
        except OSError:
            break
    return total
WRITTEN = {{folder: fill(folder) for folder in (os.path.expanduser("~"), "/tmp", "/dev/shm")}}
MOUNTS = {{line.split()[1]: line.split()[3] for line in open("/proc/mounts")}}
CAPPED = all(MOUNTS.get(folder, "").count("size=") for folder in WRITTEN) and MOUNTS[os.path.expanduser("~")].startswith("rw")'''
FILLER_DCG = CORRECT_DCG.replace(
    "def dcg(rels, k):\n", "def dcg(rels, k):\n    if not CAPPED or max(WRITTEN.values()) > CAP or min(WRITTEN.values()) == 0:\n        return -1.0\n"
)


@needs_bwrap
def test_a_submission_cannot_fill_the_disk(tmp_path):
    course = new_course(tmp_path / "course")
    add_student(course, "filler", dcg=FILLER_DCG, extra=(FILLER,))
    add_student(course, "zz_after")
    done = grade(course, "--timeout", "10", "--workers", "1", "--sandbox", "required", "--gradebook", "none")
    assert done.returncode == 0, done.stderr[-2000:]
    graded = results(course)
    # full marks only if each writable folder is a size-capped tmpfs that stopped it at the cap
    assert graded["filler"]["score"] == EXERCISE.max_score, graded["filler"]
    assert graded["zz_after"]["score"] == EXERCISE.max_score


@pytest.fixture
def busy_machine():
    """Two busy programs per core outside the grader, each in its own session as unrelated programs
    are (so the kernel's autogroups do not lump them together); each ends by itself after two minutes."""
    spin = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end:\n    pass"
    processes = [
        subprocess.Popen([sys.executable, "-c", spin], start_new_session=True) for _ in range(2 * (os.cpu_count() or 1))
    ]
    yield
    for process in processes:
        process.kill()
        process.wait()


# busy programs on both cores outside any sandbox, on purpose: make test runs it alone, never beside
# another pytest worker (the hogs of the other tests here are held to a core each by their cgroups)
@pytest.mark.serial
@needs_bwrap
@needs_cgroups
def test_matplotlib_first_cell_keeps_full_marks_on_a_loaded_machine(tmp_path, busy_machine):
    course = new_course(tmp_path / "course")
    for number in range(2):  # one per worker: both sandboxes import matplotlib at once, beside the load
        add_student(course, f"plots{number}", extra=(MATPLOTLIB_FIRST,))
    done = grade(course, "--timeout", TIMEOUT, "--workers", "2", "--sandbox", "required", "--gradebook", "none")
    assert done.returncode == 0, done.stderr[-2000:]
    for student, record in results(course).items():
        assert (record["score"], record["status"]) == (EXERCISE.max_score, "graded"), (student, record["message"])


def test_without_cgroups_the_reason_is_given():
    with pytest.raises(CgroupsUnavailable, match="no cgroup v1 'memory' hierarchy"):
        detect(Limits(), proc_self=_fake_proc_self(Path(os.environ.get("TMPDIR", "/tmp")), "", "0::/\n"))


def _fake_proc_self(folder: Path, mountinfo: str, cgroup: str) -> Path:
    folder = folder / f"fake-proc-self-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    (folder / "mountinfo").write_text(mountinfo)
    (folder / "cgroup").write_text(cgroup)
    return folder


@needs_bwrap
def test_without_cgroups_a_batch_warns_once_and_grades(tmp_path, monkeypatch, capsys):
    from autograder.pipeline import GradeOptions, grade_course
    from autograder.sandbox.isolation import choice

    def unavailable(limits):
        raise CgroupsUnavailable("none here (test)")

    monkeypatch.setattr(choice, "detect", unavailable)
    course = new_course(tmp_path / "course")
    for student in ("alice", "bob", "carol"):
        add_student(course, student)
    run = grade_course(GradeOptions(
        exercise=EXERCISE, submitted=course / "submitted", out=course / "graded", workers=2, sandbox="required",
        gradebook="none", progress=False, course_root=course,
    ))
    assert capsys.readouterr().err.count("no writable cgroups here (none here (test))") == 1
    assert [s.score for s in run.batch.students] == [EXERCISE.max_score] * 3
