"""Shared helpers of the browser tests: a JupyterLab server on 127.0.0.1 and headless Chromium.

The browser is Debian's ``chromium`` driven by Playwright's Python package (never a downloaded
browser); without either the tests that use :data:`requires_browser` skip themselves.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grading_run import stop_process_group

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
BIN = Path(sys.executable).parent

requires_browser = pytest.mark.skipif(
    not CHROMIUM.is_file() or importlib.util.find_spec("playwright") is None,
    reason="browser tests need Debian's chromium (/usr/bin/chromium) and the playwright package",
)

#: JupyterLab settings for a predictable page: every cell in the DOM (no virtual scrolling), no news.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Lab:
    """A running JupyterLab server."""

    url: str  # http://127.0.0.1:PORT
    token: str
    root: Path
    log: Path

    def page_url(self, path: str) -> str:
        separator = "&" if "?" in path else "?"
        return f"{self.url}/{path.lstrip('/')}{separator}token={self.token}"

    def api(self, path: str, method: str = "GET", body: Any = None) -> Any:
        """Call the server's REST API with the token (for checks; the tests act through the browser)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/{path.lstrip('/')}", data=data, method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
        return json.loads(text) if text else None


@contextlib.contextmanager
def jupyter_lab(root: Path, home: Path, timeout: float = 120) -> Iterator[Lab]:
    """Start ``jupyter lab`` with ``root`` as working directory (nbgrader reads its config from there)
    and fresh Jupyter config, data, runtime and settings folders under ``home``; stop it afterwards."""
    for name in ("config", "data", "runtime", "settings", "workspaces"):
        (home / name).mkdir(parents=True, exist_ok=True)
    for name, settings in LAB_SETTINGS.items():
        target = home / "settings" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(settings), encoding="utf-8")
    env = dict(os.environ)
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
    )
    port, token = free_port(), secrets.token_hex(16)
    log = home / "jupyter-lab.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             f"--ServerApp.token={token}", "--ServerApp.port_retries=0", "--allow-root"],
            cwd=root, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root=root, log=log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited ({process.returncode}):\n{log.read_text()[-3000:]}")
            try:
                lab.api("api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not answer in {timeout:g} s:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.25)
        yield lab
    finally:
        stop_process_group(process, timeout=20)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Debian Chromium under Playwright (the system browser: nothing is downloaded)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def screenshot_on_failure(page: Any, path: Path) -> Iterator[None]:
    """Save a full-page screenshot to ``path`` if the block fails (then re-raise)."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            page.screenshot(path=str(path), full_page=True)
            print(f"screenshot: {path}")
        raise


@contextlib.contextmanager
def tutor_context(browser: Any, lab: Lab, landing: str, screenshot: Path, timeout: float) -> Iterator[Any]:
    """A browser context logged in to ``lab`` with its token, as a tutor types it, first landing on ``landing``.

    ``landing`` is a path such as ``/formgrader/manage_students``; the login waits until it is shown.
    Every page opened in the context shares the login's cookie.
    """
    context = browser.new_context()
    context.set_default_timeout(timeout)
    page = context.new_page()
    with screenshot_on_failure(page, screenshot):
        page.goto(f"{lab.url}/login?next={urllib.parse.quote(landing, safe='')}")
        page.fill("input[type=password]", lab.token)
        page.click("button[type=submit]")
        page.wait_for_url(f"**{landing}")
    page.close()
    try:
        yield context
    finally:
        context.close()
