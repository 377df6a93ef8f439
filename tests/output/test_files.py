"""Files the grader writes respect the user's umask (mkstemp alone makes them 0600)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_written_files_follow_the_umask(tmp_path, umask, mode):
    target = tmp_path / "results.json"
    code = (
        f"import os; os.umask({umask}); from autograder.files import write_atomic; "
        f"write_atomic(__import__('pathlib').Path({str(target)!r}), 'x')"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    assert target.stat().st_mode & 0o777 == mode
