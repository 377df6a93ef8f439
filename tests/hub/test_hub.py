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
the student fetches it; the unenrolled student cannot read the course folder; and the same
formgrader started the hub's way from the hub's usual environment (nbgrader without the kit) refuses
in one line and grades nothing. Network: 127.0.0.1 only; every wait is bounded (:mod:`hub_support`).
"""

from __future__ import annotations

import json
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.materials.example_notebooks import fill_solutions, parse_solution_file

from grading_run import ROOT, add_student, generated_course, stop_process_group
from hub_support import VENV_BIN, Hub, Users, as_user, finish, free_port, run_as, start_as, start_hub, users_or_skip
from other_users import reach_for
from without_the_kit import make_environment_without_the_kit

pytestmark = [pytest.mark.slow, pytest.mark.hub]

ASSIGNMENT = "ndcg"
PLAIN_COURSE, PLAIN_ASSIGNMENT = "plain-course", "hello"
#: The submission of the no-kit check: its first cell writes a canary file when it runs (ungraded, it never does).
CANARY_STUDENT, CANARY_CELL = "mallory", "open({path!r}, 'w').write('ran as the grader')"


@dataclass(frozen=True)
class NoKitService:
    """The hub's entry for the formgrader from an environment without the kit (unmanaged: the test starts it)."""

    name: str
    url: str
    token: str
    grader: str
    #: The course's own service (``hub-service``'s block): this one gets its roles and, when started, its settings.
    twin: str


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
                student: str, without_kit: NoKitService) -> str:
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
                             'scopes': ['admin:users', 'admin:servers', 'tokens', 'read:groups',
                                        'read:services']}}]
# --- python -m autograder hub-service, as printed ---
{block}
# --- the plain course's students (its grader runs no service here)
c.JupyterHub.load_groups.update({{'nbgrader-{PLAIN_COURSE}': {{'users': [{student!r}]}}}})
# the service reads the hub's nbgrader settings too, as it would from /etc/jupyter
for service in c.JupyterHub.services:
    service.setdefault('environment', {{}})['JUPYTER_CONFIG_PATH'] = {str(hub_etc)!r}
# the same formgrader from the hub's environment without the kit: unmanaged, the test starts its process;
# its token may do what the course's service's may (nbgrader's JupyterHubAuthPlugin asks the hub)
c.JupyterHub.services.append({{'name': {without_kit.name!r}, 'url': {without_kit.url!r},
                              'api_token': {without_kit.token!r}, 'oauth_no_confirm': True}})
for role in c.JupyterHub.load_roles:
    if {without_kit.twin!r} in role.get('services', []):
        role['services'].append({without_kit.name!r})
c.JupyterHub.load_roles.append({{'name': {without_kit.name!r}, 'users': [{without_kit.grader!r}],
                                'scopes': ['access:services!service={without_kit.name}']}})
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
        without_kit = NoKitService("formgrader-without-kit", f"http://127.0.0.1:{free_port()}", secrets.token_hex(32),
                                   grader.pw_name, course_id)
        config = _hub_config(port, admin_token, hub_folder, hub_etc, names, block, student.pw_name, without_kit)
        hub = start_hub(hub_folder, config, port, admin_token, reach_for(grader.pw_uid, base, interpreter=True))
        (hub_etc / "nbgrader_config.py").write_text(finish(settings, "student-config --hub"))
        finish(plain, "the plain course's release_assignment")
        hub.wait_for_api()
        yield {"base": base, "hub": hub, "course": course, "course_id": course_id, "grader": grader,
               "student": student, "outsider": outsider, "exchange": exchange, "without_kit": without_kit}
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


def _as_the_hub_starts(hub: Hub, course_id: str, service: NoKitService, bin_folder: Path) -> dict[str, str]:
    """The environment the hub would give ``service`` as a managed service: the course's service's, its own names.

    Taken from the hub's running process for the course's service (same grader, same settings), with
    what names that service (its name, URL, token) changed to ``service``'s and its venv's ``bin/``
    on PATH changed to ``bin_folder``: what JupyterHub's ``Service.start`` sets for a service.
    """
    given = hub.service_environment(course_id)
    kit_token, kit_url = given["JUPYTERHUB_API_TOKEN"], given["JUPYTERHUB_SERVICE_URL"]
    environment = {}
    for key, value in given.items():
        if key.startswith("JUPYTERHUB_") or key == "JPY_API_TOKEN":
            value = value.replace(kit_token, service.token).replace(kit_url, service.url)
            value = value.replace(course_id, service.name)
        environment[key] = value
    environment["PATH"] = given["PATH"].replace(str(VENV_BIN), str(bin_folder))
    assert environment["PATH"] != given["PATH"] and environment["JUPYTERHUB_SERVICE_NAME"] == service.name, given
    return environment


