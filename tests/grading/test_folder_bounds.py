"""A submission folder's entries and bytes are counted in one walk that stops at the limit and follows no link."""

from __future__ import annotations

import os

import pytest

from autograder.grading import Status
from autograder.grading.reading import folder_bounds
from autograder.grading.reading.folder_bounds import check_folder
from autograder.grading.reading.notebook import SubmissionProblem

LIMIT = 20


def _folder(tmp_path, files: int, sub: int = 0):
    folder = tmp_path / "submitted" / "student" / "ndcg"
    (folder / "sub").mkdir(parents=True)
    for number in range(files):
        (folder / f"f{number}").touch()
    for number in range(sub):
        (folder / "sub" / f"g{number}").touch()
    return folder


def test_at_the_limit_is_accepted_one_more_is_refused(tmp_path):
    folder = _folder(tmp_path, LIMIT - 4, sub=3)  # the subfolder counts, and what it holds
    check_folder(folder, max_files=LIMIT, max_bytes=10**6)
    (folder / "sub" / "one-more").touch()
    with pytest.raises(SubmissionProblem) as refused:
        check_folder(folder, max_files=LIMIT, max_bytes=10**6)
    assert refused.value.status is Status.ERROR
    assert f"more than {LIMIT} files and folders" in refused.value.message


def test_bytes_are_apparent_sizes_and_refused_past_the_limit(tmp_path):
    folder = _folder(tmp_path, 1)
    with open(folder / "sparse.bin", "wb") as handle:
        handle.truncate(2 * 1024**2)  # no disk used: a copy would still write it
    check_folder(folder, max_files=LIMIT, max_bytes=2 * 1024**2)
    with pytest.raises(SubmissionProblem, match="more than 1 MiB of files"):
        check_folder(folder, max_files=LIMIT, max_bytes=1024**2)


def test_a_link_is_counted_never_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for number in range(3 * LIMIT):
        (elsewhere / f"e{number}").write_bytes(b"x" * 1000)
    folder = _folder(tmp_path, 2)
    os.symlink(elsewhere, folder / "link")
    os.symlink(elsewhere / "e0", folder / "file-link")
    check_folder(folder, max_files=LIMIT, max_bytes=100)  # 5 entries, 0 bytes of regular files here
    # the assignment folder itself a link: left to the notebook's reader, which refuses it, never walked
    os.symlink(elsewhere, tmp_path / "submitted" / "student" / "linked")
    check_folder(tmp_path / "submitted" / "student" / "linked", max_files=LIMIT, max_bytes=100)


def test_the_walk_stops_at_the_first_entry_past_the_limit(tmp_path, monkeypatch):
    folder = _folder(tmp_path, 50 * LIMIT, sub=50 * LIMIT)
    seen = []
    real = os.scandir

    class Counted:
        """``os.scandir``'s listing, counting the entries the walk takes from it."""

        def __init__(self, path):
            self.listing = real(path)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.listing.close()

        def __iter__(self):
            for entry in self.listing:
                seen.append(entry.name)
                yield entry

    monkeypatch.setattr(folder_bounds.os, "scandir", Counted)
    with pytest.raises(SubmissionProblem):
        check_folder(folder, max_files=LIMIT, max_bytes=10**9)
    assert len(seen) == LIMIT + 1  # not the 2,000 entries there are


def test_the_notebooks_own_bytes_are_its_readers_limit_not_the_folders(tmp_path):
    folder = _folder(tmp_path, 1)
    with open(folder / "ndcg.ipynb", "wb") as handle:
        handle.truncate(4 * 1024**3)  # the reader says "over the 8 MiB limit" before reading a byte
    check_folder(folder, max_files=LIMIT, max_bytes=1024**2, notebook="ndcg.ipynb")
    with pytest.raises(SubmissionProblem, match="MiB of files"):
        check_folder(folder, max_files=LIMIT, max_bytes=1024**2)  # any other file of that size counts
    (folder / "sub" / "ndcg.ipynb").write_bytes(b"x" * (2 * 1024**2))  # only the one beside it is the notebook
    with pytest.raises(SubmissionProblem, match="MiB of files"):
        check_folder(folder, max_files=LIMIT, max_bytes=1024**2, notebook="ndcg.ipynb")
