"""``python -m autograder hub-service``: the course's formgrader as a JupyterHub service, read back by JupyterHub.

The printed block is loaded as a ``jupyterhub_config.py`` (two courses' blocks, the second with
``--course-only``) and given to JupyterHub's own application class, whose traits check the services,
groups and roles as the hub does at start. The real hub running it is tests/hub/test_hub.py.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.setup.hub_service import hub_service, roster_users, service_block
from autograder.errors import UsageError

from grading_run import ROOT

NOBODY = pwd.getpwnam("nobody")


def _course(path: Path, course_id: str = "ir-ranking-evaluation") -> Path:
    path.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", path)
    with (path / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.CourseDirectory.course_id = {course_id!r}\n")
    return path


def _command(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "hub-service", *args], cwd=course,
                          capture_output=True, text=True, timeout=120)


def _hub(tmp_path: Path, text: str):
    from jupyterhub.app import JupyterHub

    (tmp_path / "jupyterhub_config.py").write_text("c = get_config()  # noqa\n" + text)
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()
    return JupyterHub(config=config)


def test_two_courses_blocks_make_one_hub_config(tmp_path):
    first, second = _course(tmp_path / "ir"), _course(tmp_path / "other", "other-course")
    one = _command(first, "--grader", "nobody", "--instructor", "ada", "--student", "bob", "--student", "carol")
    two = _command(second, "--grader", "nobody", "--port", "9998", "--student", "carol", "--course-only")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    hub = _hub(tmp_path, one.stdout + two.stdout)

    services = {service["name"]: service for service in hub.services}
    service = services["ir-ranking-evaluation"]
    assert service["user"] == "nobody" and service["cwd"] == str(first.resolve())
    bin_folder = Path(sys.prefix) / "bin"
    assert service["command"] == [str(bin_folder / "jupyterhub-singleuser")]
    assert Path(service["command"][0]).is_file()
    # nbgrader runs alembic from PATH: the venv's bin/ comes first, and has it
    assert service["environment"]["PATH"].split(os.pathsep)[0] == str(bin_folder)
    assert (bin_folder / "alembic").is_file()
    assert service["url"] == "http://127.0.0.1:9999" and services["other-course"]["url"] == "http://127.0.0.1:9998"

    assert hub.load_groups["formgrade-ir-ranking-evaluation"]["users"] == ["ada", "nobody"]
    assert hub.load_groups["nbgrader-ir-ranking-evaluation"]["users"] == ["ada", "bob", "carol"]
    assert hub.load_groups["nbgrader-other-course"]["users"] == ["carol"]
    roles = [role["name"] for role in hub.load_roles]
    assert sorted(roles) == sorted(set(roles))  # JupyterHub refuses a role defined twice
    scopes = {role["name"]: role["scopes"] for role in hub.load_roles}
    assert scopes["formgrade-ir-ranking-evaluation"] == ["access:services!service=ir-ranking-evaluation"]
    assert "read:users:groups!user" in scopes["server"]  # JupyterHubAuthPlugin reads the user's groups


def test_the_grader_is_the_course_folder_s_owner_never_root(tmp_path):
    course = _course(tmp_path / "course")
    if os.geteuid() != 0:
        pytest.skip("giving the folder to another account needs root")
    refused = _command(course)  # root's folder (the test runs as root)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "must not run as root" in refused.stderr
    os.chown(course, NOBODY.pw_uid, NOBODY.pw_gid)
    assert hub_service(course).grader == "nobody"


def test_bad_options_are_one_line(tmp_path):
    course = _course(tmp_path / "course")
    for args, said in ((["--grader", "root"], "must not run as root"),
                       (["--grader", "nobody", "--port", "70000"], "not a port"),
                       (["--grader", "nobody", "--roster", "missing.csv"], "cannot read it")):
        done = _command(course, *args)
        assert done.returncode == 2 and done.stdout == "", args
        assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr


def test_a_course_id_that_cannot_name_a_service_is_one_line(tmp_path):
    course = _course(tmp_path / "course", "ir course\nimport os")
    done = _command(course, "--grader", "nobody")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot name a hub service" in done.stderr


def test_an_account_the_machine_lacks_is_printed_with_a_note(tmp_path):
    done = _command(_course(tmp_path / "course"), "--grader", "ndcgt-no-such-account")
    assert done.returncode == 0 and "'user': 'ndcgt-no-such-account'" in done.stdout
    assert done.stderr.count("\n") == 1 and "no account ndcgt-no-such-account on this machine" in done.stderr


def test_the_roster_enrols_its_ids(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email\nalice,A,A,a@x\nbob,B,B,b@x\nalice,A,A,a@x\n")
    assert roster_users(roster) == ("alice", "bob")
    (tmp_path / "bad.csv").write_text("name\nalice\n")
    with pytest.raises(UsageError, match="no id column"):
        roster_users(tmp_path / "bad.csv")
    course = _course(tmp_path / "course")
    text = service_block(hub_service(course, grader="nobody", students=roster_users(roster)))
    assert "'nbgrader-ir-ranking-evaluation': {'users': ['alice', 'bob']}" in text
