"""JupyterLab started by ``chatops lab`` and driven in Debian's Chromium through Playwright.

Chromium comes from Debian (``apt-get install chromium``; ``.ci/run`` installs it), never from
Playwright's own download. Without it these tests skip on a developer's machine and fail in CI,
where nothing required may be skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from chatops.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("CHATOPS_TEST_ARTIFACTS", REPO / "test-artifacts")) / "browser"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IDLE = re.compile(r"^Python 3 \(chatops\) \| Idle$|^Python 3 \(ipykernel\) \| Idle$")


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("Debian's chromium is missing; .ci/run installs it with apt-get")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium); CI installs it")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    sandbox: Sandbox

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}"


@contextmanager
def running_lab(base: Path, sandbox: Sandbox) -> Iterator[Lab]:
    """``chatops lab`` serving a fresh notebook folder under ``base`` whose console acts as the
    admin of ``sandbox``; stopped (and its kernels with it) on leaving."""
    root = base / "notebooks"
    settings = base / "settings"
    # no autosave: the page stays as the test leaves it (the news toast is off in chatops lab)
    (settings / "@jupyterlab" / "docmanager-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
        json.dumps({"autosave": False})
    )
    token = os.urandom(12).hex()
    port = free_port()
    log = (base / "lab.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatops.cli",
            "lab",
            "--dir",
            str(root),
            "--port",
            str(port),
            "--no-browser",
            "--zuliprc",
            str(sandbox.zuliprc("admin")),
            "--",
            f"--IdentityProvider.token={token}",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={base / 'workspaces'}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=base,
        env={**os.environ, "MPLBACKEND": "agg"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"chatops lab exited: {(base / 'lab.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/api/status", params={"token": token}).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("JupyterLab did not start within 180 s")
            time.sleep(0.3)
        wait_until_run(url, token, deadline)
        yield Lab(url=url, token=token, root=root, sandbox=sandbox)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """``chatops lab`` serving a fresh notebook folder whose console acts as the admin of a
    sandbox organization that the test can inspect."""
    chromium_path()
    base = tmp_path_factory.mktemp("lab")
    sandbox = Sandbox.start(base / "org", size="small", seed=31)
    try:
        with running_lab(base, sandbox) as running:
            yield running
    finally:
        sandbox.stop()


def console_outputs(url: str, token: str) -> list[dict[str, object]]:
    """The outputs of the console notebook's code cells, as the server has the file."""
    answer = httpx.get(f"{url}/api/contents/admin_console.ipynb", params={"token": token})
    answer.raise_for_status()
    cells = answer.json()["content"]["cells"]
    return [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]


def wait_until_run(url: str, token: str, deadline: float) -> None:
    """``chatops lab`` runs the console notebook before opening it (chatops.lab_ready): wait
    for its outputs, as the browser ``chatops lab`` opens does."""
    while not console_outputs(url, token):
        if time.monotonic() > deadline:
            raise RuntimeError("chatops lab did not run the console notebook within 180 s")
        time.sleep(0.5)


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright.

    Assertions wait up to 20 s (Playwright's default is 5 s): on a loaded 2-core machine a
    console action that answers in a second here can take several."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)

    with sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as instance:
        yield instance


def screenshot(page: object, name: str) -> Path:
    """Save a screenshot as a test artifact; returns its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path


def open_console_panel(browser: object, lab: Lab, title: str, slug: str) -> tuple[object, object]:
    """A 1400x900 page on the console notebook, run, with the ``title`` tab open and its
    panel (``.chatops-panel-<slug>``) showing who acts; returns the context and the page."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    tab = context.new_page()
    tab.goto(lab.notebook_url("admin_console.ipynb"))
    expect(tab.locator(".chatops-console")).to_be_visible(timeout=90_000)
    expect(tab.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(timeout=60_000)
    tab.locator(".chatops-console-tabs .lm-TabBar-tab", has_text=title).click()
    tab.locator(f".chatops-panel-{slug}").locator(".chatops-who").wait_for()
    return context, tab
