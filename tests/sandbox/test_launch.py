"""A launch gives back what it holds exactly once: descriptors, cgroup, user id."""

from __future__ import annotations

import os

from autograder.sandbox.isolation.launch import Launch


def test_closing_twice_never_closes_a_descriptor_reused_in_between(tmp_path):
    read_end, write_end = os.pipe()
    os.close(write_end)
    launch = Launch(["true"], cwd=str(tmp_path), env={}, pass_fds=(read_end,))
    launch.close_fds()
    reused = os.open(tmp_path / "database", os.O_RDWR | os.O_CREAT)  # takes the lowest free number
    try:
        assert reused == read_end  # the situation of the bug: the number now names another file
        launch.end()
        os.fstat(reused)  # still open
    finally:
        os.close(reused)
