"""Runs forked from one warm zygote (:mod:`autograder.sandbox.isolation.zygotes`) share nothing a run could use.

One zygote forks every run of a worker, so what one student's run leaves behind must not reach
the next run: files in ``/tmp``, ``/dev/shm`` and home, System V shared memory, the random
generators' state. A run must not see or signal the zygote, keep any capability, or run outside
its cgroup, seccomp filter and user id. Each check is a function in the run that returns 1.0
when it holds, and raises with what it saw when it does not (the message is in the record).
"""

from __future__ import annotations

import os
import shutil

import pytest

import ndcg_ref
from autograder.sandbox import CallOrder, CallOutcome, choose_sandbox, run_submission
from autograder.sandbox.isolation.zygotes import COLD_VARIABLE
from autograder.sandbox.resources.limits import FIRST_SANDBOX_UID

from grading_run import needs_cgroups

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (.ci/run installs it)"),
    needs_cgroups,
]


@pytest.fixture(scope="module")
def sandbox(warm_sandbox):
    return warm_sandbox


def _check(sandbox, *cells: str) -> tuple[float | None, str | None]:
    """Run ``cells`` (the last defines ``check()``), call ``check()``: its value, or what it raised."""
    outcome = run_submission(sandbox, list(cells), [CallOrder(0, "check", ())], timeout=20, budget=120)
    for number, cell in outcome.cells.items():
        assert cell.outcome.value == "ok", (number, cell)
    record = outcome.calls[0]
    return record.value, record.message


def _holds(sandbox, *cells: str) -> None:
    value, message = _check(sandbox, *cells)
    assert value == 1.0, message


def test_runs_are_forked_warm_with_numpy_already_imported(sandbox):
    started = sandbox.zygotes.started
    for _ in range(3):
        _holds(sandbox, "import sys\ndef check():\n    if 'numpy' not in sys.modules:\n        raise ValueError(sorted(sys.modules))\n    return 1.0\n")
    assert sandbox.zygotes.started - started <= 1, "each run started a zygote of its own"


def test_a_run_sees_no_process_but_its_own_and_not_the_zygote(sandbox):
    _holds(sandbox, """import os
def check():
    seen = sorted(int(name) for name in os.listdir('/proc') if name.isdigit())
    if seen != [1, os.getpid()] or os.getppid() != 1:  # the run's init and the runner
        raise ValueError(seen)
    return 1.0
""")


def test_a_run_keeps_no_capability_and_runs_filtered_as_a_sandbox_user(sandbox):
    _holds(sandbox, f"""import os
def check():
    status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines())
    fields = {{key: status[key].strip() for key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp')}}
    uid_ok = os.getuid() >= {FIRST_SANDBOX_UID} if {os.geteuid() == 0} else os.getuid() == {os.geteuid()}
    caps_zero = all(int(fields[key], 16) == 0 for key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'))
    if not (caps_zero and fields['NoNewPrivs'] == '1' and fields['Seccomp'] == '2' and uid_ok and os.getgroups() == []):
        raise ValueError((fields, os.getuid(), os.getgroups()))
    return 1.0
""")


def test_files_left_in_scratch_space_do_not_reach_the_next_run(sandbox):
    leave = """import os
for folder in ('/tmp', '/dev/shm', os.path.expanduser('~')):
    with open(os.path.join(folder, 'canary-from-the-last-student'), 'w') as canary:
        canary.write('hidden input: [3, 1, 4]')
def check():
    return 1.0
"""
    _holds(sandbox, leave)
    _holds(sandbox, """import os
def check():
    found = [os.path.join(folder, name) for folder in ('/tmp', '/dev/shm', os.path.expanduser('~'))
             for name in os.listdir(folder)]
    # but the sandbox's own read-only mounts: a kit that lives under /tmp has its venv bound there
    found = [path for path in found if not os.path.ismount(path)]
    if found:
        raise ValueError(found)
    return 1.0
""")


def test_system_v_shared_memory_does_not_reach_the_next_run(sandbox):
    _holds(sandbox, """import ctypes
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600: left behind on purpose
def check():
    if segment < 0:
        raise ValueError(ctypes.get_errno())
    return 1.0
""")
    _holds(sandbox, """def check():
    rows = open('/proc/sysvipc/shm').read().splitlines()[1:]
    if rows:
        raise ValueError(rows)
    return 1.0
""")


def test_each_run_draws_its_own_random_numbers(sandbox):
    draw = "import random\nimport numpy\ndef check():\n    return random.random() + numpy.random.rand()\n"
    values = [_check(sandbox, draw)[0] for _ in range(3)]
    assert None not in values
    assert len(set(values)) == 3, values


