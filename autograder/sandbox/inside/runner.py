"""Runs one student's code inside the sandbox and reports what their functions return.

This file is executed as a script by the sandboxed Python (``python -I -S runner.py``: without the
``site`` module, which costs more than the rest of the start; it adds the site-packages folders
itself, :func:`_site`); it imports
only the standard library (and IPython, for a cell that uses ``%magic`` or ``!shell`` syntax) and
knows nothing of expected values, points or which call belongs to which test. It reads its
orders from standard input, one JSON document per line: first the cells,

    ["<python source>", ...]

which it runs in order in the namespace of a fresh ``__main__`` module; then, only after the last
cell has reported, the calls, one per line. To a process that sees hidden inputs the grader sends
the next call only after the report of the previous one, so that process never holds a call it has
not been asked to make; the first process (visible tests and probes) gets them all at once,

    {"id": 0, "function": "dcg", "args": [[1, 0, 2], 3]}

each made with fresh copies of its list arguments (``after`` reports the first argument as it was
after the call, when that is a list). It writes one JSON line per finished item to its original
standard output:

    {"ready": true}
    {"cell": 0, "ok": true}
    {"cell": 1, "ok": false, "error": "NameError", "message": "..."}
    {"cell": 2, "ok": true, "compiled": ["def dcg(rels, k): ..."], "dropped": 0}
    {"call": 0, "status": "value", "value": 2.43, "after": [...]}
    {"call": 1, "status": "not-a-number", "type": "ndarray", "value": 2.43, "after": [...]}
    {"call": 2, "status": "raised", "error": "ZeroDivisionError", "message": "...", "after": [...]}
    {"call": 3, "status": "undefined"}
    {"done": true}

The student's code runs in this process, so the machinery is kept out of its reach by name:
the student's ``__main__`` is a module of its own, and everything the runner uses after the
first cell (builtins, the JSON encoding, the number checks) is captured in closures before any
student code runs, built from functions implemented in C. Code that goes further (walking
frames or ``gc`` to rewrite the runner's function objects, ``ctypes``) can still forge any report
of this process; the grader therefore treats these lines as untrusted data, checks every field's
type and does all comparisons itself, and a process that has seen a hidden input only ever has
its numbers and built-in exception names looked at.

A cell's report also carries the texts the student's code gave to ``compile``/``exec``/``eval`` while
it ran (``compiled``; ``dropped``: how many beyond the bounds), for the copying report: an audit hook
installed before the first cell (:func:`_compile_recorder`) records them while a cell runs, never
otherwise. The grader sends the first call after the last cell's report: no call is in the record.
"""

from __future__ import annotations

import _json  # the C half of the json package: the rest imports re, enum and more, a third of the start
import builtins
import io
import numbers
import os
import sys
import types

TYPE_CHECKING = False  # typing costs as much to import as the runner's own start: for mypy only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    #: The runner's tools (:func:`_runner_tools`), each a closure over references captured before any student code ran.
    _Tools = tuple[
        Callable[[dict[str, Any]], None], Callable[[bytes], Any], Callable[[BaseException], dict[str, str]],
        Callable[[Any], float | None], Callable[[Any], dict[str, Any]], Callable[[Any], list[float | None] | None],
    ]
    _Recorder = tuple[Callable[[str, tuple[Any, ...]], None], Callable[[], dict[str, Any]], list[Any]]

#: Longest text (exception message, type name) reported.
MAX_TEXT = 300
#: The compiled record's bounds (as protocol.py's): texts in a run, characters of one, bytes of JSON in all, shortest.
MAX_COMPILED, MAX_COMPILED_CHARS, MAX_COMPILED_BYTES, MIN_COMPILED = 64, 32_768, 131_072, 25


class _Sink(io.TextIOBase):
    """Replacement for sys.stdout/sys.stderr: keeps nothing, so a flood costs no memory."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


class _DecoderContext:
    """What the C scanner reads from a ``json.JSONDecoder``: plain JSON, numbers as Python's own, NaN and infinities."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


