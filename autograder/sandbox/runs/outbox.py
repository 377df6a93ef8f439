"""What the grader still has to write to one runner, written as the pipe takes it, never blocking."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..resources.processes import RunProcess


class Outbox:
    """What the grader still has to write to the runner, written as the pipe takes it, never blocking.

    A runner that stops reading (a hung cell, a full pipe) must not stop the grader: its deadline
    is judged while the rest waits here.
    """

    def __init__(self, process: RunProcess) -> None:
        self._stdin = process.stdin
        self._fd = process.stdin.fileno() if process.stdin is not None else -1
        if self._fd >= 0:
            os.set_blocking(self._fd, False)
        self._pending = b""
        self._close = False

    @property
    def fd(self) -> int:
        """The runner's standard input, or -1 once it is closed."""
        return self._fd

    @property
    def waiting(self) -> bool:
        """Whether something is left to write (or the input is to be closed)."""
        return self._fd >= 0 and (bool(self._pending) or self._close)

    def add(self, data: bytes, close: bool = False) -> None:
        """Queue ``data`` (then close the runner's input if ``close``) and write what the pipe takes now."""
        self._pending += data
        self._close = self._close or close
        self.flush()

    def send_calls(self, call_lines: list[bytes], position: int, batched: bool) -> None:
        """The call at ``position`` (every call from there if ``batched``); the end of input after the last."""
        if position >= len(call_lines):
            self.add(b"", close=True)
        elif batched:
            self.add(b"".join(call_lines[position:]), close=True)
        else:
            self.add(call_lines[position])

    def flush(self) -> None:
        """Write what the pipe takes without waiting; close the input once all is written, if asked."""
        if self._fd < 0:
            return
        try:
            while self._pending:
                self._pending = self._pending[os.write(self._fd, self._pending[:65536]):]
        except BlockingIOError:
            return
        except OSError:  # the process is gone; reading its reports will tell why
            self._pending = b""
            self._close = True
        if self._close and self._stdin is not None:
            self._stdin.close()
            self._fd = -1
