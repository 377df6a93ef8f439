"""The nbgrader adapter's version check: an nbgrader the kit was not tested with stops it in one line, exit 2.

Each run is a real Python process in which nbgrader itself is the installed one and only its version
attribute says otherwise (set before the kit is imported, as another release would have it): the
adapter's import, ``python -m autograder`` and a real ``nbgrader`` command loading the course's
``nbgrader_config.py``. The controls run the same code with the installed version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbgrader
import pytest

from autograder.nbgrader_adapter import TESTED_VERSIONS, untested_version_message

from conftest import ROOT

BIN = Path(sys.executable).parent
UNTESTED = ["0.10.0", "0.9.5", "1.0.0a1"]


def _python(code: str, version: str | None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new Python after nbgrader's version attribute is set to ``version`` (None: left)."""
    prelude = "import nbgrader\n" + (f"nbgrader.__version__ = {version!r}\n" if version else "")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # nbgrader runs `alembic`
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _refused(done: subprocess.CompletedProcess[str], version: str) -> None:
    """``done`` ended with status 2 and the adapter's one line naming ``version``, without a traceback."""
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if f"nbgrader {version} is installed" in line]
    assert lines == [untested_version_message(version)]
    assert "Traceback" not in done.stderr


def test_the_installed_and_the_pinned_nbgrader_are_tested_versions():
    pinned = re.search(r"^nbgrader==(\S+)$", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned is not None and pinned[1] in TESTED_VERSIONS
    assert nbgrader.__version__ in TESTED_VERSIONS
    assert untested_version_message(nbgrader.__version__) is None


@pytest.mark.parametrize("version", UNTESTED)
def test_importing_the_adapter_stops_on_an_untested_version(version):
    done = _python("import autograder.nbgrader_adapter\nprint('imported')", version)
    _refused(done, version)
    assert "imported" not in done.stdout
    assert "0.9.6" in done.stderr and "TESTED_VERSIONS" in done.stderr  # what to install, where to add one


def test_importing_the_adapter_goes_on_with_the_tested_version():
    done = _python("import autograder.nbgrader_adapter\nprint('imported')", None)
    assert (done.returncode, done.stdout, done.stderr) == (0, "imported\n", "")


@pytest.mark.slow
@pytest.mark.parametrize("version", [UNTESTED[0], None])
def test_python_m_autograder_stops_on_an_untested_version(version):
    # a command that uses nbgrader (the course's config, loaded as nbgrader loads it); the command line loads
    # a command's modules only once its arguments are read, so `--help` needs no nbgrader and is not checked
    code = ("import runpy, sys\nsys.argv = ['autograder', 'student-config']\n"
            "runpy.run_module('autograder', run_name='__main__', alter_sys=True)")
    done = _python(code, version)
    if version is None:  # the control: the same command with the installed nbgrader
        assert done.returncode == 0 and "c.Exchange.root" in done.stdout, done.stderr
    else:
        _refused(done, version)
        assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("version", [UNTESTED[0], None])
def test_an_nbgrader_command_stops_on_an_untested_version(tmp_path, version):
    # nbgrader's own entry point (the `nbgrader` program's), in a scratch course with this course's config
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    code = ("import sys\nfrom nbgrader.apps.nbgraderapp import main\n"
            "sys.argv = ['nbgrader', 'db', 'student', 'add', 'ada']\nmain()")
    done = _python(code, version, cwd=tmp_path)
    if version is None:  # the control: the config loads, nbgrader makes the gradebook and adds her
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "gradebook.db").is_file()
    else:
        _refused(done, version)
        assert not (tmp_path / "gradebook.db").exists()  # stopped before nbgrader touched the course


def test_the_formgrader_s_list_is_wrapped_once_and_leaves_out_a_refused_folder(tmp_path):
    # what the course's config installs (in a process of its own: nbgrader's modules stay as they are here)
    for student in ("ada", "*"):
        (tmp_path / "submitted" / student / "ndcg").mkdir(parents=True)
    code = f"""
from nbgrader.apps import api
from autograder.course.autograde.converters import CourseAutograde, CourseGenerateFeedback, install
from autograder.nbgrader_adapter import CourseDirectory
nbgrader_s = api.NbGraderAPI.get_submitted_students
install()
install()  # a config loaded twice
assert api.NbGraderAPI.get_submitted_students.__wrapped__ is nbgrader_s
assert (api.Autograde, api.GenerateFeedback) == (CourseAutograde, CourseGenerateFeedback)
coursedir = CourseDirectory(root={str(tmp_path)!r}, db_url={f"sqlite:///{tmp_path / 'gradebook.db'}"!r})
formgrader = api.NbGraderAPI(coursedir=coursedir)
print(sorted(nbgrader_s(formgrader, "ndcg")), sorted(formgrader.get_submitted_students("ndcg")))
"""
    done = _python(code, None, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "['*', 'ada'] ['ada']"
