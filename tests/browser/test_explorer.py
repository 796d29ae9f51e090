"""The explorer in a real JupyterLab in Chromium: ``explore/organization.ipynb`` as ``chatops
lab`` copies it, run to its end on the demo dataset; a channel filter changes every view, and a
topic opens its thread with links to its messages. Screenshots go to ``docs/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chatops.widgets.explorer import VIEWS
from tests.browser.conftest import IDLE, Lab

pytestmark = pytest.mark.slow

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
LINK = re.compile(r"^http://127\.0\.0\.1:\d+/#narrow/channel/(\d+)-[^/]+/topic/[^/]+/near/(\d+)$")


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any) -> Iterator[Any]:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    tab = context.new_page()
    tab.goto(lab.notebook_url("explore/organization.ipynb"))
    idle = tab.locator("#jp-main-statusbar").get_by_text(IDLE)
    expect(idle).to_be_visible(timeout=90_000)
    tab.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    tab.locator('#jp-mainmenu-run li[data-command="runmenu:run-all"]').click()
    expect(tab.locator(".chatops-explorer")).to_be_visible(timeout=240_000)
    expect(idle).to_be_visible(timeout=120_000)
    expect(tab.get_by_text("Loading widget...")).to_have_count(0)
    tab.locator(".chatops-explorer").scroll_into_view_if_needed()
    yield tab
    context.close()


def view_table(page: Any, name: str) -> str:
    """Open the view's tab and return its table once drawn."""
    explorer = page.locator(".chatops-explorer")
    explorer.locator(".chatops-explorer-tabs .lm-TabBar-tab", has_text=VIEWS[name][0]).first.click()
    table = explorer.locator(f".chatops-explorer-view-{name} .chatops-table-html")
    table.wait_for(timeout=60_000)
    page.wait_for_timeout(300)
    idle = page.locator("#jp-main-statusbar").get_by_text(IDLE)
    idle.wait_for(timeout=60_000)
    return str(table.inner_html())


def test_a_channel_filter_changes_every_view(page: Any) -> None:
    explorer = page.locator(".chatops-explorer")
    before = {name: view_table(page, name) for name in VIEWS}
    assert all(before.values())
    explorer.locator(".chatops-explorer-tabs .lm-TabBar-tab").first.click()
    SHOTS.mkdir(parents=True, exist_ok=True)
    explorer.screenshot(path=str(SHOTS / "explorer-all-channels.png"))
    explorer.locator(".chatops-explorer-channels select").select_option(label="engineering")
    page.wait_for_timeout(500)
    after = {name: view_table(page, name) for name in VIEWS}
    changed = [name for name in VIEWS if after[name] != before[name]]
    assert changed == list(VIEWS)
    view_table(page, "activity_heatmap")
    explorer.screenshot(path=str(SHOTS / "explorer-engineering-heatmap.png"))
    assert page.locator(".chatops-error").count() == 0


def test_a_topic_opens_its_thread_with_links(page: Any) -> None:
    from playwright.sync_api import expect

    explorer = page.locator(".chatops-explorer")
    view_table(page, "topic_lifecycle")
    picker = explorer.locator(".chatops-explorer-topic select")
    first = picker.locator("option").first.inner_text().replace("\xa0", " ")  # shown with nbsp
    assert first.startswith("#engineering > ")
    explorer.locator("button.chatops-explorer-read-thread").click()
    page.wait_for_timeout(500)
    assert page.locator(".chatops-error").count() == 0, page.locator(
        ".chatops-error"
    ).all_inner_texts()
    thread = explorer.locator(".chatops-explorer-thread")
    expect(thread.locator(".chatops-grid table")).to_be_visible(timeout=60_000)
    topic = first.removeprefix("#engineering > ").rsplit(" (", 1)[0]
    expect(thread).to_contain_text(topic)
    links = thread.locator(".chatops-grid a[target=_blank]")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs
    ids = [int(m.group(2)) for m in map(LINK.match, hrefs) if m]
    assert len(ids) == len(hrefs) and ids == sorted(ids)
    assert len({LINK.match(h).group(1) for h in hrefs}) == 1  # type: ignore[union-attr]
    # the first row is the first message: its link (the table shows no raw id)
    first_row = thread.locator(".chatops-grid tbody tr").first
    href = first_row.locator("a[target=_blank]").get_attribute("href")
    assert href is not None and href.endswith(f"/near/{ids[0]}")
    explorer.screenshot(path=str(SHOTS / "explorer-thread.png"))
    assert page.locator(".chatops-error").count() == 0


def test_every_tab_title_is_shown_whole(page: Any) -> None:
    explorer = page.locator(".chatops-explorer")
    labels = explorer.locator(".chatops-explorer-tabs .lm-TabBar-tab .lm-TabBar-tabLabel")
    shown = labels.evaluate_all(
        "els => els.map(e => [e.textContent, e.scrollWidth, e.clientWidth,"
        " e.getBoundingClientRect().right, e.closest('.lm-TabBar-tab').getBoundingClientRect().right])"
    )
    titles = [t for t, _ in VIEWS.values()] + ["Thread", "Search", "Keywords"]
    assert [s[0] for s in shown] == titles
    # no title cut: its text fits its label, and the label its tab
    cut = [s[0] for s in shown if s[1] > s[2] + 1 or s[3] > s[4] + 1]
    assert cut == []
    # every tab inside the explorer (a second row rather than tabs past its edge)
    right = explorer.evaluate("e => e.getBoundingClientRect().right")
    tabs = explorer.locator(".chatops-explorer-tabs .lm-TabBar-tab")
    ends = tabs.evaluate_all("els => els.map(e => e.getBoundingClientRect().right)")
    assert max(ends) <= right + 1
    explorer.locator(".chatops-explorer-tabs").screenshot(path=str(SHOTS / "explorer-tabs.png"))
