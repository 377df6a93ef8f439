"""A real JupyterHub for tests: Unix users of the test's own, the hub and its proxy on 127.0.0.1, its REST API.

Everything lives in one folder under /tmp that the test made (mode 0755, so the users reach their
homes in it), and goes with it: every user is named ``ndcgt-<random>-<role>`` and removed with
``userdel -r``; the hub runs in a process group of its own; whatever still runs as a test user
afterwards is killed by its process id, found in /proc by its uid.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grading_run import stop_process_group
from other_users import reach_for

VENV_BIN = Path(sys.prefix) / "bin"
#: What .ci/run installs from the npm registry; the hub starts it (JupyterHub's default proxy).
PROXY = "configurable-http-proxy"
#: Every wait is bounded: a server start on a loaded 2-core machine takes seconds, never minutes.
START_TIMEOUT = 180


def users_or_skip() -> None:
    """Skip, saying why, where this machine cannot create the test's users (the only reason to skip)."""
    if os.geteuid() != 0:
        pytest.skip("the JupyterHub test creates Unix users (useradd): it needs root")
    for program in ("useradd", "userdel", "setpriv"):
        if shutil.which(program) is None:
            pytest.skip(f"the JupyterHub test creates Unix users and runs as them: {program} is missing")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Users:
    """Unix users the test creates under ``base``/home, removed (home and all) by :meth:`remove_all`."""

    base: Path
    prefix: str = field(default_factory=lambda: f"ndcgt-{secrets.token_hex(3)}-")
    created: list[str] = field(default_factory=list)

    def add(self, role: str) -> pwd.struct_passwd:
        name = self.prefix + role
        home = self.base / "home" / name
        home.parent.mkdir(mode=0o755, exist_ok=True)
        subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                        "--user-group", name], check=True, capture_output=True, timeout=60)
        self.created.append(name)
        home.chmod(0o700)  # as a university's homes are (or must be: issue 32.2)
        return pwd.getpwnam(name)

    def remove_all(self) -> list[str]:
        """Kill what still runs as a test user (by pid), remove each user with its home; the problems, as text."""
        problems = []
        uids = set()
        for name in self.created:
            with contextlib.suppress(KeyError):
                uids.add(pwd.getpwnam(name).pw_uid)
        for _ in range(2):
            for pid in _pids_of(uids):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        for name in self.created:
            done = subprocess.run(["userdel", "-r", name], capture_output=True, text=True, timeout=60)
            if done.returncode not in (0, 12):  # 12: the home was already gone
                problems.append(f"userdel -r {name}: {done.stderr.strip()}")
        return problems


def _pids_of(uids: set[int]) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid in uids:
                    found.append(int(entry.name))
    return found


def environment(user: pwd.struct_passwd) -> dict[str, str]:
    """A login's environment for ``user``: its home, the course venv's tools first on PATH (alembic)."""
    keep = {key: value for key, value in os.environ.items()
            if key in ("LANG", "LC_ALL", "TZ", "PYTHONDONTWRITEBYTECODE")}
    return {**keep, "HOME": user.pw_dir, "USER": user.pw_name, "LOGNAME": user.pw_name,
            "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"}


def as_user(user: pwd.struct_passwd, args: list[str], base: Path) -> list[str]:
    """``args`` run as ``user`` (setpriv, the user's groups), with the venv and its Python within reach."""
    return [*reach_for(user.pw_uid, base, interpreter=True), "setpriv", f"--reuid={user.pw_uid}",
            f"--regid={user.pw_gid}", "--init-groups", "--", *args]


def run_as(user: pwd.struct_passwd, args: list[str], cwd: Path, base: Path, timeout: float = 600,
           ) -> subprocess.CompletedProcess:
    """Run ``args`` as ``user`` in ``cwd`` with a login's environment; its output captured."""
    return subprocess.run(as_user(user, args, base), cwd=cwd, env=environment(user), capture_output=True, text=True,
                          timeout=timeout)


