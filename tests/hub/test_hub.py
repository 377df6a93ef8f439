"""The course on a real JupyterHub, as a university runs it: two courses, a grader service, students of their own.

A JupyterHub (this venv's, the ``hub`` extra) with configurable-http-proxy on 127.0.0.1 and Unix
users the test creates: this course's grader account (the course, a copy, in its 0700 home), a
second grader with a plain nbgrader course, a student enrolled in both, and a student enrolled in
neither. The hub's configuration is what the kit prints: ``python -m autograder hub-service``'s
block for the grader service (from the course's venv) and ``student-config --hub`` as the hub's
nbgrader settings for everyone. Then, through the hub's REST API and the servers behind it: the
formgrader service releases; the student lists both courses, fetches, writes and submits; the
service collects and autogrades (in the kit's sandbox, as the grader account); ``python -m
autograder grade`` grades as the grader, to the same score; the service releases the feedback and
the student fetches it; the unenrolled student cannot read the course folder. Network: 127.0.0.1
only; every wait is bounded (:mod:`hub_support`).
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.example_notebooks import fill_solutions, parse_solution_file

from grading_run import ROOT, generated_course
from hub_support import VENV_BIN, Hub, Users, finish, free_port, run_as, start_as, start_hub, users_or_skip
from other_users import reach_for

pytestmark = [pytest.mark.slow, pytest.mark.hub]

ASSIGNMENT = "ndcg"
PLAIN_COURSE, PLAIN_ASSIGNMENT = "plain-course", "hello"


def _plain_notebook() -> nbformat.NotebookNode:
    """A plain nbgrader assignment: one answer cell, one test cell."""
    def meta(**fields: object) -> dict:
        return {"nbgrader": {"schema_version": 3, "locked": False, "solution": False, "grade": False, **fields}}

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("def answer():\n    ### BEGIN SOLUTION\n    return 42\n    ### END SOLUTION",
                                  metadata=meta(solution=True, grade_id="answer")),
        nbformat.v4.new_code_cell("assert answer() == 42", metadata=meta(grade=True, locked=True, points=1,
                                                                          grade_id="test_answer")),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _check(done: subprocess.CompletedProcess, what: str) -> str:
    assert done.returncode == 0, f"{what} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _succeeded(answer: object, what: str) -> object:
    """nbgrader's API answers {success, error, log} (or a list, which is success)."""
    if isinstance(answer, dict) and "success" in answer:
        assert answer["success"], f"{what}: {answer.get('error')}\n{answer.get('log')}"
        return answer.get("value")
    return answer


def _hub_config(port: int, admin_token: str, folder: Path, hub_etc: Path, users: list[str], block: str,
                student: str) -> str:
    """The hub's jupyterhub_config.py: 127.0.0.1 only, the test's admin service, the kit's block as printed."""
    return f"""c = get_config()  # noqa
c.JupyterHub.ip = '127.0.0.1'
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = '127.0.0.1'
c.JupyterHub.hub_port = {free_port()}
c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'
c.JupyterHub.db_url = 'sqlite:///{folder / "jupyterhub.sqlite"}'
c.JupyterHub.cookie_secret_file = '{folder / "cookie_secret"}'
c.Authenticator.allowed_users = set({users!r})
c.Spawner.cmd = [{str(VENV_BIN / "jupyterhub-singleuser")!r}]
# the hub's /etc/jupyter: its nbgrader_config.py is what student-config --hub printed
c.Spawner.environment = {{'JUPYTER_CONFIG_PATH': {str(hub_etc)!r}}}
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.services = [{{'name': 'ndcgt-admin', 'api_token': {admin_token!r}}}]
c.JupyterHub.load_roles = [{{'name': 'ndcgt-admin', 'services': ['ndcgt-admin'],
                             'scopes': ['admin:users', 'admin:servers', 'tokens', 'read:groups']}}]
# --- python -m autograder hub-service, as printed ---
{block}
# --- the plain course's students (its grader runs no service here)
c.JupyterHub.load_groups.update({{'nbgrader-{PLAIN_COURSE}': {{'users': [{student!r}]}}}})
# the service reads the hub's nbgrader settings too, as it would from /etc/jupyter
for service in c.JupyterHub.services:
    service.setdefault('environment', {{}})['JUPYTER_CONFIG_PATH'] = {str(hub_etc)!r}
"""


