"""Every page a person opens, over the hostile organization (tests/hostile.py), in Debian's
Chromium: the explore notebook as a self-contained HTML file, the admin console in JupyterLab and the console's Voila page.

On each: no dialog opened, no element a payload would make, no ``javascript:`` link, and no
request leaving 127.0.0.1 (the browser's own network log). The Voila page also keeps its
token off every command line and shuts down the kernels of pages that were closed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import papermill
import psutil
import pytest

from chatops.jupyter.notebook_html import write_notebook_html
from chatops.sandbox import Sandbox
from tests.browser.conftest import IDLE, chromium_path, free_port, running_lab, screenshot
from tests.hostile import INJECTED_JS, Planted, Visit, clean, plant, visit

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "explore" / "organization.ipynb"


@dataclass
class Org:
    sandbox: Sandbox
    planted: Planted
    base: Path


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    chromium_path()
    base = tmp_path_factory.mktemp("hostile-pages")
    with Sandbox.start(base / "org", size="small", seed=5) as sb:
        yield Org(sb, plant(sb), base)


def test_the_explore_notebook_as_html_runs_nothing_and_loads_nothing(
    org: Org, browser: Any
) -> None:
    executed = org.base / "explore.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK),
        str(executed),
        parameters={
            "zuliprc": str(org.sandbox.zuliprc("admin")),
            "cache": str(org.base / "explore-cache"),
        },
        kernel_name="python3",
        progress_bar=False,
        cwd=str(org.base),
    )
    html = write_notebook_html(executed, org.base / "explore.html")
    seen = visit(browser, html.as_uri(), shot="hostile-explore")
    clean(seen, "explore.html")
    assert "sync: 100%" in seen.text


def test_the_console_in_jupyterlab_runs_nothing_a_member_typed(org: Org, browser: Any) -> None:
    from playwright.sync_api import expect

    with running_lab(org.base / "lab", org.sandbox) as lab:
        seen = Visit()
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.on("request", lambda request: seen.requests.append(request.url))
        page = context.new_page()
        page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
        try:
            page.goto(lab.notebook_url("admin_console.ipynb"))
            expect(page.locator(".chatops-console")).to_be_visible(timeout=90_000)
            expect(page.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(
                timeout=60_000
            )
            tabs = page.locator(".chatops-console-tabs .lm-TabBar-tab")
            for i in range(tabs.count()):
                tabs.nth(i).click()
                page.wait_for_timeout(2_500)  # the tab loads its tables from the organization
                seen.injected += page.evaluate(INJECTED_JS)
            tabs.filter(has_text="User groups").click()
            groups = page.locator(".chatops-panel-groups .chatops-groups-table")
            expect(groups).to_contain_text("chatops-pwn", timeout=60_000)  # shown, as text
            screenshot(page, "hostile-console-groups")
        finally:
            context.close()
    clean(seen, "console")


@dataclass
class Voila:
    url: str
    token: str
    process: subprocess.Popen[bytes]
    log: Path


@pytest.fixture(scope="module")
def voila(org: Org) -> Iterator[Voila]:
    port = free_port()
    log = org.base / "voila.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chatops.cli",
                "console",
                "--dir",
                str(org.base / "console"),
                "--port",
                str(port),
                "--no-browser",
                "--zuliprc",
                str(org.sandbox.zuliprc("admin")),
                # kernels of closed pages go within seconds here, not five minutes
                "--idle-timeout",
                "6",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "MPLBACKEND": "agg"},
        )
        try:
            deadline = time.monotonic() + 180
            found = None
            while found is None:
                assert process.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "chatops console did not start"
                time.sleep(0.3)
                found = re.search(r"console at (http://\S+)\?token=(\w+)", log.read_text())
            yield Voila(found.group(1), found.group(2), process, log)
        finally:
            # Voila runs as the command's child: it and its kernels must not outlive the test
            # even when the command is killed before it could stop them
            tree = _tree(process.pid) if process.poll() is None else []
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
            _gone, alive = psutil.wait_procs(tree[1:], timeout=10)
            for left in alive:
                with contextlib.suppress(psutil.NoSuchProcess):
                    left.kill()


def _tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def _kernels(voila: Voila) -> list[psutil.Process]:
    """The kernels Voila runs now (one shut down while they are listed is not one of them)."""
    return [p for p in _tree(voila.process.pid) if "ipykernel" in " ".join(_cmdline(p))]


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return []


def test_no_command_line_holds_the_console_token(voila: Voila) -> None:
    lines = {p.pid: " ".join(p.cmdline()) for p in _tree(voila.process.pid)}
    assert any("voila" in line for line in lines.values()), lines
    holding = [line for line in lines.values() if voila.token in line]
    assert holding == []
    everyone = [" ".join(p.cmdline()) for p in psutil.process_iter() if _readable(p)]
    assert not [line for line in everyone if voila.token in line]


def _readable(p: psutil.Process) -> bool:
    try:
        p.cmdline()
    except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    return True


def test_the_console_page_runs_nothing_loads_nothing_and_shows_its_icons(
    voila: Voila, browser: Any
) -> None:
    seen = Visit()
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.on("request", lambda request: seen.requests.append(request.url))
    page = context.new_page()
    page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(f"{voila.url}?token={voila.token}")
        page.locator(".chatops-console").wait_for(timeout=120_000)
        tabs = page.locator(".chatops-console-tabs .lm-TabBar-tab")
        for i in range(tabs.count()):
            tabs.nth(i).click()
            page.wait_for_timeout(2_500)
            seen.injected += page.evaluate(INJECTED_JS)
        # the buttons' icons are drawn with the page's own copy of Font Awesome
        page.evaluate("() => document.fonts.ready")
        faces = page.evaluate(
            "() => [...document.fonts].map(f => [f.family, String(f.weight), f.status])"
        )
        assert ["Font Awesome 5 Free", "900", "loaded"] in faces, faces
        icon = page.locator("button i.fa").first
        assert icon.evaluate("e => getComputedStyle(e, '::before').content") not in ("none", "")
        screenshot(page, "hostile-console-page")
    finally:
        context.close()
    clean(seen, "console page")
    assert any("/voila/templates/chatops/static/fontawesome" in url for url in seen.requests)


def test_closed_console_pages_leave_at_most_one_kernel(voila: Voila, browser: Any) -> None:
    for n in range(4):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{voila.url}?token={voila.token}")
        page.locator(".chatops-console").wait_for(timeout=120_000)
        # half the tabs are closed as a browser closes them (beforeunload), half just vanish
        page.close(run_before_unload=n % 2 == 0)
        context.close()
    deadline = time.monotonic() + 60
    while len(_kernels(voila)) > 1 and time.monotonic() < deadline:
        time.sleep(1)
    assert len(_kernels(voila)) <= 1, [p.cmdline() for p in _kernels(voila)]
