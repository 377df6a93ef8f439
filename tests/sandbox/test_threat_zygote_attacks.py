"""A student attacks the warm zygote (:mod:`autograder.sandbox.inside.zygote`) and the grader's side of it.

Each attack runs in a forked run, as a student's notebook would: it tries to reach the run's
init or the zygote, to leave something a later run could find, to outlive its run, to make the
grader misreport how the run ended, or to behave differently than in a cold run. The grader's
side is attacked from the test: a zygote that dies mid-run, a failure between the fork and the
wait, two workers at once, descriptors left open. Hostile code only ever touches what the run
itself created; the grader's side only what the test created.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid

import pytest

from autograder.sandbox import CallOrder, CallOutcome, choose_sandbox, run_submission
from autograder.sandbox.isolation import zygotes as zygotes_module
from autograder.sandbox.isolation.zygotes import COLD_VARIABLE
from autograder.sandbox.resources.cgroups import RunGroup

from grading_run import needs_cgroups

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)"),
    needs_cgroups,
]


@pytest.fixture(scope="module")
def cold():
    previous = os.environ.get(COLD_VARIABLE)
    os.environ[COLD_VARIABLE] = "1"
    try:
        chosen = choose_sandbox("required")
    finally:
        if previous is None:
            del os.environ[COLD_VARIABLE]
        else:
            os.environ[COLD_VARIABLE] = previous
    assert chosen.zygotes is None
    return chosen


@pytest.fixture(scope="module")
def sandbox(warm_sandbox):
    return warm_sandbox


def _calls(sandbox, cells, *args, timeout: float = 20):
    orders = [CallOrder(number, "check", (arg,) if arg is not None else ()) for number, arg in enumerate(args or (None,))]
    outcome = run_submission(sandbox, list(cells), orders, timeout=timeout, budget=180)
    for number, cell in outcome.cells.items():
        assert cell.outcome.value == "ok", (number, cell)
    return list(outcome.calls.values()) if isinstance(outcome.calls, dict) else list(outcome.calls)


def _holds(sandbox, *cells: str) -> None:
    record = _calls(sandbox, cells)[0]
    assert record.value == 1.0, (record.message, record.detail)


# --- the run's init (PID 1) and the zygote's process group -------------------------------------


def test_signals_to_the_runs_init_do_not_end_the_run(sandbox):
    # the run's init is the run's own user id: it must not die of what a notebook can send it
    # (Python's SIGINT handler made it raise KeyboardInterrupt and take the run down)
    _holds(sandbox, """import os, signal, time
def check():
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT, signal.SIGSTOP):
        try:
            os.kill(1, number)
        except PermissionError:
            pass  # as in a cold run, whose init is not the run's user's
    os.killpg(0, signal.SIGUSR1)  # the session leader is the zygote's child, outside: not signalled
    time.sleep(0.5)
    return 1.0
""")


def test_the_runs_init_and_the_zygote_are_out_of_reach(sandbox):
    _holds(sandbox, """import os
def check():
    opened = []
    for path in ('/proc/1/mem', '/proc/1/environ', '/proc/1/maps', '/proc/1/fd'):
        try:
            os.listdir(path) if path.endswith('fd') else open(path, 'rb').close()
            opened.append(path)
        except PermissionError:
            pass
    if opened or os.getsid(0) != 0:  # the session leader (the zygote's child) is in no namespace of the run's
        raise ValueError((opened, os.getsid(0)))
    return 1.0
