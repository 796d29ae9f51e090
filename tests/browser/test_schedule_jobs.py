"""Scheduling from JupyterLab as an admin does it, in Chromium: from the audit-suite notebook,
Create a notebook job shows the notebook's parameters with their defaults (chatops's extension
of the scheduler's form); the job definition made there shows in the Notebook Jobs panel, and
the scheduler has it with its parameters. In the Light and the Dark theme; with
``CHATOPS_SCREENSHOTS=docs/screenshots`` (``docs/screenshots/take.sh``) the form and the panel
are written there in both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import papermill
import pytest

from chatops.jupyter.scheduled import SCHEDULED
from tests.browser.conftest import Lab, screenshot
from tests.browser.test_console_look import switch_theme

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("CHATOPS_SCREENSHOTS", "")
SUITE = SCHEDULED["audit-suite"].path
NAME = "weekly-audits"


def shoot(page: Any, name: str) -> None:
    screenshot(page, name)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    tab = context.new_page()
    tab.goto(lab.notebook_url(SUITE))
    tab.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)
    # the notebook is the current widget once the admin has clicked in it: the scheduler's
    # button makes a job of the current notebook (JupyterLab marks its tab jp-mod-current,
    # which on a loaded machine can come a while after the click)
    tab.locator(".jp-Notebook .jp-Cell").first.click()
    current = tab.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current")
    current.filter(has_text=Path(SUITE).name).wait_for(timeout=60_000)
    yield tab
    context.close()


def form_parameters(page: Any) -> list[tuple[str, str]]:
    names = page.locator("input[name^='parameter-'][name$='-name']")
    values = page.locator("input[name^='parameter-'][name$='-value']")
    return list(
        zip(
            names.evaluate_all("l => l.map(e => e.value)"),
            values.evaluate_all("l => l.map(e => e.value)"),
            strict=True,
        )
    )


def test_create_a_notebook_job_shows_the_parameters_with_their_defaults(page: Any) -> None:
    from playwright.sync_api import expect

    page.locator("[data-command='scheduling:create-from-notebook']").first.click()
    expect(page.get_by_text("Create Job", exact=True).first).to_be_visible(timeout=30_000)
    expect(page.get_by_role("textbox", name="Input file")).to_have_value(SUITE, timeout=20_000)
    expect(page.locator("input[name='parameter-0-name']")).to_be_visible(timeout=20_000)
    declared = papermill.inspect_notebook(
        str(Path(__file__).resolve().parents[2] / "notebooks" / SUITE)
    )
    expected = [(n, str(s["default"])) for n, s in declared.items() if s["default"] != "None"]
    assert form_parameters(page) == expected
    assert ("zuliprc", '""') in expected and ("report_dir", '"reports"') in expected
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        switch_theme(page, theme)
        shoot(page, f"schedule-form-{'dark' if 'Dark' in theme else 'light'}")


def test_the_job_made_in_the_form_shows_in_the_notebook_jobs_panel(page: Any, lab: Lab) -> None:
    from playwright.sync_api import expect

    name = page.locator("input[name='jobName']")
    name.fill(NAME)
    page.locator("input[name='parameter-2-value']").fill('"invitations"')  # audits
    page.get_by_label("Run on a schedule").check()
    page.get_by_role("button", name="Create", exact=True).click()
    # the panel's list of definitions (exact: not the notice that it was created)
    expect(page.get_by_text(NAME, exact=True)).to_be_visible(timeout=30_000)
    expect(page.get_by_text("audit_suite.ipynb", exact=True).first).to_be_visible()
    answer = httpx.get(
        f"{lab.url}/scheduler/job_definitions", headers={"Authorization": f"token {lab.token}"}
    )
    defined = {d["name"]: d for d in answer.json()["job_definitions"]}
    assert defined[NAME]["parameters"]["audits"] == '"invitations"'
    assert defined[NAME]["parameters"]["report_dir"] == '"reports"'
    assert defined[NAME]["input_filename"] == "audit_suite.ipynb"
    for theme in ("JupyterLab Dark", "JupyterLab Light"):
        switch_theme(page, theme)
        shoot(page, f"schedule-jobs-{'dark' if 'Dark' in theme else 'light'}")
