"""Threat: the page cache probed exactly, without timing, through the major-fault counter.

docs/security.md says that with ``mincore``, ``posix_fadvise`` and eviction advice refused, "pages
can no longer be evicted or probed without timing". But ``madvise(MADV_RANDOM)`` (allowed: no
read-around) on a read-only file mapping, then one byte read per page and
``getrusage().ru_majflt`` (allowed; the same count is in ``/proc/self/stat``) tells exactly whether
the page was resident: one major fault if it was not, none if it was. A sender sandbox marks pages
by reading them; a receiver sandbox of a later grading run reads the marks back bit for bit and
raises them in a visible cell, so they appear in its feedback. No clock is used.

The file is one this test creates beside the sandbox's read-only Python (the venv is mounted into
every sandbox), evicted from the cache by the test before grading; nothing else is touched.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from grading_run import add_student, grade, new_course, results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="the hostile suite needs bubblewrap (.ci/run installs it)"),
]

PAGES = 512
BITS = 32

SENDER = '''import mmap, os
_fd = os.open({path!r}, os.O_RDONLY)
_m = mmap.mmap(_fd, 0, prot=mmap.PROT_READ)
_m.madvise(mmap.MADV_RANDOM)
for _bit in range({bits}):
    if ({value} >> _bit) & 1:
        _m[{pages}[_bit] * 4096]
'''

RECEIVER = '''import mmap, os, resource
_fd = os.open({path!r}, os.O_RDONLY)
_m = mmap.mmap(_fd, 0, prot=mmap.PROT_READ)
_m.madvise(mmap.MADV_RANDOM)
_value = 0
for _bit in range({bits}):
    _before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
    _m[{pages}[_bit] * 4096]
    if resource.getrusage(resource.RUSAGE_SELF).ru_majflt == _before:
        _value |= 1 << _bit
raise ValueError(f"received {{_value}}")
'''


def _canary_file() -> Path:
    """A file of PAGES pages beside the sandbox's Python, written, synced and dropped from the cache."""
    path = Path(sys.prefix) / f"redteam-page-cache-{uuid.uuid4().hex}.bin"
    with path.open("wb") as handle:
        handle.write(os.urandom(PAGES * 4096))
        handle.flush()
        os.fsync(handle.fileno())
        os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    path.chmod(0o644)
    return path


def test_no_sandbox_reads_the_page_cache_exactly(tmp_path: Path) -> None:
    canary = _canary_file()
    try:
        rng = random.Random()
        pages = rng.sample(range(PAGES), BITS)
        value = rng.getrandbits(BITS) | 1
        arguments = {"path": f"/{canary.relative_to('/')}", "pages": pages, "bits": BITS, "value": value}
        sender = new_course(tmp_path / "first")
        add_student(sender, "sender", extra=(SENDER.format(**arguments),))
        run = grade(sender, "--sandbox", "required", "--gradebook", "none", "--workers", "1", "--timeout", "5")
        assert run.returncode == 0, run.stderr[-2000:]
        receiver = new_course(tmp_path / "second")
        add_student(receiver, "receiver", extra=(RECEIVER.format(**arguments),))
        run = grade(receiver, "--sandbox", "required", "--gradebook", "none", "--workers", "1", "--timeout", "5")
        assert run.returncode == 0, run.stderr[-2000:]
        message = results(receiver)["receiver"]["message"]
        received = re.search(r"received (\d+)", message)
        agreeing = BITS - bin(int(received.group(1)) ^ value).count("1") if received else 0
        # a bit or two may flip if something else read a page meanwhile: most bits right is a channel
        assert agreeing < BITS - 4, f"a later sandbox read {value} out of the page cache: {message}"
    finally:
        canary.unlink(missing_ok=True)
