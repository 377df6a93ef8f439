"""The released exam notebook run in a real kernel as two different users, each typing their id, shows each their own list."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.course.materials.nbgrader_commands import ASSIGNMENT, NOTEBOOK
from autograder.exercises.ndcg.byhand.derive import student_list
from autograder.exercises.ndcg.byhand.notebook_sync import published_variant

from conftest import ROOT
from other_users import reach_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                       reason="running a kernel as two other users needs root and setpriv"),
]
RELEASE = ROOT / "release" / ASSIGNMENT / NOTEBOOK
#: Runs the released notebook's cells from the top to the derivation cell in a kernel, the id ``sys.argv[2]``
#: typed into the STUDENT_ID cell as the student does; prints the derivation cell's output.
RUN = """
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
nb.cells[ids.index("byhand_student")].source = f"STUDENT_ID = {sys.argv[2]!r}"
nb.cells = nb.cells[:ids.index("byhand_variant") + 1]
NotebookClient(nb, timeout=120, kernel_name="python3").execute()
print(json.dumps(nb.cells[-1].outputs[0]["text"]))
"""


def _shared_python() -> str:
    """A Python 3 of this version that other users may run (the venv's may live in root's home)."""
    for folder in os.defpath.split(os.pathsep):
        candidate = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}", path=folder)
        if candidate and os.stat(os.path.realpath(candidate)).st_mode & 0o001:
            home = os.path.realpath(candidate)
            if not home.startswith(os.path.realpath(os.path.expanduser("~"))):
                return candidate
    pytest.skip("no Python of this version that other users may run")


def _run_as(user: str, tmp_path) -> str:
    entry = pwd.getpwnam(user)
    home = tmp_path / user
    home.mkdir()
    os.chown(home, entry.pw_uid, entry.pw_gid)
    python = _shared_python()
    # the kernel starts as "python" from PATH: the shared interpreter, with the course's packages
    env = {"PATH": f"{Path(python).parent}{os.pathsep}{os.defpath}", "HOME": str(home),
           "PYTHONPATH": sysconfig.get_paths()["purelib"], "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython")}
    done = subprocess.run(
        [*reach_for(entry.pw_uid, tmp_path), "setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
         "--clear-groups", python, "-c", RUN, str(RELEASE), user],
        env=env, cwd=home, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_users_see_two_lists_each_their_own():
    # pytest's own temporary folder is private to root: the users' homes go in one they may enter
    with tempfile.TemporaryDirectory(prefix="byhand-users-") as scratch:
        os.chmod(scratch, 0o755)
        _two_users(Path(scratch))


def _two_users(tmp_path: Path) -> None:
    salt, pool = published_variant(nbformat.read(RELEASE, as_version=4))
    shown = {user: _run_as(user, tmp_path) for user in ("nobody", "daemon")}
    for user, text in shown.items():
        assert f"student {user}: your ranked list is RELS = {list(student_list(user, salt, pool))}" in text
    assert shown["nobody"].split("RELS = ")[1] != shown["daemon"].split("RELS = ")[1]
