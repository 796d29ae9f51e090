"""``chatops console``: the admin console as a page of its own, served by Voila on 127.0.0.1
behind a token, in Debian's Chromium: the page shows the console's tabs and panels and acts on
the organization; a request without the token (or with another) is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.browser.conftest import chromium_path, free_port, screenshot

pytestmark = pytest.mark.slow


@dataclass
class Page:
    url: str
    token: str
    sandbox: Sandbox
    log: Path
    process: subprocess.Popen[bytes]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    chromium_path()
    base = tmp_path_factory.mktemp("console-page")
    sandbox = Sandbox.start(base / "org", size="small", seed=33)
    token = os.urandom(12).hex()
    port = free_port()
    log_path = base / "voila.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatops.cli",
            "console",
            "--dir",
            str(base / "notebooks"),
            "--port",
            str(port),
            "--no-browser",
            "--zuliprc",
            str(sandbox.zuliprc("admin")),
            "--",
            f"--token={token}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=base,
        env={**os.environ, "MPLBACKEND": "agg"},
    )
    try:
        deadline = time.monotonic() + 180
        # every GET of the page starts a kernel: wait for the log line, not a probe of "/"
        while "running at" not in log_path.read_text():
            if process.poll() is not None:
                raise RuntimeError(f"chatops console exited: {log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("Voila did not start within 180 s")
            time.sleep(0.3)
        yield Page(f"http://127.0.0.1:{port}", token, sandbox, log_path, process)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        sandbox.stop()


def test_a_request_without_the_token_is_refused(served: Page) -> None:
    for params in ({}, {"token": "not-the-token"}):
        answer = httpx.get(f"{served.url}/", params=params, follow_redirects=False)
        assert answer.status_code in (302, 403), (params, answer.status_code)
        assert "chatops-console" not in answer.text
        if answer.status_code == 302:
            assert answer.headers["location"].startswith("/login")
    # and no kernel was started for them
    assert "Kernel started" not in served.log.read_text()


def test_the_page_shows_the_console_and_acts(served: Page, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{served.url}/?token={served.token}")
        expect(page.locator(".chatops-console")).to_be_visible(timeout=90_000)
        tabs = page.locator(".chatops-console-tabs .lm-TabBar-tab")
        expect(tabs).to_have_text(
            [
                "Channel folders",
                "Linkifiers",
                "User groups",
                "Invitations",
                "Status",
                "People and channels",
                "Organization",
            ]
        )
        expect(page.locator(".chatops-panel-folders .chatops-who")).to_contain_text(
            "administrator", timeout=60_000
        )
        tabs.filter(has_text="User groups").click()
        panel = page.locator(".chatops-panel-groups")
        panel.locator(".chatops-who").wait_for(timeout=60_000)
        expect(panel.locator(".chatops-groups-table table")).to_contain_text("support-team")
        # an action from the page reaches the organization
        panel.locator(".chatops-groups-new-name input").fill("made-on-the-page")
        panel.locator("button.chatops-groups-create").click()
        expect(panel.locator(".chatops-outcome-ok")).to_contain_text("made-on-the-page")
        screenshot(page, "console-page-groups")
        expect(page.get_by_text("Traceback")).to_have_count(0)
    finally:
        context.close()
    with chatops.Client.from_zuliprc(served.sandbox.zuliprc("owner")) as owner:
        assert "made-on-the-page" in {g.name for g in owner.user_groups.list()}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_browsers_light_or_dark_preference(
    served: Page, browser: Any, scheme: str
) -> None:
    """Console issue: the Voila page had no dark theme. It follows the browser's preference."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"{served.url}/?token={served.token}")
        expect(page.locator(".chatops-console")).to_be_visible(timeout=90_000)
        expect(page.locator(".chatops-panel-folders .chatops-who")).to_be_visible(timeout=60_000)
        theme = page.evaluate("document.body.dataset.jpThemeName")
        assert theme == ("JupyterLab Dark" if scheme == "dark" else "JupyterLab Light")
        background = page.evaluate(
            "getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim()"
        )
        assert background, "the theme's variables are loaded"
        luminance = page.evaluate(
            """() => {
                const probe = document.createElement('div');
                probe.style.background = 'var(--jp-layout-color0)';
                document.body.appendChild(probe);
                const [r, g, b] = getComputedStyle(probe).backgroundColor.match(/\\d+/g).map(Number);
                probe.remove();
                return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
            }"""
        )
        assert (luminance < 0.3) if scheme == "dark" else (luminance > 0.7), luminance
        screenshot(page, f"console-page-{scheme}")
        if shots := os.environ.get("CHATOPS_SCREENSHOTS", ""):
            page.screenshot(path=str(Path(shots) / f"voila-{scheme}.png"))
    finally:
        context.close()


def test_sigterm_stops_the_page_voila_and_its_kernels(served: Page) -> None:
    """``kill`` (or systemd stopping a service) stops ``chatops console`` as Ctrl-C does:
    Voila and every kernel it started exit with it, none is left behind."""
    started = psutil.Process(served.process.pid).children(recursive=True)
    assert any("voila" in " ".join(c.cmdline()) for c in started)
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(30) is not None
    _gone, alive = psutil.wait_procs(started, timeout=30)
    assert alive == []
