"""The collect's copy holds to what was measured: an entry that grows or turns into a link after the walk.

``copy_folder`` is given what ``check_folder`` measured; everything the student changes between the
two (a file appended to, a new file, a folder swapped for a link to a canary this test made, a FIFO)
must stop the copy or be left out, never be copied past the measure or read through the link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.course.bounded_copy import CopyRefused, copy_folder
from autograder.grading.folder_bounds import check_folder

CANARY = "CANARY-OUTSIDE-THE-ENTRY-7c1e"


def _entry(tmp_path: Path) -> Path:
    entry = tmp_path / "inbound" / "alice+ndcg+time+1"
    (entry / "sub").mkdir(parents=True)
    (entry / "ndcg.ipynb").write_bytes(b"{}" * 500)
    (entry / "sub" / "data.csv").write_text("1,2,3\n")
    return entry


def _measure(entry: Path):
    return check_folder(entry, max_files=100, max_bytes=10**7)


def _copy(entry: Path, dest: Path, measured) -> list[str]:
    left_out: list[str] = []
    copy_folder(str(entry), str(dest), measured, lambda path, info: None, left_out.append)
    return left_out


def _bytes_in(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def test_an_unchanged_entry_is_copied_whole(tmp_path):
    entry = _entry(tmp_path)
    with open(entry / "sparse.bin", "wb") as handle:
        handle.truncate(3 * 1024**2)
    measured = _measure(entry)
    assert _copy(entry, tmp_path / "dest", measured) == []
    for path in entry.rglob("*"):
        copied = tmp_path / "dest" / path.relative_to(entry)
        assert copied.is_dir() if path.is_dir() else copied.read_bytes() == path.read_bytes()
    assert _bytes_in(tmp_path / "dest") == measured.bytes


def test_a_file_that_grew_after_the_walk_stops_the_copy_within_the_measure(tmp_path):
    entry = _entry(tmp_path)
    measured = _measure(entry)
    with open(entry / "ndcg.ipynb", "ab") as handle:
        handle.write(b" " * 5 * 1024**2)
    with pytest.raises(CopyRefused, match="more bytes than when it was measured"):
        _copy(entry, tmp_path / "dest", measured)
    assert _bytes_in(tmp_path / "dest") <= measured.bytes


def test_a_sparse_file_made_after_the_walk_stops_the_copy(tmp_path):
    entry = _entry(tmp_path)
    measured = _measure(entry)
    with open(entry / "sub" / "data.csv", "r+b") as handle:
        handle.truncate(10**9)  # a gigabyte that costs the student nothing
    with pytest.raises(CopyRefused):
        _copy(entry, tmp_path / "dest", measured)
    assert _bytes_in(tmp_path / "dest") <= measured.bytes


def test_an_entry_added_after_the_walk_stops_the_copy(tmp_path):
    entry = _entry(tmp_path)
    measured = _measure(entry)
    (entry / "sub" / "more.txt").touch()
    with pytest.raises(CopyRefused, match="more files and folders"):
        _copy(entry, tmp_path / "dest", measured)


def test_a_folder_swapped_for_a_link_is_never_read_through(tmp_path):
    entry = _entry(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(CANARY)
    measured = _measure(entry)
    for path in (entry / "sub").iterdir():
        path.unlink()
    (entry / "sub").rmdir()
    os.symlink(outside, entry / "sub")
    left_out = _copy(entry, tmp_path / "dest", measured)
    assert left_out == ["sub (a link)"]
    assert all(CANARY not in path.read_text(errors="replace") for path in (tmp_path / "dest").rglob("*")
               if path.is_file())


def test_the_entry_itself_swapped_for_a_link_is_refused(tmp_path):
    entry = _entry(tmp_path)
    measured = _measure(entry)
    entry.rename(tmp_path / "moved")
    os.symlink(tmp_path / "moved", entry)
    with pytest.raises(CopyRefused, match="no longer a folder"):
        _copy(entry, tmp_path / "dest", measured)
    assert not (tmp_path / "dest").exists()


def test_a_fifo_is_left_out_without_blocking(tmp_path):
    entry = _entry(tmp_path)
    os.mkfifo(entry / "sub" / "pipe")
    assert _copy(entry, tmp_path / "dest", _measure(entry)) == ["sub/pipe (not a regular file)"]
    assert not (tmp_path / "dest" / "sub" / "pipe").exists()


def test_a_refused_copy_leaves_no_folder_open(tmp_path):
    entry = _entry(tmp_path)
    for number in range(5):
        (entry / f"folder{number}").mkdir()
    measured = _measure(entry)
    with open(entry / "ndcg.ipynb", "ab") as handle:  # refused in the top folder, its subfolders opened by then
        handle.write(b" " * 5 * 1024**2)
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(CopyRefused):
        _copy(entry, tmp_path / "dest", measured)
    assert len(os.listdir("/proc/self/fd")) == before
