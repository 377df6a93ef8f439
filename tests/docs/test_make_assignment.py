"""`make sync`/`make release` honour an ASSIGNMENT given on make's command line, never one exported in the shell.

A tutor's shell that still exports ``ASSIGNMENT`` (from another course, a session before) would
otherwise limit every later `make release` to that one exercise, and the others' releases would go
stale without a word. The targets run for real (the kit's own Python, a copy of the course).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from doc_commands import ROOT


def _course(tmp_path):
    """A copy of the course's source and configuration whose ``.venv`` runs the kit's own Python."""
    course = tmp_path / "course"
    course.mkdir(mode=0o700)
    for name in ("Makefile", "pyproject.toml", "constraints.txt", "nbgrader_config.py"):
        shutil.copy(ROOT / name, course)
    shutil.copytree(ROOT / "source", course / "source")
    programs = course / ".venv" / "bin"
    programs.mkdir(parents=True)
    # the kit's interpreter itself (a venv's python found through a symlink would lose its packages)
    (programs / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (programs / "python").chmod(0o755)
    (course / ".venv" / ".installed").touch()  # newer than the files it depends on: no new venv
    return course


def _make(course, *args, environment=None):
    env = {key: value for key, value in os.environ.items() if key not in ("ASSIGNMENT", "MAKEFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=course, capture_output=True, text=True,
                          timeout=300, env={**env, **(environment or {})})


def test_an_exported_assignment_is_ignored_with_a_note(tmp_path):
    course = _course(tmp_path)
    # honoured, `--assignment nope` would be refused (unknown assignment): ignored, every exercise is synced
    done = _make(course, "sync", environment={"ASSIGNMENT": "nope"})
    assert done.returncode == 0, done.stderr
    assert "note: ASSIGNMENT=nope from the environment is ignored" in done.stdout
    assert "ndcg: " in done.stdout and "nope" not in done.stderr


def test_an_assignment_on_the_command_line_limits_sync_and_release(tmp_path):
    course = _course(tmp_path)
    for target in ("sync", "release"):
        refused = _make(course, target, "ASSIGNMENT=nope")
        assert refused.returncode == 2 and "unknown assignment 'nope'" in refused.stderr, refused.stderr
        assert "note:" not in refused.stdout
    # and a known one is passed on as given, also when the shell exports another
    shown = _make(course, "-n", "release", "ASSIGNMENT=ndcg", environment={"ASSIGNMENT": "nope"})
    assert '-m autograder release --assignment "ndcg"' in shown.stdout and "note:" not in shown.stdout