""")


# --- closing the streams ---------------------------------------------------------------------


def test_a_run_that_closes_its_streams_is_not_taken_for_ended(sandbox, cold, monkeypatch):
    # closing every descriptor used to look like the run's end to the grader at once (only the
    # runner held the pipes) while it went on running: the grader waited ANSWER_SECONDS for a
    # report of the end, killed the zygote and said "the Python process died"; a cold run's
    # sandbox holds the pipes until the runner ends, whose failure to report then ends it (exit 1,
    # where a forked runner's exception used to be taken for a failed set-up: 124)
    monkeypatch.setattr(zygotes_module, "ANSWER_SECONDS", 2.0)  # shorter than the notebook's sleep
    cells = ["import os, time\ndef check():\n    os.closerange(0, 1024)\n    time.sleep(5)\n    return 1.0\n"]
    _holds(sandbox, "def check():\n    return 1.0\n")
    started = sandbox.zygotes.started
    warm_record, = _calls(sandbox, cells)
    _holds(sandbox, "def check():\n    return 1.0\n")
    assert sandbox.zygotes.started == started, "the zygote was discarded"
    cold_record, = _calls(cold, cells)
    assert warm_record == cold_record
    assert warm_record.outcome is CallOutcome.CRASHED and "exited with code" in (warm_record.detail or "")


# --- warm runs are cold runs -----------------------------------------------------------------


_STATE = """import os, resource, signal, ctypes
def check(key):
    libc = ctypes.CDLL(None)
    state = {
        'dumpable': libc.prctl(3, 0, 0, 0, 0),
        'own /proc entries': [os.stat(f'/proc/self/{name}').st_uid == os.getuid() for name in ('fd', 'environ', 'mem')],
        'environ readable': os.access('/proc/self/environ', os.R_OK),
        'handlers': sorted((s.name, str(signal.getsignal(s))) for s in signal.Signals
                           if s not in (signal.SIGKILL, signal.SIGSTOP) and signal.getsignal(s) != signal.SIG_DFL),
        'blocked': sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        'environment': sorted(os.environ),
        'umask': os.umask(0o22),
        'limits': {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource)
                   if name.startswith('RLIMIT_') and name != 'RLIMIT_NPROC'},  # warm: one more for the run's init
        'cwd': os.getcwd(),
        'pid': (os.getpid(), os.getppid()),
    }
    raise ValueError(repr(state[key]))
"""
_KEYS = ("dumpable", "own /proc entries", "environ readable", "handlers", "blocked", "environment", "umask", "limits",
         "cwd", "pid")


def test_a_warm_runner_is_the_process_a_cold_one_is(sandbox, cold):
    # a forked runner was not dumpable (the zygote is not): its /proc entries were root's, so a
    # notebook could not read its own /proc/self/environ or list /proc/self/fd, unlike a cold run
    warm = {key: record.message for key, record in zip(_KEYS, _calls(sandbox, [_STATE], *_KEYS), strict=True)}
    cold_seen = {key: record.message for key, record in zip(_KEYS, _calls(cold, [_STATE], *_KEYS), strict=True)}
    assert warm == cold_seen
    assert warm["dumpable"] == "1"


# --- what a run could leave for the next one -------------------------------------------------


def test_no_writable_place_is_shared_with_later_runs(sandbox):
    # every writable folder a run sees must be one of the three tmpfs made fresh for it; the walk
    # only asks access(), it writes nothing
    _holds(sandbox, """import os
def check():
    fresh = ('/tmp', '/dev/shm', os.path.expanduser('~'))
    tops = sorted({line.split()[4] for line in open('/proc/self/mountinfo')})
    writable = []
    for top in tops:
        for folder, folders, _files in os.walk(top):
            if folder == '/proc' or folder.startswith('/proc/') or any(folder == f or folder.startswith(f + '/') for f in fresh):
                folders[:] = []
                continue
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                folders[:] = []
                continue
            if os.access(folder, os.W_OK):
                writable.append(folder)
    if writable:
        raise ValueError(writable)
    return 1.0
""")


def test_ipc_and_abstract_sockets_do_not_reach_the_next_run(sandbox):
    _holds(sandbox, """import ctypes, socket
libc = ctypes.CDLL(None, use_errno=True)
queue = libc.msgget(0, 0o1600)
semaphores = libc.semget(0, 1, 0o1600)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(b'\\0ndcg-kit-zygote-canary')
listener.listen(1)
def check():
    if min(queue, semaphores) < 0:
        raise ValueError(ctypes.get_errno())
    return 1.0
""")
    _holds(sandbox, """import socket
def check():
    rows = [open(f'/proc/sysvipc/{kind}').read().splitlines()[1:] for kind in ('msg', 'sem', 'shm')]
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(b'\\0ndcg-kit-zygote-canary')
        reached = True
    except OSError:
        reached = False
    if any(rows) or reached:
        raise ValueError((rows, reached))
    return 1.0
