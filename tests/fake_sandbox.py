"""Test doubles of the ``Sandbox`` protocol, for fast tests of the engine without bubblewrap.

:class:`PlainProcess` starts the real runner as a plain child process (no isolation, no limits:
only for trusted code written by the tests); :class:`ScriptedRunner` starts a stand-in runner that
writes the protocol lines a test gives it, to reach what a well-behaved runner never says.
Both count their launches, so a test sees how many fresh processes a submission took.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from autograder.sandbox import RUNNER, Launch


def _environment(home: Path) -> dict[str, str]:
    # the same shape as the real sandboxes' (nothing inherited): a test sees what the runner sees there
    return {
        "HOME": str(home), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
    }


class PlainProcess:
    """The real runner in a plain Python process (``python -I runner.py``) in the scratch folder."""

    name = mode = "plain process (tests only)"
    isolated = False
    resource_warning: str | None = None

    def __init__(self) -> None:
        self.launches = 0

    def close(self) -> None:
        """Nothing is kept between runs."""

    def launch(self, scratch: Path, slot: int) -> Launch:
        self.launches += 1
        return Launch([sys.executable, "-I", str(RUNNER)], cwd=str(scratch), env=_environment(scratch))


class ScriptedRunner:
    """A stand-in runner that reads its orders, writes ``lines`` (raw bytes, one per entry), then exits with ``code``
    (or kills itself with signal ``kill_with``).

    ``after_orders`` waits for the cells line before writing, as the real runner does.
    """

    name = mode = "scripted runner (tests only)"
    isolated = False
    resource_warning: str | None = None

    def __init__(
        self, lines: list[bytes], code: int = 0, *, kill_with: int | None = None, stderr: bytes = b"",
        after_orders: bool = True,
    ) -> None:
        self.lines, self.code, self.stderr, self.after_orders = lines, code, stderr, after_orders
        self.kill_with = int(kill_with) if kill_with is not None else None  # a Signals' repr is no Python
        self.launches = 0

    def close(self) -> None:
        """Nothing is kept between runs."""

    def launch(self, scratch: Path, slot: int) -> Launch:
        self.launches += 1
        script = textwrap.dedent(f"""
            import os, sys
            if {self.after_orders!r}:
                sys.stdin.buffer.readline()
            for line in {self.lines!r}:
                sys.stdout.buffer.write(line + b"\\n")
                sys.stdout.buffer.flush()
            sys.stderr.buffer.write({self.stderr!r})
            sys.stderr.buffer.flush()
            if {self.kill_with!r} is not None:
                os.kill(os.getpid(), {self.kill_with!r})
            os._exit({self.code!r})
        """)
        return Launch([sys.executable, "-I", "-c", script], cwd=str(scratch), env=_environment(scratch))
