"""The grid every table is drawn with, in JupyterLab in Chromium at 1400x900: the Invitations
panel over 3,000 invitations sorts by a column and filters (its search box, and the panel's own
filters), rows selected in the grid are revoked from the panel, and a grid of 10,000 rows leaves
the page answering. Timings are in ``bench/bench_grid.py``; here only what a person sees."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.browser.conftest import chromium_path, running_lab, screenshot
from tests.browser.grid_page import (
    BIG,
    INVITATIONS,
    SEARCH_JS,
    SORT_JS,
    TIMER_JS,
    first_cells,
    info,
    invite_many,
    listed,
    open_grid_page,
    write_notebook,
)

pytestmark = pytest.mark.slow

N = 3000


@pytest.fixture(scope="module")
def grid_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    chromium_path()
    base = tmp_path_factory.mktemp("grid-lab")
    with Sandbox.start(base / "org", size="small", seed=33) as sandbox:
        invite_many(sandbox, N)
        every = listed(sandbox)  # with any the demo organization came with
        with running_lab(base, sandbox) as lab:
            write_notebook(lab)
            yield lab, every


@pytest.fixture(scope="module")
def page(grid_lab: Any, browser: Any) -> Iterator[Any]:
    lab, _every = grid_lab
    context, tab = open_grid_page(browser, lab)
    yield tab
    context.close()


def test_3000_invitations_sort_by_a_column(page: Any, grid_lab: Any) -> None:
    from playwright.sync_api import expect

    _lab, every = grid_lab
    emails = sorted(every, key=str.casefold)
    grid = page.locator(INVITATIONS)
    grid.scroll_into_view_if_needed()
    expect(grid).to_be_visible()
    assert f"of {len(every):,} entries" in info(page, INVITATIONS), info(page, INVITATIONS)
    column = 0  # "email or link" (kind, invited by, when and ID are its tooltip)
    assert first_cells(page, INVITATIONS, column)[0] != emails[0]  # newest first at first
    assert page.evaluate(SORT_JS, [INVITATIONS, "email or link"])["drawn"] >= 0
    shown = first_cells(page, INVITATIONS, column)
    assert shown[:3] == emails[:3]
    assert page.evaluate(SORT_JS, [INVITATIONS, "email or link"])["drawn"] >= 0  # descending
    shown = first_cells(page, INVITATIONS, column)
    assert shown[:3] == emails[::-1][:3]
    screenshot(page, "grid-invitations-sorted")


def test_3000_invitations_filter_by_search_and_by_role(page: Any, grid_lab: Any) -> None:
    from playwright.sync_api import expect

    _lab, every = grid_lab
    guests = sum(role == 600 for role in every.values())
    assert guests >= N // 3
    assert page.evaluate(SEARCH_JS, [INVITATIONS, "grid01234"])["drawn"] >= 0
    assert first_cells(page, INVITATIONS, 0) == ["grid01234@grid.test"]
    assert info(page, INVITATIONS) == (
        f"Showing 1 to 1 of 1 entry (filtered from {len(every):,} total entries)"
    )
    page.evaluate(SEARCH_JS, [INVITATIONS, ""])

    panel = page.locator(".chatops-panel-invitations")
    panel.locator(".chatops-invitations-filters select").nth(1).select_option(label="Guest")
    # the panel shows a new grid with the guests' invitations only
    expect(page.locator(".chatops-invitations-invitations-table .dt-info")).to_contain_text(
        f"of {guests:,} entries", timeout=30_000
    )
    roles = set(first_cells(page, INVITATIONS, 1))
    assert roles == {"guest"}
    screenshot(page, "grid-invitations-guests")


def test_rows_selected_in_the_grid_are_revoked(page: Any, grid_lab: Any) -> None:
    from playwright.sync_api import expect

    lab, every = grid_lab
    rows = page.locator(f"{INVITATIONS} tbody tr")
    picked = [rows.nth(0).locator("td").nth(0).inner_text()]
    picked.append(rows.nth(1).locator("td").nth(0).inner_text())
    rows.nth(0).click()
    rows.nth(1).click(modifiers=["Shift"])
    panel = page.locator(".chatops-panel-invitations")
    panel.locator("button.chatops-invitations-revoke").click()
    confirm = panel.locator(".chatops-invitations-confirm")
    expect(confirm).to_contain_text("Revoke 2 invitations?")
    # the question names the addresses, in view, before anything is sent
    expect(confirm).to_be_in_viewport()
    for address in picked:
        expect(confirm.locator(".chatops-confirm-listing")).to_contain_text(address)
    panel.locator("button.chatops-invitations-confirm-yes").click()
    outcome = panel.locator(".chatops-outcome")
    expect(outcome).to_contain_text("Revoked 2 of 2 invitations", timeout=30_000)
    expect(outcome.first).to_be_in_viewport()
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("owner")) as owner:
        active = {i.email for i in owner.invitations.list()}
    assert not set(picked) & active
    assert len(active) == len(every) - 2


def test_10000_rows_render_and_the_page_still_answers(page: Any) -> None:
    from playwright.sync_api import expect

    big = page.locator(BIG)
    big.scroll_into_view_if_needed()
    expect(big).to_be_visible()
    assert "of 10,000 entries" in info(page, BIG)
    sort = page.evaluate(SORT_JS, [BIG, "email"])
    assert sort["drawn"] >= 0 and first_cells(page, BIG, 2)[0] == "p00000@ten.test"
    found = page.evaluate(SEARCH_JS, [BIG, '"person 09999"'])
    assert found["drawn"] >= 0 and first_cells(page, BIG, 1) == ["person 09999"]
    # the page answers: a zero-delay timer runs promptly and JupyterLab's menu opens
    waits = [page.evaluate(TIMER_JS) for _ in range(5)]
    assert max(waits) < 500, waits
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    expect(page.locator(".lm-Menu").first).to_be_visible(timeout=5_000)
    page.keyboard.press("Escape")
    # not a timing test (bench/bench_grid.py measures): only that nothing froze for seconds
    assert sort["painted"] < 5_000 and found["painted"] < 5_000, (sort, found)
    screenshot(page, "grid-10000-rows")