""")


def _processes_named(token: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/comm") as comm:
                    if comm.read().strip() == token:
                        found.append(int(name))
            except OSError:
                pass
    return found


def test_no_process_of_a_run_outlives_it(sandbox):
    # a daemon in a session of its own that ignores every signal it can: named so the test finds
    # it among the machine's processes (and only it)
    token = "zy" + uuid.uuid4().hex[:12]
    _holds(sandbox, f"""import os, signal, ctypes, time
def check():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b'{token}', 0, 0, 0)  # PR_SET_NAME
            for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                signal.signal(number, signal.SIG_IGN)
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    return 1.0
""")
    assert _processes_named(token) == []


# --- the grader's side ---------------------------------------------------------------------


def _open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def test_a_failure_between_fork_and_wait_leaves_the_zygote_in_step(sandbox, monkeypatch):
    _holds(sandbox, "def check():\n    return 1.0\n")  # a zygote idle in the pool
    started = sandbox.zygotes.started
    before = _open_fds()

    def refuse(self, pid):
        raise OSError("the test refuses to move the run into its cgroup")

    with monkeypatch.context() as patch:
        patch.setattr(RunGroup, "adopt", refuse)
        _holds(sandbox, "def check():\n    return 1.0\n")  # started cold instead
    # the same zygote forks the next run: its protocol is where the grader thinks it is
    _holds(sandbox, "def check():\n    return 2.0 - 1.0\n")
    assert sandbox.zygotes.started == started
    assert _open_fds() == before


def test_a_zygote_that_dies_mid_run_costs_that_run_only(sandbox, acquired, monkeypatch):
    taken = acquired
    record = {}

    def run():
        record["calls"] = _calls(sandbox, ["import time\ndef check():\n    time.sleep(30)\n    return 1.0\n"])

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 60
    while not taken and time.monotonic() < deadline:
        time.sleep(0.05)
    assert taken and taken[0] is not None
    time.sleep(1.0)  # the run is in its sleep
    taken[0]._process.kill()  # the test's own zygote: what the OOM killer could do
    worker.join(120)
    assert not worker.is_alive(), "the grader hung on a zygote that died"
    monkeypatch.undo()
    assert record["calls"][0].outcome in (CallOutcome.CRASHED, CallOutcome.TIMEOUT)
    _holds(sandbox, "def check():\n    return 1.0\n")  # a new zygote forks the next run


def test_two_workers_at_once_each_get_a_zygote_and_their_own_result(sandbox):
    results: dict[int, float | None] = {}

    def run(slot: int) -> None:
        outcome = run_submission(
            sandbox, [f"import time\ndef check():\n    time.sleep(0.5)\n    return {slot}.0 + 1\n"],
            [CallOrder(0, "check", ())], timeout=20, budget=120, slot=slot,
        )
        calls = list(outcome.calls.values()) if isinstance(outcome.calls, dict) else list(outcome.calls)
        results[slot] = calls[0].value

    for _ in range(2):
        workers = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(120)
        assert results == {0: 1.0, 1: 2.0}


def test_no_descriptor_is_left_open_by_warm_runs(sandbox):
    _holds(sandbox, "def check():\n    return 1.0\n")
    before = _open_fds()
    for _ in range(3):
        _holds(sandbox, "def check():\n    return 1.0\n")
    record = _calls(sandbox, ["import os, signal\ndef check():\n    os.kill(os.getpid(), signal.SIGKILL)\n"])[0]
    assert record.outcome is CallOutcome.CRASHED
    assert _open_fds() == before



def test_closing_the_pool_spares_a_run_in_progress(sandbox):
    # Sandbox.close (a batch that is done) ended the thread that starts zygotes, and bubblewrap
    # ends a zygote with that thread: a run another worker still had in it died with it
    record = {}

    def run():
        record["calls"] = _calls(sandbox, ["import time\ndef check():\n    time.sleep(3)\n    return 1.0\n"])

    _holds(sandbox, "def check():\n    return 1.0\n")  # a zygote idle in the pool, taken by the run below
    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(1.5)  # the run is in its sleep (and if not yet, close() must spare its start too)
    sandbox.zygotes.close()
    worker.join(120)
    assert record["calls"][0].value == 1.0, record["calls"][0]
    _holds(sandbox, "def check():\n    return 1.0\n")  # and the pool serves runs after it


def test_a_warm_run_killed_by_a_signal_is_crashed_as_a_cold_one(sandbox, cold):
    # measured: warm names the signal ("killed by SIGSEGV"), cold says bubblewrap's "exited with code 139"
    cells = ["import ctypes\ndef check():\n    ctypes.string_at(0)\n"]
    warm_record, = _calls(sandbox, cells)
    cold_record, = _calls(cold, cells)
    assert warm_record.outcome is cold_record.outcome is CallOutcome.CRASHED


def test_what_a_run_changes_in_the_zygotes_modules_stays_in_that_run(sandbox):
    # the zygote's memory (numpy, the runner, os.environ) is copied on write into each run
    _holds(sandbox, """import os, sys, numpy, random