# why long: one scope on purpose: every tool is a closure over the same C references captured at its
# start, so none of them looks anything up by a name the student's code could rebind.
def _runner_tools(channel_fd: int) -> _Tools:  # noqa: C901, PLR0915 — the closures share one capture
    """The runner's tools, bound to objects captured now (before any student code runs).

    In order: ``emit`` writes one report line to the grader's channel; ``decode`` reads one order line
    as JSON data; ``describe`` gives an exception's name and message, cut short; ``as_number`` a
    result as a float, or None if it is no plain real number; ``not_a_number`` a call report's
    fields for a result that is no plain number; ``snapshot`` the argument list after the call, as
    plain data.
    """
    # C implementations only: a student can rebind builtins.isinstance or json.dumps by name,
    # but not change what these references point to.
    _type, _float, _str, _len, _list, _isinstance, _repr = type, float, str, len, list, isinstance, repr
    _int_repr, _float_repr, _join = int.__repr__, float.__repr__, str.join
    _BaseException, _Real, _bool, _dict, _int, _none = BaseException, numbers.Real, bool, dict, int, type(None)
    _encode_text = _json.encode_basestring_ascii
    _write, _items = os.write, dict.items
    _inf = _float("inf")
    # typeshed calls its argument a scanner; it is the decoder whose settings the scanner reads
    _scan = _json.make_scanner(_DecoderContext())  # type: ignore[arg-type]

    def decode(line: bytes) -> Any:
        return _scan(line.decode("utf-8"), 0)[0]

    def encode(value: Any) -> str:
        kind = _type(value)
        if value is None:
            return "null"
        if kind is _bool:
            return "true" if value else "false"
        if kind is _int:
            return _int_repr(value)
        if kind is _float:
            if value != value:
                return "NaN"
            if value == _inf or value == -_inf:
                return "Infinity" if value > 0 else "-Infinity"
            return _float_repr(value)
        if kind is _str:
            return _encode_text(value)
        if kind is _list:
            return "[" + _join(",", [encode(v) for v in value]) + "]"
        if kind is _dict:
            return "{" + _join(",", [_encode_text(k) + ":" + encode(v) for k, v in _items(value)]) + "}"
        raise TypeError("not JSON data")  # the runner's own records only: a bug of the runner

    def emit(record: dict[str, Any]) -> None:
        data = (encode(record) + "\n").encode("ascii")
        while data:
            data = data[_write(channel_fd, data):]

    def short(text: object) -> str:
        try:
            shown = _str(text)
            if _type(shown) is not _str:
                return "<unprintable>"
        except _BaseException:
            return "<unprintable>"
        return shown if _len(shown) <= MAX_TEXT else shown[:MAX_TEXT] + "..."

    def describe(error: BaseException) -> dict[str, str]:
        try:
            name = _type(error).__name__
        except _BaseException:
            name = "Exception"
        return {"error": short(name), "message": short(error)}

    def type_name(value: object) -> str:
        try:
            return short(_type(value).__name__)
        except _BaseException:
            return "object"

    def as_number(result: Any) -> float | None:
        try:
            if _isinstance(result, _bool) or not _isinstance(result, _Real):
                return None
            value = _float(result)
        except _BaseException:
            return None
        return value if _type(value) is _float else None

    def numeric_value(result: Any) -> float | None:
        """What float() makes of a result that is no plain number (a 0-d array, a Decimal), if anything."""
        if _isinstance(result, (_bool, _str, bytes, _list, tuple, _dict)) or result is None:
            return None
        try:
            value = _float(result)
        except _BaseException:
            return None
        return value if _type(value) is _float else None

    def is_empty(result: Any) -> bool:
        """Whether a result that is no number is an empty container ([] where nothing is relevant)."""
        try:
            kind = _type(result)
            if kind is _list or kind is tuple or kind is _dict or kind is _str:
                return _len(result) == 0
            # numpy's own array only (a class of the student's could answer anything)
            return kind.__name__ == "ndarray" and kind.__module__ == "numpy" and result.size == 0
        except _BaseException:
            return False

    def not_a_number(result: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {"status": "not-a-number", "type": type_name(result), "value": numeric_value(result)}
        if is_empty(result):
            fields["empty"] = True
        return fields

    def snapshot(values: Any) -> list[float | None] | None:
        """The argument list after the call, as plain data (None if it no longer is a list)."""
        if _type(values) is not _list:
            return None
        shown: list[float | None] = []
        items: list[Any] = _list.copy(values)
        for v in items:
            try:
                number = _float(v) if not _isinstance(v, _bool) and _isinstance(v, _Real) else None
            except _BaseException:  # a huge int, a __float__ of the student's that raises
                number = None
            shown.append(number if _type(number) is _float else None)
        return shown

    return emit, decode, describe, as_number, not_a_number, snapshot


def _compile_recorder(encode_text: Callable[[str], str]) -> _Recorder:  # noqa: C901 — closures, as _runner_tools
    """An audit hook recording the texts the student's code compiles; the report fields of what it recorded; its state.

    A text counts when the code compiling it is the student's (a cell, a text it ran) or a library's working for it
    (IPython's ``run_cell``), not while a library is imported; an imported module when its file is not a library's.
    """
    _type, _len, _bytes, _str, _id, _getframe, _startswith = type, len, bytes, str, id, sys._getframe, str.startswith
    boot = sys.modules["_frozen_importlib"]  # the import system's own code objects, known by identity
    importing = {_id(f.__code__): f.__code__ for f in (boot._find_and_load, boot._load_unlocked,
                                                      boot._call_with_frames_removed)}  # kept: ids stay theirs
    folders = {f.rstrip("/") + "/" for f in (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path) if f[:1] == "/"}
    roots = (*(f for f in folders if not (os.getcwd() + "/").startswith(f)), "<frozen ")  # not the home
    kept, found = set[str](), list[str]()
    state = [0, 0, False]  # bytes of JSON kept, texts dropped since the last report, whether a cell is running

    def wanted(filename: object) -> bool:
        frame: Any = _getframe(3)  # the caller of compile (below it: wanted, record, hook)
        while frame is not None:
            if _id(frame.f_code) in importing:  # an import: its module's own file only
                return _type(filename) is _str and filename[:1] == "/" and not _startswith(filename, roots)  # type: ignore[index,arg-type]
            if _type(frame.f_code.co_filename) is not _str or not _startswith(frame.f_code.co_filename, roots):
                return True
            frame = frame.f_back
        return False

    def record(source: Any, filename: object) -> None:
        if _type(source) is not _bytes:  # CPython passes a str or bytes source as bytes; an AST has no text
            return
        text = source[:4 * MAX_COMPILED_CHARS].decode("utf-8", "replace")[:MAX_COMPILED_CHARS]
        if _len(text) < MIN_COMPILED or text in kept or not wanted(filename):
            return
        room, shown = MAX_COMPILED_BYTES - state[0], _len(encode_text(text))
        if shown > room:  # cut to what fits: a character is at most 12 bytes of JSON
            text = text[:room // 12]
            shown = _len(encode_text(text))
        if _len(kept) >= MAX_COMPILED or _len(text) < MIN_COMPILED:
            state[1] += 1
            return
        state[0] += shown
        kept.add(text)
        found.append(text)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "compile" and state[2]:
            try:
                record(args[0], args[1])
            except BaseException:  # a hook that raises would stop the student's compile
                pass

    def take() -> dict[str, Any]:
        fields = {"compiled": found[:], "dropped": state[1]} if found or state[1] else {}
        found[:], state[1] = [], 0
        return fields

    return hook, take, state


def _compile(source: str, index: int, compile_: Any) -> Any:
    """The cell as code; IPython syntax (``%magic``, ``!cmd``) turned into Python first, inside the sandbox."""
    name = f"<cell {index}>"
    try:
        return compile_(source, name, "exec")
    except SyntaxError:
        from IPython.core.inputtransformer2 import TransformerManager

        transformed = TransformerManager().transform_cell(source)  # type: ignore[no-untyped-call]
        return compile_(transformed, name, "exec")  # a real syntax error is reported from here


# why long: the runner's loop keeps what it uses in locals bound before the first cell runs; a helper
# called by its global name is one more name the student's code could rebind
def main() -> None:  # noqa: PLR0915 — one scope, see above
    orders = os.fdopen(os.dup(0), "rb")
    read_line, exit_now = orders.readline, os._exit
    channel_fd = os.dup(1)
    emit, decode, describe, as_number, not_a_number, snapshot = _runner_tools(channel_fd)
    hook, take_compiled, recording = _compile_recorder(_json.encode_basestring_ascii)  # recording[2]: a cell runs
    sys.addaudithook(hook)  # for the rest of the process: no code can remove it
    cells = decode(read_line())
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdin = io.StringIO("")
    # the originals too, so that nothing the student's code finds writes to the grader's channel
    sys.stdout = sys.__stdout__ = _Sink()  # type: ignore[misc,assignment]
    sys.stderr = sys.__stderr__ = _Sink()  # type: ignore[misc,assignment]
    _callable, _type, _list, _BaseException = callable, type, list, BaseException
    _exec, _compile_builtin, _enumerate = exec, compile, enumerate

    # The student's own __main__: `import __main__` there finds their namespace, not this module.
    student = types.ModuleType("__main__")
    namespace = student.__dict__
    namespace["__builtins__"] = builtins
    sys.modules["__main__"] = student
    shell: list[Any] = []

    def get_ipython() -> Any:
        """IPython's shell, created on first use (cells with magics or shell escapes call it)."""
        if not shell:
            from IPython.core.interactiveshell import InteractiveShell

            instance = InteractiveShell.instance(user_module=student, user_ns=namespace)
            # no event loop here: %matplotlib inline etc. just work
            instance.enable_gui = lambda gui=None: None  # type: ignore[method-assign]
            shell.append(instance)
        return shell[0]

    namespace["get_ipython"] = get_ipython
    emit({"ready": True})

    for index, source in _enumerate(cells):
        try:
            code = _compile(source, index, _compile_builtin)  # the cell itself is not recorded
            recording[2] = True
            _exec(code, namespace)
            report: dict[str, Any] = {"cell": index, "ok": True}
        except _BaseException as error:  # SystemExit and KeyboardInterrupt too: a cell may not stop us
            report = {"cell": index, "ok": False, **describe(error)}
        recording[2] = False
        emit({**report, **take_compiled()})  # recorded before any call is sent (see the module)

    while True:
        line = read_line()
        if not line:
            break
        call = decode(line)
        record: dict[str, Any] = {"call": call["id"]}
        function = namespace.get(call["function"])
        if not _callable(function):
            record["status"] = "undefined"
            emit(record)
            continue
        arguments = [_list(a) if _type(a) is _list else a for a in call["args"]]
        try:
            result = function(*arguments)
            value = as_number(result)
            if value is None:
                record.update(not_a_number(result))
            else:
                record["status"] = "value"
                record["value"] = value
        except _BaseException as error:
            record["status"] = "raised"
            record.update(describe(error))
        record["after"] = snapshot(arguments[0]) if arguments else None
        emit(record)

    emit({"done": True})
    exit_now(0)  # skip atexit handlers and finalizers the student's code may have registered


def _site() -> None:
    """What ``site`` would have done that a notebook may need: its folders on the path, ``exit`` and ``help``.

    The folders come in ``NDCG_SITE_PACKAGES`` and a venv's prefix in ``NDCG_PREFIX`` (``python -S``
    skips ``site``: it starts faster); both are then removed: the notebook sees the environment,
    ``sys.path`` and ``sys.prefix`` it saw under ``python -I``.
    """
    folders = os.environ.pop("NDCG_SITE_PACKAGES", "")  # autograder.sandbox.isolation.launch.SITE_PACKAGES_VARIABLE
    prefix = os.environ.pop("NDCG_PREFIX", "")  # the grader's sys.prefix: a venv's, as site sets it
    if sys.flags.no_site:
        import site

        if prefix:
            sys.prefix = sys.exec_prefix = prefix
        sys.path.extend(folder for folder in folders.split(os.pathsep) if folder)
        site.setquit()
        site.setcopyright()
        site.sethelper()


if __name__ == "__main__":
    _site()
    main()
