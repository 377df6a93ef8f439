"""nbgrader's and the grader's commands, forked from an interpreter that has imported them once.

Each ``nbgrader ...`` or ``python -m autograder ...`` a test runs with :func:`subprocess.run` would
start a new Python that imports nbgrader, nbconvert, SQLAlchemy, matplotlib and the kit before it
does anything: 1–2 s of CPU time each, a few hundred times in ``make test``. Instead, one interpreter
per pytest process imports them once (``prestarted_server.py``) and forks each command from there.
The command still runs in a process of its own, from its own entry point, with its folder,
environment, arguments, stdin/stdout/stderr and exit code, and its exit handlers run; what it
prints and returns reach the test as :func:`subprocess.run` gives them.

What a fork cannot show is what happens before the entry point: the imports, what they print, the
start-up time. The tests marked ``cold_start`` see real processes only (the docs commands and
nbgrader's noise do), and every command this module does not recognise, or that asks for more than
captured output, runs as a real process. ``TESTS_COLD_START=1`` starts every command cold.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from grading_run import ROOT, stop_process_group

SERVER = Path(__file__).with_name("prestarted_server.py")
NBGRADER = str(Path(sys.executable).parent / "nbgrader")
real_run = subprocess.run
#: Set by conftest.py for each test: a test marked ``cold_start`` starts every command as a new process.
cold = False


KIT = ROOT / "autograder"


def command_kind(args: Any) -> str | None:
    """``"nbgrader"`` or ``"autograder"`` for a command the server can run, else None."""
    if not isinstance(args, list | tuple) or not args:
        return None
    argv = [os.fspath(arg) for arg in args]
    if argv[0] == NBGRADER:
        return "nbgrader"
    if argv[:3] == [sys.executable, "-m", "autograder"]:
        return "autograder"
    return None


def imports_this_kit(kind: str, cwd: Any, env: dict | None) -> bool:
    """Whether the command would import this repository's ``autograder`` (the one the server imported).

    A copy of the kit in the command's folder (``python -m`` looks there first) or on its
    ``PYTHONPATH`` is another kit: such a command starts cold.
    """
    folders = (env if env is not None else os.environ).get("PYTHONPATH", "").split(os.pathsep)
    if kind == "autograder":
        folders.insert(0, os.fspath(cwd) if cwd is not None else os.getcwd())
    for folder in filter(None, folders):
        package = Path(folder) / "autograder"
        if (package / "__init__.py").is_file():
            return package.resolve() == KIT
    return True


class _Server:
    """The pre-started interpreter of this process (started on first use, ended with the process)."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="prestarted-")
        self.path = os.path.join(self.folder, "socket")
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            start_new_session=True,
        )
        ready = self.process.stdout.readline() if self.process.stdout else b""
        if ready.strip() != b"ready":
            raise RuntimeError(f"the pre-started interpreter did not start (it printed {ready!r})")
        atexit.register(self.close)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()  # the server returns when its stdin closes
        stop_process_group(self.process, timeout=10)  # and whatever its commands left running ends with it
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)


_server: _Server | None = None
_server_lock = threading.Lock()


def _started() -> _Server:
    global _server
    with _server_lock:
        if _server is None:
            _server = _Server()
        return _server


def _drain(descriptor: int, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with os.fdopen(descriptor, "rb") as stream:
            into.append(stream.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _text(data: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` decodes them (UTF-8 here, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def run_forked(args: Any, kind: str, *, cwd: Any = None, env: dict | None = None, text: bool = False,
               timeout: float | None = None, check: bool = False) -> subprocess.CompletedProcess:
    """Run ``args`` (a ``kind`` command) from the pre-started interpreter, output captured."""
    server = _started()
    argv = [os.fspath(arg) for arg in args]
    folder = os.fspath(cwd) if cwd is not None else os.getcwd()
    if not os.path.isdir(folder):  # as subprocess.run says it, before anything runs
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), folder)
    request = {
        "argv": argv if kind == "nbgrader" else [argv[0], *argv[3:]],
        "cwd": folder,
        "env": dict(os.environ if env is None else env),
        "kind": kind,
    }
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    stdin = os.open(os.devnull, os.O_RDONLY)
    outputs: list[bytes] = []
    errors: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(server.path)
        try:
            socket.send_fds(connection, [json.dumps(request).encode()], [stdin, out_write, err_write])
        finally:
            for descriptor in (stdin, out_write, err_write):
                os.close(descriptor)
        readers = [_drain(out_read, outputs), _drain(err_read, errors)]
        answers = connection.makefile("rb")
        pid = json.loads(answers.readline())["pid"]
        connection.settimeout(timeout)
        try:
            line = answers.readline()
            for reader in readers:  # the output ends when the command and whatever inherited it end
                reader.join(timeout)
                if reader.is_alive():
                    raise TimeoutError
        except TimeoutError as error:
            os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(argv, timeout or 0.0) from error
    if not line:
        raise RuntimeError(f"the pre-started interpreter ended before `{' '.join(argv)}` did")
    returncode = json.loads(line)["status"]
    stdout, stderr = b"".join(outputs), b"".join(errors)
    done = subprocess.CompletedProcess(
        argv, returncode, _text(stdout) if text else stdout, _text(stderr) if text else stderr
    )
    if check:
        done.check_returncode()
    return done


def run(args: Any, *popenargs: Any, **options: Any) -> subprocess.CompletedProcess:
    """:func:`subprocess.run`, with nbgrader's and the grader's commands forked (captured output only)."""
    kind = command_kind(args)
    capture = options.get("capture_output") or (
        options.get("stdout") == subprocess.PIPE and options.get("stderr") == subprocess.PIPE
    )
    handled = {"cwd", "env", "text", "timeout", "check", "capture_output", "stdout", "stderr"}
    if (cold or kind is None or popenargs or not capture or set(options) - handled
            or not imports_this_kit(kind, options.get("cwd"), options.get("env"))):
        return real_run(args, *popenargs, **options)
    return run_forked(
        args, kind, cwd=options.get("cwd"), env=options.get("env"), text=bool(options.get("text")),
        timeout=options.get("timeout"), check=bool(options.get("check")),
    )
