"""The collect's copy holds to what was measured: an entry that grows or turns into a link after the walk.

``copy_folder`` is given what ``check_folder`` measured; everything the student changes between the
two (a file appended to, a new file, a folder swapped for a link to a canary this test made, a FIFO)
must stop the copy or be left out, never be copied past the measure or read through the link. A
sparse file keeps its holes in the copy (its exact bytes, its few allocated blocks), its holes still
counted against the measure; where the file system cannot tell holes, the copy is plain and as bounded.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.course.autograde import bounded_copy
from autograder.course.autograde.bounded_copy import CopyRefused, copy_folder
from autograder.grading.reading.folder_bounds import check_folder

CANARY = "CANARY-OUTSIDE-THE-ENTRY-7c1e"
#: A sparse file's apparent size, and where it holds data (the rest are holes, one of them at the end).
SPARSE_SIZE = 48 * 1024**2
DATA_AT = {0: b"head", 5 * 1024**2 + 17: b"middle" * 1000, 40 * 1024**2: b"\x00late\xff" * 9000}
#: Allocated bytes that count as "kept the holes": a few blocks per extent, far below the apparent size.
FEW_BLOCKS = 1024**2


def _entry(tmp_path: Path) -> Path:
    entry = tmp_path / "inbound" / "alice+ndcg+time+1"
    (entry / "sub").mkdir(parents=True)
    (entry / "ndcg.ipynb").write_bytes(b"{}" * 500)
    (entry / "sub" / "data.csv").write_text("1,2,3\n")
    return entry


def _measure(entry: Path):
    return check_folder(entry, max_files=100, max_bytes=10**8)


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


def _sparse(path: Path, size: int = SPARSE_SIZE, data: dict[int, bytes] | None = None) -> None:
    with open(path, "wb") as handle:
        for offset, chunk in (DATA_AT if data is None else data).items():
            handle.seek(offset)
            handle.write(chunk)
        handle.truncate(size)


def _allocated(path: Path) -> int:
    return path.lstat().st_blocks * 512


def _holes_kept_here(entry: Path) -> None:
    if _allocated(entry / "sparse.bin") >= FEW_BLOCKS:
        pytest.skip("this file system allocates a sparse file's holes: nothing to keep")


@pytest.mark.parametrize("data", [DATA_AT, {}], ids=["holes-between-and-after-data", "only-a-hole"])
def test_a_sparse_file_keeps_its_holes_and_its_bytes(tmp_path, data):
    entry = _entry(tmp_path)
    _sparse(entry / "sparse.bin", data=data)
    _holes_kept_here(entry)
    measured = _measure(entry)
    assert _copy(entry, tmp_path / "dest", measured) == []
    copied = tmp_path / "dest" / "sparse.bin"
    assert copied.stat().st_size == SPARSE_SIZE and copied.read_bytes() == (entry / "sparse.bin").read_bytes()
    assert _allocated(copied) < FEW_BLOCKS, f"{_allocated(copied):,} bytes allocated for {SPARSE_SIZE:,}"
    assert _bytes_in(tmp_path / "dest") == measured.bytes


def test_a_hole_grown_after_the_walk_counts_against_the_measure(tmp_path):
    entry = _entry(tmp_path)
    _sparse(entry / "sparse.bin")
    measured = _measure(entry)
    with open(entry / "sparse.bin", "r+b") as handle:
        handle.seek(SPARSE_SIZE + 10**8)  # a hole costs the copy no disk, but it is apparent bytes all the same
        handle.write(b"tail")
    with pytest.raises(CopyRefused, match="more bytes than when it was measured"):
        _copy(entry, tmp_path / "dest", measured)
    assert _bytes_in(tmp_path / "dest") <= measured.bytes


def test_without_seek_data_the_copy_is_plain_and_bounded(tmp_path, monkeypatch):
    entry = _entry(tmp_path)
    _sparse(entry / "sparse.bin")
    measured = _measure(entry)
    # a whence the kernel does not know: lseek answers EINVAL, as a file system without SEEK_DATA does
    monkeypatch.setattr(bounded_copy, "_SEEK_DATA", 99)
    assert _copy(entry, tmp_path / "plain", measured) == []
    assert (tmp_path / "plain" / "sparse.bin").read_bytes() == (entry / "sparse.bin").read_bytes()
    with open(entry / "sparse.bin", "ab") as handle:
        handle.write(b" " * 5 * 1024**2)
    with pytest.raises(CopyRefused, match="more bytes than when it was measured"):
        _copy(entry, tmp_path / "grown", measured)
    assert _bytes_in(tmp_path / "grown") <= measured.bytes