def test_a_run_that_kills_itself_is_reported_killed(sandbox):
    # the runner is not PID 1 of its namespace, whose signals to itself the kernel would ignore
    outcome = run_submission(
        sandbox, ["import os, signal\ndef check():\n    os.kill(os.getpid(), signal.SIGKILL)\n"],
        [CallOrder(0, "check", ())], timeout=20, budget=120,
    )
    assert outcome.calls[0].outcome is CallOutcome.CRASHED
    assert "SIGKILL" in (outcome.calls[0].detail or "")


def test_a_zygote_killed_between_runs_is_replaced(sandbox):
    _holds(sandbox, "def check():\n    return 1.0\n")
    sandbox.zygotes.close()  # what the kernel's OOM killer or a crash would leave: no idle zygote
    _holds(sandbox, "def check():\n    return 1.0\n")


def test_cold_starts_can_be_asked_for(monkeypatch):
    monkeypatch.setenv(COLD_VARIABLE, "1")
    cold = choose_sandbox("required")
    assert cold.zygotes is None
    _holds(cold, "import sys\ndef check():\n    return 0.0 if 'numpy' in sys.modules else 1.0\n")


def test_warm_and_cold_runs_report_the_same(sandbox, monkeypatch):
    cells = [
        "import numpy as np\ndef dcg(rels, k):\n    return float(sum(r / np.log2(i + 2) for i, r in enumerate(rels[:k])))\n",
        "def ndcg(rels, k):\n    return dcg(rels, k) / dcg(sorted(rels, reverse=True), k)\n",
        "def broken(rels, k):\n    return rels[k]\n",
    ]
    calls = [
        CallOrder(0, "dcg", ((1, 0, 2, 1, 0), 5)), CallOrder(1, "ndcg", ((1, 0, 2, 1, 0), 5)),
        CallOrder(2, "ndcg", ((0, 0), 2)), CallOrder(3, "broken", ((1, 2), 7)), CallOrder(4, "missing", ()),
    ]
    warm = run_submission(sandbox, cells, calls, timeout=20, budget=120)
    monkeypatch.setenv(COLD_VARIABLE, "1")
    cold = run_submission(choose_sandbox("required"), cells, calls, timeout=20, budget=120)
    assert warm == cold
    assert warm.calls[0].value == pytest.approx(ndcg_ref.dcg([1, 0, 2, 1, 0], 5))


def test_a_zygote_outlives_the_worker_thread_whose_run_started_it(sandbox):
    # bubblewrap ends a process when the thread that started it ends: a worker thread that is done
    # must not take the zygote (and another worker's run in it) along
    import threading

    sandbox.zygotes.close()
    worker = threading.Thread(target=_holds, args=(sandbox, "def check():\n    return 1.0\n"))
    worker.start()
    worker.join()
    started = sandbox.zygotes.started
    _holds(sandbox, "def check():\n    return 1.0\n")
    assert sandbox.zygotes.started == started, "the zygote ended with the thread whose run started it"


def test_where_the_kernel_refuses_a_warm_run_runs_start_cold():
    # a zygote without CAP_SYS_ADMIN starts, but none of its runs can have namespaces of its own:
    # its trial run finds that before any student's run, and every run starts cold instead
    from autograder.sandbox.isolation.zygotes import ZygotePool

    crippled = choose_sandbox("required")

    def without_admin(control_fd: int):
        argv, fds = type(crippled)._zygote_command(crippled, control_fd)
        at = argv.index("CAP_SYS_ADMIN")
        return argv[: at - 1] + argv[at + 1:], fds

    crippled.zygotes = ZygotePool(without_admin, crippled.limits)
    _holds(crippled, "import sys\ndef check():\n    return 0.0 if 'numpy' in sys.modules else 1.0\n")
    assert crippled.zygotes.disabled is not None and "did not start" in crippled.zygotes.disabled
    crippled.close()


def test_the_zygote_holds_only_the_capabilities_it_needs(sandbox):
    # as root bubblewrap keeps every capability of root unless told otherwise
    _holds(sandbox, "def check():\n    return 1.0\n")
    zygote = sandbox.zygotes._idle[0]
    bwrap = zygote._process.pid
    inside = [
        int(entry) for entry in os.listdir("/proc")
        if entry.isdigit() and _field(int(entry), "PPid") == str(bwrap)
    ]
    assert len(inside) == 1, inside
    # CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP, CAP_SYS_ADMIN
    wanted = sum(1 << number for number in (5, 6, 7, 8, 21))
    assert int(_field(inside[0], "CapEff"), 16) == wanted
    assert int(_field(inside[0], "CapPrm"), 16) == wanted


def _field(pid: int, name: str) -> str | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key == name:
                    return value.strip()
    except OSError:
        pass
    return None