def _plain_course(other, exchange: Path, base: Path):
    """The other grader's plain nbgrader course, its assignment released (started, not waited for)."""
    plain = Path(other.pw_dir) / "plain"
    (plain / "release" / PLAIN_ASSIGNMENT).mkdir(parents=True)
    # the students' version as generate_assignment writes it (the course needs no gradebook to release)
    notebook = _plain_notebook()
    notebook.cells[0].source = "def answer():\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    nbformat.write(notebook, plain / "release" / PLAIN_ASSIGNMENT / f"{PLAIN_ASSIGNMENT}.ipynb")
    (plain / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {PLAIN_COURSE!r}\n"
        f"c.CourseDirectory.root = {str(plain)!r}\nc.Exchange.root = {str(exchange)!r}\n")
    subprocess.run(["chown", "-R", f"{other.pw_uid}:{other.pw_gid}", str(plain)], check=True, timeout=60)
    return start_as(other, ["nbgrader", "release_assignment", PLAIN_ASSIGNMENT], plain, base)


@pytest.fixture(scope="module")
def site():
    """The folder, the users, the two courses and the running hub; everything removed afterwards.

    Steps that do not need each other overlap (the hub starts while the plain course is released
    and the hub's nbgrader settings are written): each is a cold start of seconds of CPU time.
    """
    users_or_skip()
    base = Path(tempfile.mkdtemp(prefix="ndcgt-hub-", dir="/tmp"))
    base.chmod(0o755)
    users = Users(base)
    hub: Hub | None = None
    try:
        grader, other, student, outsider = (users.add(role) for role in ("grader", "other", "s", "u"))
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)  # nbgrader's shared exchange, as root makes it

        # this course: a copy in the grader's 0700 home, its exchange the hub's
        course = Path(grader.pw_dir) / "ir-course"
        generated_course(course)
        with (course / "nbgrader_config.py").open("a") as config:
            config.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
        shutil.rmtree(course / "exchange", ignore_errors=True)
        subprocess.run(["chown", "-R", f"{grader.pw_uid}:{grader.pw_gid}", str(course)], check=True, timeout=120)
        course.chmod(0o700)
        course_id = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config().CourseDirectory.course_id

        # what the kit prints, as the grader: the service block, and the hub's nbgrader settings for everyone
        kit = [str(VENV_BIN / "python"), "-m", "autograder"]
        service_port = free_port()
        block = finish(start_as(grader, [*kit, "hub-service", "--port", str(service_port), "--student",
                                         student.pw_name], course, base), "hub-service")
        settings = start_as(grader, [*kit, "student-config", "--hub"], course, base)
        plain = _plain_course(other, exchange, base)

        hub_folder = base / "hub"
        hub_folder.mkdir(mode=0o700)
        hub_etc = base / "etc-jupyter"
        hub_etc.mkdir(mode=0o755)
        port, admin_token = free_port(), secrets.token_hex(32)
        names = sorted(user.pw_name for user in (grader, other, student, outsider))
        hub = start_hub(hub_folder, _hub_config(port, admin_token, hub_folder, hub_etc, names, block, student.pw_name),
                        port, admin_token, reach_for(grader.pw_uid, base, interpreter=True))
        (hub_etc / "nbgrader_config.py").write_text(finish(settings, "student-config --hub"))
        finish(plain, "the plain course's release_assignment")
        hub.wait_for_api()
        yield {"base": base, "hub": hub, "course": course, "course_id": course_id, "grader": grader,
               "student": student, "outsider": outsider, "exchange": exchange}
    finally:
        if hub is not None:
            hub.stop()
        problems = users.remove_all()
        shutil.rmtree(base, ignore_errors=True)
        assert problems == [], problems