def start_as(user: pwd.struct_passwd, args: list[str], cwd: Path, base: Path) -> subprocess.Popen:
    """Start ``args`` as ``user`` (as :func:`run_as`) without waiting: steps that do not need each other overlap."""
    return subprocess.Popen(as_user(user, args, base), cwd=cwd, env=environment(user), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen, what: str, timeout: float = 600) -> str:
    """Wait (bounded) for a process of :func:`start_as`; its output, or the test fails saying what failed."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"{what} took over {timeout} s:\n{out[-3000:]}\n{err[-3000:]}")
    assert process.returncode == 0, f"{what} failed (exit {process.returncode}):\n{out[-3000:]}\n{err[-3000:]}"
    return str(out)


@dataclass
class Hub:
    """A running JupyterHub: its public URL, the test's admin token, its log."""

    process: subprocess.Popen
    url: str
    admin_token: str
    log: Path

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def request(self, method: str, path: str, token: str, body: object = None, timeout: float = 120,
                check: bool = True) -> object:
        """One request to the hub's public URL (the proxy); the JSON answer.

        An HTTP error fails the test with the hub's log, or with ``check=False`` gives None (a probe's "not yet").
        """
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {token}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            if not check:
                return None
            pytest.fail(f"{method} {path}: HTTP {error.code} {error.read()[:2000]!r}\n--- hub log:\n{self.tail()}")
        return json.loads(text) if text else None

    def page(self, path: str, token: str, timeout: float = 120) -> tuple[str, dict[str, str], str]:
        """GET a page as a browser would open it (redirects followed): its final URL, headers (lower-case names), text."""
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"token {token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return (response.geturl(), {key.lower(): value for key, value in response.headers.items()},
                        response.read().decode(errors="replace"))
        except urllib.error.HTTPError as error:
            pytest.fail(f"GET {path}: HTTP {error.code} {error.read()[:2000]!r}\n--- hub log:\n{self.tail()}")

    def status(self, path: str, token: str, method: str = "GET", timeout: float = 60) -> tuple[int, str]:
        """One request through the proxy, answered or not: its HTTP status and text (an error's page too)."""
        data = b"{}" if method == "POST" else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def service_environment(self, name: str) -> dict[str, str]:
        """The environment the hub gave its managed service ``name``'s process (``/proc/PID/environ``)."""
        model = self.request("GET", f"/hub/api/services/{name}", self.admin_token)
        assert isinstance(model, dict) and model.get("pid"), f"the hub runs no process for the service {name}: {model}"
        pairs = Path(f"/proc/{model['pid']}/environ").read_bytes().decode().split("\0")
        return dict(pair.split("=", 1) for pair in pairs if "=" in pair)

    def wait_for(self, what: str, probe, timeout: float = START_TIMEOUT) -> object:
        """Call ``probe`` until it returns something other than None (bounded); its value."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, f"the hub exited while waiting for {what}:\n{self.tail()}"
            with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
                value = probe()
                if value is not None:
                    return value
            assert time.monotonic() < deadline, f"no {what} after {timeout} s:\n{self.tail()}"
            time.sleep(0.5)

    def user_token(self, name: str) -> str:
        answer = self.request("POST", f"/hub/api/users/{name}/tokens", self.admin_token, {"note": "ndcgt test"})
        return str(answer["token"])

    def wait_for_api(self) -> None:
        self.wait_for("hub API", lambda: self.request("GET", "/hub/api/", self.admin_token, timeout=10, check=False))

    def start_server(self, name: str) -> None:
        """Ask the hub's API to start ``name``'s server (:meth:`wait_for_server` then waits for it)."""
        self.request("POST", f"/hub/api/users/{name}/server", self.admin_token, {})

    def wait_for_server(self, name: str) -> None:
        """Wait until the hub says ``name``'s server is ready."""
        def ready() -> object:
            model = self.request("GET", f"/hub/api/users/{name}", self.admin_token, timeout=10)
            server = model.get("servers", {}).get("")
            return True if server and server.get("ready") else None

        self.wait_for(f"server of {name}", ready)

    def stop(self) -> None:
        """Stop the hub (it stops its proxy); a proxy it left behind (a hub killed) by the pid it wrote."""
        stop_process_group(self.process, timeout=60)
        pid_file = self.log.parent / "jupyterhub-proxy.pid"  # JupyterHub's default, in its folder
        with contextlib.suppress(OSError, ValueError):
            pid = int(pid_file.read_text().strip())
            if PROXY in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                os.kill(pid, signal.SIGKILL)  # the proxy runs in a session of its own, outside the hub's group


def start_hub(folder: Path, config: str, port: int, admin_token: str, reach: list[str]) -> Hub:
    """Start ``jupyterhub -f`` on ``config`` in ``folder`` (the proxy with it); :meth:`Hub.wait_for` its API next."""
    if shutil.which(PROXY) is None:
        pytest.fail(f"{PROXY} is not installed: npm install -g {PROXY} (.ci/run does)")
    (folder / "jupyterhub_config.py").write_text(config, encoding="utf-8")
    log = folder / "hub.log"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUPYTER", "NBGRADER"))}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    with log.open("wb") as sink:
        process = subprocess.Popen([*reach, str(VENV_BIN / "jupyterhub"), "-f", str(folder / "jupyterhub_config.py")],
                                   cwd=folder, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Hub(process=process, url=f"http://127.0.0.1:{port}", admin_token=admin_token, log=log)
