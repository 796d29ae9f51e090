"""The User groups list as an admin sees it in JupyterLab in Chromium at 1400x900: every column
of its grid inside the grid's visible box (no sideways scrolling to reach "Used in"), no word
of a cell or header broken across lines, and the long lists summarised with the whole as a
tooltip."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import chatops
from tests.browser.conftest import Lab, open_console_panel, screenshot

pytestmark = pytest.mark.slow

GRID = ".chatops-panel-groups .chatops-groups-table .chatops-grid"

#: For the grid: how far each header cell reaches past the grid's visible box (px), whether the
#: grid or the list's column scrolls sideways, and every word (split at spaces and hyphens, where a line may break)
#: whose letters lie on more than one line.
MEASURE_JS = """
(selector) => {
  const grid = document.querySelector(selector);
  // what shows of the grid: inside every box between the table and the list's column that
  // clips (or scrolls) what overflows it
  const column = grid.closest(".chatops-list-column");
  const table = grid.querySelector("table.dataTable");
  let right = column.getBoundingClientRect().left + column.clientWidth;
  for (let el = table.parentElement; el && el !== column; el = el.parentElement) {
    if (getComputedStyle(el).overflowX !== "visible") {
      right = Math.min(right, el.getBoundingClientRect().left + el.clientWidth);
    }
  }
  const past = [...grid.querySelectorAll("table.dataTable thead th")].map(
    th => [th.innerText.trim(), th.getBoundingClientRect().right - right]);
  const broken = [];
  let words = 0;
  for (const cell of grid.querySelectorAll("table.dataTable :is(thead th, tbody td)")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s\\-]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
          .map(r => Math.round(r.top)));
        words += 1;
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  const scrolls = [grid, ...grid.querySelectorAll("*"), column].some(
    el => getComputedStyle(el).overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1);
  return { past, broken, words, scrolls,
           width: right - grid.getBoundingClientRect().left, rows: grid.querySelectorAll("tbody tr").length };
}
"""


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any) -> Iterator[Any]:
    from playwright.sync_api import expect

    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("admin")) as acting:
        people = [u.user_id for u in acting.users.list() if not u.is_bot and u.is_active]
        # a long name, a long description, every member, and several places of use
        big = acting.user_groups.create(
            "engineering-platform-oncall",
            members=people,
            description="Engineering platform on-call rotation, paged for incidents",
        )
        acting.channels.subscribe(
            ["platform-incidents", "platform-releases"],
            group_settings={"can_send_message_group": big, "can_administer_channel_group": big},
        )

    context, tab = open_console_panel(browser, lab, "User groups", "groups")
    expect(tab.locator(GRID)).to_contain_text("engineering-platform-oncall", timeout=60_000)
    yield tab, len(people)
    context.close()


def test_every_column_is_inside_the_grid_and_no_word_is_cut(page: Any) -> None:
    tab, _people = page
    grid = tab.locator(GRID)
    grid.scroll_into_view_if_needed()
    grid.locator(".dt-length select").select_option("100")  # every group on one page
    measured = tab.evaluate(MEASURE_JS, GRID)
    screenshot(tab, "groups-grid")
    assert measured["rows"] > 10, measured
    headers = [name for name, _ in measured["past"]]
    assert headers == ["Group", "Active members", "Member names", "Used in"]
    assert [(name, px) for name, px in measured["past"] if px > 0.5] == [], measured
    assert not measured["scrolls"], measured
    assert measured["words"] > 50, measured
    assert measured["broken"] == [], measured


def test_long_lists_are_summarised_with_the_whole_as_tooltip(page: Any) -> None:
    tab, people = page
    row = tab.locator(f"{GRID} tbody tr", has_text="engineering-platform-oncall")
    cells = row.locator("td")
    assert cells.nth(1).inner_text() == str(people)
    names = cells.nth(2).locator("span[title]")
    assert names.inner_text().endswith(f" and {people - 2} more")
    assert len(names.get_attribute("title").split(", ")) == people
    used = cells.nth(3).locator("span[title]")
    assert used.inner_text() == "#platform-incidents, #platform-releases"
    assert "Who can post to this channel" in used.get_attribute("title")
    group = cells.nth(0).locator("span[title]")
    assert group.get_attribute("title").startswith("Engineering platform on-call")
