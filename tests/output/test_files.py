"""Files the grader writes respect the user's umask (mkstemp alone makes them 0600), and are written again
only when their bytes change."""

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


def test_a_file_is_written_again_only_when_its_bytes_change_and_a_link_is_replaced_not_followed(tmp_path):
    from autograder.files import open_atomic, write_changed

    page = tmp_path / "page.html"
    assert write_changed(page, "é one")
    before = page.stat().st_mtime_ns, page.stat().st_ino
    assert not write_changed(page, "é one")
    assert (page.stat().st_mtime_ns, page.stat().st_ino) == before
    assert write_changed(page, "é two") and page.read_text(encoding="utf-8") == "é two"
    written = page.stat().st_ino
    with open_atomic(page, keep_unchanged=True) as stream:
        stream.write("é two")
    assert page.stat().st_ino == written and not list(tmp_path.glob(".page.html.*"))  # kept; no temporary left
    with open_atomic(page, keep_unchanged=True) as stream:
        stream.write("é three")
    assert page.stat().st_ino != written and page.read_text(encoding="utf-8") == "é three"
    canary = tmp_path / "canary"
    canary.write_text("same", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(canary)
    assert write_changed(link, "same")  # a link holding the same bytes is still replaced by a file
    assert not link.is_symlink() and canary.read_text(encoding="utf-8") == "same"