def test_a_semester_on_the_hub(site):
    hub, course, course_id = site["hub"], site["course"], site["course_id"]
    grader, student, base = site["grader"], site["student"], site["base"]
    name = student.pw_name
    student_token, grader_token = hub.user_token(name), hub.user_token(grader.pw_name)
    hub.start_server(name)  # while the tutor releases

    # the tutor releases in the formgrader service (as the grader account, in the course folder)
    formgrader = f"/services/{course_id}/formgrader/api"
    hub.wait_for("the formgrader service", lambda: hub.request("GET", f"{formgrader}/assignments", grader_token,
                                                               timeout=30, check=False))
    _succeeded(hub.request("POST", f"{formgrader}/assignment/{ASSIGNMENT}/release", grader_token, {}), "release")
    # the service's address opens the formgrader (its default URL), which forbids every frame: the reason the
    # Lab's Formgrader panel stays blank under JupyterHub >= 4.1 (docs/tutor-guide.md, "On JupyterHub")
    url, headers, text = hub.page(f"/services/{course_id}/", grader_token)
    assert f"/services/{course_id}/formgrader/manage_assignments" in url and "Manage Assignments" in text, url
    assert "frame-ancestors 'none'" in headers.get("content-security-policy", ""), headers

    # the student's Assignments tab: both courses (the hub mode pins none), this one's assignment released
    hub.wait_for_server(name)
    server = f"/user/{name}"
    courses = _succeeded(hub.request("GET", f"{server}/courses", student_token), "courses")
    assert courses == sorted([course_id, PLAIN_COURSE])
    query = urllib.parse.urlencode({"course_id": course_id})
    listed = _succeeded(hub.request("GET", f"{server}/assignments?{query}", student_token), "assignments")
    assert [(a["course_id"], a["assignment_id"], a["status"]) for a in listed] == [(course_id, ASSIGNMENT, "released")]
    query = urllib.parse.urlencode({"course_id": PLAIN_COURSE})
    other = _succeeded(hub.request("GET", f"{server}/assignments?{query}", student_token), "the other course")
    assert [(a["course_id"], a["assignment_id"]) for a in other] == [(PLAIN_COURSE, PLAIN_ASSIGNMENT)]

    # fetch, work (through the contents API), submit: as the student, in the student's server
    action = {"course_id": course_id, "assignment_id": ASSIGNMENT}
    _succeeded(hub.request("POST", f"{server}/assignments/fetch", student_token, action), "fetch")
    path = f"{course_id}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"  # path_includes_course: a folder per course
    fetched = hub.request("GET", f"{server}/api/contents/{path}?content=1", student_token)
    solution = parse_solution_file((ROOT / "examples" / "submissions" / "alice.py").read_text(encoding="utf-8"))
    work = fill_solutions(nbformat.from_dict(fetched["content"]), solution)
    hub.request("PUT", f"{server}/api/contents/{path}", student_token,
                {"type": "notebook", "format": "json", "content": json.loads(nbformat.writes(work))})
    _succeeded(hub.request("POST", f"{server}/assignments/submit", student_token, action), "submit")

    # the formgrader service: collect and Autograde (the kit's sandbox, as the grader account)
    _succeeded(hub.request("POST", f"{formgrader}/assignment/{ASSIGNMENT}/collect", grader_token, {}), "collect")
    assert (course / "submitted" / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
    _succeeded(hub.request("POST", f"{formgrader}/submission/{ASSIGNMENT}/{name}/autograde", grader_token, {},
                           timeout=600), "autograde")
    graded = hub.request("GET", f"{formgrader}/submission/{ASSIGNMENT}/{name}", grader_token)
    assert graded["autograded"] and graded["score"] > 0, graded

    # the kit's own grader, as the grader account in the course folder
    _check(run_as(grader, [str(VENV_BIN / "python"), "-m", "autograder", "grade", "--quiet"], course, base),
           "python -m autograder grade")
    document = json.loads((course / "graded" / "results.json").read_text())
    (mine,) = [entry for entry in document["students"] if entry["student_id"] == name]
    assert document["sandbox"] == "bubblewrap" and mine["status"] == "graded"  # as the grader account, sandboxed
    code = [test for test in mine["tests"] if test["name"].startswith(("test_dcg", "test_ndcg"))]
    assert code and all(test["passed"] for test in code), code  # alice's functions: every code test
    # both grading paths, one score: the formgrader's Autograde (before) and the kit's grade (in the gradebook)
    assert mine["score"] == pytest.approx(graded["score"])
    regraded = hub.request("GET", f"{formgrader}/submission/{ASSIGNMENT}/{name}", grader_token)
    assert regraded["score"] == pytest.approx(mine["score"])

    # feedback: released by the service, fetched by the student
    _succeeded(hub.request("POST", f"{formgrader}/assignment/{ASSIGNMENT}/release_feedback", grader_token, {}),
               "release_feedback")
    _succeeded(hub.request("POST", f"{server}/assignments/fetch_feedback", student_token, action), "fetch_feedback")
    pages = list((Path(student.pw_dir) / course_id / ASSIGNMENT / "feedback").rglob(f"{ASSIGNMENT}.html"))
    assert pages, "no feedback page in the student's home"


def test_an_unenrolled_student_cannot_read_the_course(site):
    outsider, course = site["outsider"], site["course"]
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert source.is_file()
    probe = ("import sys\n"
             "for path in sys.argv[1:]:\n"
             "    try:\n"
             "        open(path, 'rb').read(1) if path.endswith('.ipynb') else __import__('os').listdir(path)\n"
             "        print('READ', path)\n"
             "    except PermissionError:\n"
             "        print('refused', path)\n")
    done = run_as(outsider, [str(VENV_BIN / "python"), "-c", probe, str(source), str(course), str(Path(site["grader"].pw_dir))],
                  Path("/"), site["base"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == [f"refused {source}", f"refused {course}",
                                           f"refused {site['grader'].pw_dir}"], done.stdout