def _graded_rows(course: Path, student_id: str) -> int:
    """How many submissions of ``student_id`` the course's gradebook holds (read-only: root writes nothing there)."""
    with sqlite3.connect(f"file:{course / 'gradebook.db'}?mode=ro", uri=True) as database:
        return int(database.execute("SELECT count(*) FROM submitted_assignment WHERE student_id = ?",
                                    (student_id,)).fetchone()[0])


def test_a_formgrader_without_the_kit_grades_nothing(site):
    """The course's formgrader started the hub's way from the hub's usual environment (nbgrader, no kit) refuses.

    The hub's entry for it is an *unmanaged* service (a URL and a token, as the hub's proxy and OAuth
    see any service), and the test starts its process as JupyterHub starts a managed one: as the
    grader account, in the course folder, with the environment the hub gave the course's own service
    (read from that process), its names and the ``bin/`` on PATH changed to this service's and the
    no-kit environment's. Not a managed service: JupyterHub restarts a managed service that exits, on
    every poll, for as long as the hub runs (``Service._proc_stopped``), and no API stops one; this
    process the test starts once and stops. If the kit check were gone, the same process would serve
    the formgrader: the test waits for that too, and then asks it to autograde the canary submission.
    """
    hub, course, course_id, grader, base = (site[key] for key in ("hub", "course", "course_id", "grader", "base"))
    service: NoKitService = site["without_kit"]
    python = make_environment_without_the_kit(base / "no-kit")
    canary = Path(grader.pw_dir) / "canary-without-the-kit"
    submitted = add_student(course, CANARY_STUDENT, extra=(CANARY_CELL.format(path=str(canary)),)).parents[1]
    subprocess.run(["chown", "-R", f"{grader.pw_uid}:{grader.pw_gid}", str(submitted)], check=True, timeout=60)
    token = hub.user_token(grader.pw_name)
    formgrader = f"/services/{service.name}/formgrader"
    log = base / "formgrader-without-the-kit.log"
    try:
        with log.open("w") as sink:
            process = subprocess.Popen(as_user(grader, [str(python.parent / "jupyterhub-singleuser")], base),
                                       cwd=course, env=_as_the_hub_starts(hub, course_id, service, python.parent),
                                       stdout=sink, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:  # until it ends, or answers (without the check it serves the formgrader: then it is asked to grade)
            def ended_or_answers() -> bool | None:  # 503: the proxy has no route to it (yet)
                if process.poll() is not None:
                    return True
                return True if hub.status(f"{formgrader}/api/assignments", token)[0] != 503 else None

            try:
                hub.wait_for("the formgrader without the kit to end or answer", ended_or_answers)
            except AssertionError as waited:
                pytest.fail(f"{waited}\n--- the formgrader without the kit:\n{log.read_text(errors='replace')[-6000:]}")
            page = hub.status(f"{formgrader}/manage_assignments", token)
            autograde = hub.status(f"{formgrader}/api/submission/{ASSIGNMENT}/{CANARY_STUDENT}/autograde", token,
                                   method="POST", timeout=600)
        finally:
            stop_process_group(process)
        output = log.read_text(errors="replace")
        refusals = [line for line in output.splitlines() if "nbgrader_config.py:" in line]
        graded = {"canary written": canary.exists(), "autograded": (course / "autograded" / CANARY_STUDENT).exists(),
                  "Autograde answered": autograde[0]}
        # (a) one line naming the environment to use, exit 2, no traceback
        assert process.returncode == 2, f"exit {process.returncode}, {graded}\n{output[-3000:]}"
        assert len(refusals) == 1 and "Traceback" not in output, output[-3000:]
        assert "cannot import" in refusals[0] and str(python) in refusals[0], refusals
        assert str(course / ".venv" / "bin") in refusals[0] and "Nothing was graded" in refusals[0], refusals
        # (b) the service's URL serves no formgrader: the proxy finds nothing there
        for status, text in (page, autograde):
            assert status == 503 and "Manage Assignments" not in text, (status, text[:2000])
        # (c) the canary cell never ran; nothing autograded, nothing in the gradebook
        assert not canary.exists()
        assert not (course / "autograded" / CANARY_STUDENT).exists()
        assert _graded_rows(course, CANARY_STUDENT) == 0
    finally:  # the canary submission goes: the other tests grade the whole course
        for folder in (submitted, course / "autograded" / CANARY_STUDENT):
            shutil.rmtree(folder, ignore_errors=True)
