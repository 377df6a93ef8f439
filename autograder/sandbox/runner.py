"""Runs one student's code inside the sandbox and reports what their functions return.

This file is executed as a script by the sandboxed Python (``python -I runner.py``); it imports
only the standard library and knows nothing of expected values, points or which call belongs
to which test. It reads two lines from standard input: first the cells,

    ["<python source>", ...]

which it runs in order in one ``__main__`` namespace; only after the last cell has reported
does the grader send the calls (so no cell can see the test inputs),

    [{"id": 0, "function": "dcg", "args": [[1, 0, 2], 3]}, ...]

which it makes one by one, each with fresh copies of its list arguments (``after`` reports the
first argument as it was after the call, when that is a list). It writes one JSON line per finished item to
its original standard output:

    {"ready": true}
    {"cell": 0, "ok": true}
    {"cell": 1, "ok": false, "error": "NameError", "message": "..."}
    {"call": 0, "status": "value", "value": 2.43, "after": [...]}
    {"call": 1, "status": "not-a-number", "type": "list", "after": [...]}
    {"call": 2, "status": "raised", "error": "ZeroDivisionError", "message": "...", "after": [...]}
    {"call": 3, "status": "undefined"}
    {"done": true}

Everything in this process can be subverted by the student's code, so the grader treats these
lines as untrusted data: it checks every field's type and does all comparisons itself.
"""

import builtins
import io
import json
import numbers
import os
import sys
from typing import Any

_MAX_TEXT = 300
_dumps = json.dumps
_exit = os._exit


class _Sink(io.TextIOBase):
    """Replacement for sys.stdout/sys.stderr: keeps nothing, so a flood costs no memory."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _short(text: object) -> str:
    try:
        shown = str(text)
    except BaseException:
        return "<unprintable>"
    return shown if len(shown) <= _MAX_TEXT else shown[:_MAX_TEXT] + "..."


def _describe(error: BaseException) -> dict[str, str]:
    try:
        name = type(error).__name__
    except BaseException:
        name = "Exception"
    return {"error": _short(name), "message": _short(error)}


def _snapshot(values: object) -> list[float | None] | None:
    """The argument list after the call, as plain JSON data (None if it no longer is a list of numbers)."""
    try:
        if type(values) is not list:
            return None
        return [float(v) if isinstance(v, numbers.Real) and not isinstance(v, bool) else None for v in values]
    except BaseException:
        return None


def _as_number(result: object) -> float | None:
    if isinstance(result, bool) or not isinstance(result, numbers.Real):
        return None
    value = float(result)
    return value if type(value) is float else None


def main() -> None:
    orders = os.fdopen(os.dup(0), "rb")
    cells = json.loads(orders.readline())
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdin = io.StringIO("")
    # the originals too, so that nothing the student's code finds writes to the grader's channel
    sys.stdout = sys.__stdout__ = _Sink()  # type: ignore[misc,assignment]
    sys.stderr = sys.__stderr__ = _Sink()  # type: ignore[misc,assignment]
    write = channel.write

    def emit(record: dict[str, Any]) -> None:
        write(_dumps(record) + "\n")
        channel.flush()

    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    shell: list[Any] = []

    def get_ipython() -> Any:
        """IPython's shell, created on first use (cells with magics or shell escapes call it)."""
        if not shell:
            from IPython.core.interactiveshell import InteractiveShell

            instance = InteractiveShell.instance(user_ns=namespace)
            # no event loop here: %matplotlib inline etc. just work
            instance.enable_gui = lambda gui=None: None  # type: ignore[method-assign]
            shell.append(instance)
        return shell[0]

    namespace["get_ipython"] = get_ipython
    emit({"ready": True})

    for index, source in enumerate(cells):
        try:
            exec(compile(source, f"<cell {index}>", "exec"), namespace)
            emit({"cell": index, "ok": True})
        except BaseException as error:  # SystemExit and KeyboardInterrupt too: a cell may not stop us
            emit({"cell": index, "ok": False, **_describe(error)})

    calls = json.loads(orders.readline())
    orders.close()
    for call in calls:
        record: dict[str, Any] = {"call": call["id"]}
        function = namespace.get(call["function"])
        if not callable(function):
            record["status"] = "undefined"
            emit(record)
            continue
        arguments = [list(a) if type(a) is list else a for a in call["args"]]
        try:
            result = function(*arguments)
            value = _as_number(result)
            if value is None:
                record.update(status="not-a-number", type=_short(type(result).__name__))
            else:
                record.update(status="value", value=value)
        except BaseException as error:
            record.update(status="raised", **_describe(error))
        record["after"] = _snapshot(arguments[0]) if arguments else None
        emit(record)

    emit({"done": True})
    _exit(0)  # skip atexit handlers and finalizers the student's code may have registered


if __name__ == "__main__":
    main()
