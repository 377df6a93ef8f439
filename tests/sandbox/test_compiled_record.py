"""The runner's compiled record: what the student's code compiles while its cells run, and nothing else.

The real runner in a plain process (``fake_sandbox.PlainProcess``; the sandboxed paths are in
``test_threat_copying_compiled_spellings.py``): the texts a cell's code compiles however it spells
them, not the cells themselves, not what a library compiles while it is imported, nothing once the
cells have run (the calls' arguments), and nothing from a process that holds hidden inputs.
"""

from __future__ import annotations

import base64

from autograder.sandbox import CallOrder, CellOutcome, run_submission
from autograder.sandbox.runs.protocol import MAX_COMPILED

from fake_sandbox import PlainProcess

TIMEOUT = 20.0
COPY = "def double(value):\n    # twice the value, as a copier's classmate wrote it\n    return 2 * value\n"


def _compiled(outcome) -> list[str]:
    return [text for index in sorted(outcome.cells) for text in outcome.cells[index].compiled]


def _run(cells: list[str], calls: list[CallOrder] = (), *, compiled: bool = True):
    return run_submission(PlainProcess(), cells, list(calls), timeout=TIMEOUT, budget=120, compiled=compiled)


def test_the_code_a_cell_compiles_is_recorded_however_it_is_spelled():
    cut = COPY.index("def") + 1
    spellings = [
        f"a = {COPY[:cut]!r}\nb = {COPY[cut:]!r}\nexec(a + b)",
        f"exec(bytes({list(COPY.encode())!r}).decode())",
        f"import base64\nexec(base64.b32decode({base64.b32encode(COPY.encode())!r}))",
        f"get_ipython().run_cell({COPY!r})",
        f"exec(compile({COPY!r}, '<cell 0>', 'exec'))",  # the runner's own name for a cell: recorded all the same
    ]
    for spelling in spellings:
        outcome = _run([spelling])
        assert outcome.cells[0].outcome is CellOutcome.OK, (spelling, outcome.cells[0])
        assert COPY in _compiled(outcome), spelling


def test_the_cells_themselves_and_library_imports_are_not_recorded():
    cells = [
        "import statistics, fractions, decimal, email.mime.text, json, dataclasses, typing",
        "%time total = sum(range(10))",  # IPython syntax: the cell is turned into Python, then compiled
        "from collections import namedtuple\nPoint = namedtuple('Point', 'x y')",  # the student's own: recorded
    ]
    outcome = _run(cells)
    assert [record.outcome for record in outcome.cells.values()] == [CellOutcome.OK] * 3
    texts = _compiled(outcome)
    assert not outcome.cells[0].compiled and not outcome.cells[1].compiled, texts
    assert outcome.cells[2].compiled and all("_tuple_new" in text or "Point" in text for text in texts), texts


def test_nothing_compiled_after_the_cells_is_recorded():
    cells = ["import threading, time\nSEEN = []\nSTARTED = threading.Event()\n"
             "def watch():\n    while True:\n        exec(f'SEEN_NOW = {SEEN!r}  # what the calls brought', {})\n"
             "        STARTED.set()\n        time.sleep(0.001)\n"
             "threading.Thread(target=watch, daemon=True).start()\n"
             "STARTED.wait(10)  # once while the cell runs, whatever the machine's load\n"
             "def double(x):\n    SEEN.append(x)\n    exec(f'LAST_CALL = {x!r}  # the argument of this call', {})\n"
             "    time.sleep(0.05)\n    return 2 * x"]
    calls = [CallOrder(n, "double", (123456789 + n,)) for n in range(3)]
    outcome = _run(cells, calls)
    assert [outcome.calls[n].value for n in range(3)] == [2 * (123456789 + n) for n in range(3)]
    assert _compiled(outcome) == ["SEEN_NOW = []  # what the calls brought"]
    assert _compiled(_run(cells, calls, compiled=False)) == []  # a process with hidden inputs: nothing kept


def test_a_cell_run_again_after_a_restart_is_recorded_once_and_floods_are_counted():
    cells = [f"exec({COPY!r})", "import os\nos._exit(3)",
             "for n in range(500):\n    exec(f'flood_{n} = {n}  # a text long enough to keep')"]
    outcome = _run(cells)
    assert outcome.cells[1].outcome is CellOutcome.CRASHED
    texts = _compiled(outcome)
    assert texts.count(COPY) == 1 and len(texts) == MAX_COMPILED
    assert outcome.cells[2].dropped == 500 - (MAX_COMPILED - 1)
