"""The pre-started interpreter of :mod:`prestarted`: imports nbgrader and the grader once, forks a command per request.

Run as ``python prestarted_server.py SOCKET``. Each connection to the Unix socket at ``SOCKET`` sends one
request (JSON: ``argv``, ``cwd``, ``env``, ``kind``) with the command's stdin, stdout and stderr as
file descriptors. The server forks; the child takes those descriptors, the folder, the environment and
the arguments, and runs the program's own entry point (``nbgrader``'s ``main``, or ``python -m
autograder``), then its exit handlers, and ends with the program's exit code. The server answers
with the child's pid at once and with its exit status when it ends.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import selectors
import socket
import sys
import traceback

import nbgrader.apps.nbgraderapp

# What the commands import before they do anything: nbgrader's applications (above), the course's
# config's imports (the kit's preprocessors, late penalties, converters, exporters) and the grader's
# command line. Imported for the time it takes, once.
import autograder.cli
import autograder.course.autograde.converters
import autograder.course.autograde.preprocessor
import autograder.course.handback.lms_export
import autograder.course.handback.release_feedback
import autograder.course.notebook_cells.overwrite_cells
import autograder.gradebook.late_penalties  # noqa: F401


def _exit_code(error: SystemExit) -> int:
    """The code Python's own exit gives a process for ``error`` (a message goes to stderr, code 1)."""
    if error.code is None:
        return 0
    if isinstance(error.code, int):
        return error.code
    print(error.code, file=sys.stderr)
    return 1


def _run_command(request: dict, descriptors: list[int]) -> None:
    """In the forked child: become the command and end with its exit code (never returns)."""
    code = 1
    try:
        for target, descriptor in zip((0, 1, 2), descriptors, strict=True):
            os.dup2(descriptor, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as subprocess starts a program: stdin, stdout and stderr only
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        try:
            if request["kind"] == "nbgrader":
                nbgrader.apps.nbgraderapp.main()
            else:  # python -m autograder: the folder is first on the path, as -m puts it
                sys.path[0] = os.getcwd()
                runpy.run_module("autograder", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as error:
            code = _exit_code(error)
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _start(connection: socket.socket) -> int | None:
    """Read one request from ``connection`` and fork its command; its pid (None if the request was broken)."""
    message, descriptors, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    if len(descriptors) != 3:
        for descriptor in descriptors:
            os.close(descriptor)
        return None
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        _run_command(request, descriptors)
    for descriptor in descriptors:
        os.close(descriptor)
    connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    return pid


def serve(path: str) -> None:
    """Answer requests on the Unix socket ``path`` until stdin closes (the test process ended)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                return
            if key.data == "listener":
                connection, _ = listener.accept()
                pid = _start(connection)
                if pid is None:
                    connection.close()
                    continue
                # a pidfd turns readable when the command ends: then its status goes back
                selector.register(os.pidfd_open(pid), selectors.EVENT_READ, (pid, connection))
            else:
                pid, connection = key.data
                selector.unregister(key.fileobj)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                try:
                    connection.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                except OSError:
                    pass  # the caller gave up (a timeout) and closed its end
                connection.close()


if __name__ == "__main__":
    serve(sys.argv[1])
