"""The Invitations panel's list of invitations and links as an admin sees it in JupyterLab in
Chromium at 1400x900: every drawn column inside the grid's visible box, no word of a cell or
header broken across lines (an address breaks after an "@", "/" or "." only), and what the hidden columns
say (kind, who made it and when, its ID) as the address's tooltip. With
``CHATOPS_SCREENSHOTS=docs/screenshots`` the list is saved there too."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from tests.browser.conftest import Lab, open_console_panel, screenshot
from tests.browser.test_groups_grid import MEASURE_JS

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("CHATOPS_SCREENSHOTS", "")
GRID = ".chatops-panel-invitations .chatops-invitations-invitations-table .chatops-grid"


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any) -> Iterator[Any]:
    from playwright.sync_api import expect

    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("admin")) as acting:
        # long addresses and a reusable link beside the demo's invitations
        acting.invitations.send(
            ["someone.with.a.rather.long.name@engineering.example.org"], stream_ids=[]
        )
        link = acting.invitations.create_link(stream_ids=[])

    context, tab = open_console_panel(browser, lab, "Invitations", "invitations")
    expect(tab.locator(GRID)).to_contain_text("rather.long.name", timeout=60_000)
    yield tab, link
    context.close()


def test_every_column_is_inside_the_grid_and_no_word_is_cut(page: Any) -> None:
    tab, _link = page
    grid = tab.locator(GRID)
    grid.scroll_into_view_if_needed()
    length = grid.locator(".dt-length select")
    if length.count():  # more than a page of invitations: every one on one page
        length.select_option("100")
    measured = tab.evaluate(MEASURE_JS, GRID)
    screenshot(tab, "invitations-grid")
    if SHOTS:
        tab.screenshot(path=str(Path(SHOTS) / "invitations-list-light.png"))
    assert measured["rows"] > 3, measured
    headers = [name for name, _ in measured["past"]]
    assert headers == ["email or link", "role", "expires (UTC)", "state"]
    assert [(name, px) for name, px in measured["past"] if px > 0.5] == [], measured
    assert not measured["scrolls"], measured
    assert measured["words"] > 20, measured
    # an address or link may go on after an "@", "/" or "." (address_cell), nowhere else: with
    # no other break allowed in it, a longer one would stick out past the grid, measured above
    assert [w for w in measured["broken"] if not {"@", "/", "."} & set(w)] == [], measured


def test_the_hidden_columns_are_the_addresss_tooltip(page: Any) -> None:
    tab, _link = page
    row = tab.locator(f"{GRID} tbody tr", has_text="rather.long.name")
    tip = row.locator("td").nth(0).locator("span[title]").get_attribute("title")
    assert tip is not None and tip.startswith("Email invitation ") and " UTC" in tip
    assert "made by Adam Admin on " in tip