numpy._zygote_canary = 'hidden input: [3, 1, 4]'
sys.modules['zygote_canary'] = numpy
os.environ['ZYGOTE_CANARY'] = '1'
random.seed(12345)
def check():
    return 1.0
""")
    _holds(sandbox, """import os, sys, numpy
def check():
    found = [hasattr(numpy, '_zygote_canary'), 'zygote_canary' in sys.modules, 'ZYGOTE_CANARY' in os.environ]
    if any(found):
        raise ValueError(found)
    return 1.0
""")


def test_a_warm_run_has_the_processes_a_cold_one_has(sandbox, cold):
    # the run's init and the forked process count against the run's limits as bubblewrap's do cold
    cells = ["""import os, time, signal
def check():
    children = []
    while len(children) < 1000:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return float(len(children))
"""]
    warm_record, = _calls(sandbox, cells)
    cold_record, = _calls(cold, cells)
    # measured: 63 each (the runner and 63 children of a limit of 64); one fewer when a process of
    # the user id from the run before has not been freed yet, so the bound, not the equality
    limit = sandbox.limits.processes
    for record in (warm_record, cold_record):
        assert record.value is not None and limit / 2 < record.value < limit, (warm_record, cold_record)


def test_the_zygotes_own_file_systems_are_read_only_in_a_run(sandbox):
    # bubblewrap's root and /dev tmpfs are the zygote's, shared by every run it forks (a new mount
    # namespace copies the mounts, not the files): as root their folders are not the run's user's,
    # but without root (a user namespace) the run has the zygote's user id and could write there
    _holds(sandbox, """import os
def check():
    fresh = ('/tmp', '/dev/shm', os.path.expanduser('~'))
    shared = []
    for line in open('/proc/self/mountinfo'):
        fields = line.split()
        point, options, kind = fields[4], fields[5].split(','), line.split(' - ')[1].split()[0]
        if kind == 'tmpfs' and 'rw' in options and point not in fresh:
            shared.append(point)
    if shared:
        raise ValueError(shared)
    return 1.0
""")


def _descendants(pid: int) -> list[tuple[int, str]]:
    """The processes below ``pid`` (one of the test's own), with their state letter."""
    found = []
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            kids = [int(kid) for kid in children.read().split()]
    except OSError:
        return found
    for kid in kids:
        try:
            with open(f"/proc/{kid}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        found += [(kid, state), *_descendants(kid)]
    return found


def test_runs_killed_on_timeout_leave_no_process_behind_in_the_zygote(sandbox, acquired):
    # a killed run's init died after its C and became the zygote's child, never reaped: a zombie
    # of the run's user id, counted against that id's process limit after its lease was given
    # back; enough timed-out notebooks left later runs with that id (another grader's, too) unable
    # to fork (measured: zombies of the sandbox user ids under other graders' zygotes on this machine)
    taken = acquired
    outcome = run_submission(sandbox, ["while True:\n    pass\n"] * 3, [], timeout=0.3, budget=120)
    assert [cell.outcome.value for cell in outcome.cells.values()] == ["timeout"] * 3
    zygotes = {id(zygote): zygote for zygote in taken if zygote is not None}
    assert zygotes
    for zygote in zygotes.values():
        assert zygote.alive
        left = _descendants(zygote._process.pid)
        # bubblewrap's process, then the zygote: nothing below it between runs
        assert len(left) <= 2 and all(state != "Z" for _pid, state in left), left
