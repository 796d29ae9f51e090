"""A notebook with the Invitations panel over thousands of invitations and a grid of 10,000
rows, and the in-page timers the grid test and ``bench/bench_grid.py`` read.

The timers measure in the page, from the click (or the typed search) to the grid's rows being
replaced (``drawn``) and to the next frame after it (``painted``): the time an admin waits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chatops
from chatops.sandbox import Sandbox
from tests.browser.conftest import IDLE, Lab

GRID_NOTEBOOK = "grid_check.ipynb"
INVITATIONS = ".chatops-invitations-invitations-table table.dataTable"
BIG = ".chatops-big table.dataTable"


def invite_many(sandbox: Sandbox, n: int) -> list[str]:
    """``n`` email invitations from the owner, every third one for a guest; their addresses
    (``grid00000@grid.test`` ...), made 100 per request."""
    emails = [f"grid{i:05d}@grid.test" for i in range(n)]
    with chatops.Client.from_zuliprc(sandbox.zuliprc("owner")) as owner:
        for start in range(0, n, 100):
            batch = emails[start : start + 100]
            guests = [e for i, e in enumerate(batch, start) if i % 3 == 0]
            members = [e for i, e in enumerate(batch, start) if i % 3 != 0]
            owner.invitations.send(guests, invite_as=600)
            owner.invitations.send(members, invite_as=400)
    return emails


def listed(sandbox: Sandbox) -> dict[str, int]:
    """Every active invitation's address (or link), with its role."""
    with chatops.Client.from_zuliprc(sandbox.zuliprc("owner")) as owner:
        return {str(i.email or i.link_url): i.invited_as for i in owner.invitations.list()}


def write_notebook(lab: Lab, big_rows: int = 10_000) -> None:
    """The panel acting as the admin of ``lab``'s sandbox, then a grid of ``big_rows`` rows."""
    zuliprc = str(lab.sandbox.zuliprc("admin"))
    cells = [
        "import chatops\n"
        "from chatops.widgets import InvitationsPanel\n"
        f"panel = InvitationsPanel(chatops.Client.from_zuliprc({zuliprc!r}))\n"
        "panel",
        "from pathlib import Path\n"
        "import pandas as pd\n"
        "from chatops.widgets._controls import TableView\n"
        f"n = {big_rows}\n"
        "big = pd.DataFrame({\n"
        "    'row': range(n),\n"
        "    'name': [f'person {i:05d}' for i in range(n)],\n"
        "    'email': [f'p{(i * 7919) % n:05d}@ten.test' for i in range(n)],\n"
        "    'role': [('member', 'guest', 'moderator')[i % 3] for i in range(n)],\n"
        "    'note': [f'note {i % 97}' for i in range(n)],\n"
        "})\n"
        "view = TableView('Ten thousand rows', lambda: big, export_dir=Path('exports'),\n"
        "                 slug='big', guard=lambda f: f(),\n"
        "                 problem=lambda r: r['row'] % 1000 == 0)\n"
        "view.refresh()\n"
        "view.widget.add_class('chatops-big')\n"
        "view.widget",
    ]
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell{i}",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    lab.root.mkdir(parents=True, exist_ok=True)
    (lab.root / GRID_NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")


def open_grid_page(browser: Any, lab: Lab) -> tuple[Any, Any]:
    """The notebook run to the end at 1400x900, with both grids drawn; (context, page)."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(lab.notebook_url(GRID_NOTEBOOK))
    idle = page.locator("#jp-main-statusbar").get_by_text(IDLE)
    expect(idle).to_be_visible(timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator('#jp-mainmenu-run li[data-command="runmenu:run-all"]').click()
    expect(page.locator(BIG)).to_be_visible(timeout=120_000)
    expect(page.locator(INVITATIONS)).to_be_attached(timeout=120_000)
    expect(idle).to_be_visible(timeout=120_000)
    return context, page


#: Click the header of ``column``; resolves with the milliseconds to the rows redrawn and to the
#: next frame.
SORT_JS = """
([selector, column]) => new Promise((resolve, reject) => {
  const table = document.querySelector(selector);
  const th = [...table.querySelectorAll('thead th')]
    .find(t => t.innerText.trim() === column);
  if (!th) { reject(new Error('no column ' + column)); return; }
  const body = table.querySelector('tbody');
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    seen.disconnect();
    const drawn = performance.now() - t0;
    requestAnimationFrame(() => resolve({ drawn, painted: performance.now() - t0 }));
  });
  seen.observe(body, { childList: true, subtree: true });
  setTimeout(() => { seen.disconnect(); resolve({ drawn: -1, painted: -1 }); }, 10000);
  th.click();
})
"""

#: Type ``text`` into the grid's search box; the same two timings.
SEARCH_JS = """
([selector, text]) => new Promise((resolve) => {
  const table = document.querySelector(selector);
  const input = table.closest('.dt-container').querySelector('.dt-search input');
  const body = table.querySelector('tbody');
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    seen.disconnect();
    const drawn = performance.now() - t0;
    requestAnimationFrame(() => resolve({ drawn, painted: performance.now() - t0 }));
  });
  seen.observe(body, { childList: true, subtree: true });
  setTimeout(() => { seen.disconnect(); resolve({ drawn: -1, painted: -1 }); }, 10000);
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
})
"""

#: How long a zero-delay timer waits: a page that answers runs it within a frame or two.
TIMER_JS = """
() => new Promise((resolve) => {
  const t0 = performance.now();
  setTimeout(() => resolve(performance.now() - t0), 0);
})
"""


def first_cells(page: Any, selector: str, column: int) -> list[str]:
    """The text of ``column`` (0-based) in the rows of the grid's current page."""
    return list(page.locator(f"{selector} tbody tr td:nth-child({column + 1})").all_inner_texts())


def info(page: Any, selector: str) -> str:
    """The grid's line "Showing 1 to 10 of 3,000 entries ..."."""
    text = page.evaluate(
        "s => document.querySelector(s).closest('.dt-container')"
        ".querySelector('.dt-info').innerText",
        selector,
    )
    return str(text)


def notebook_path(lab: Lab) -> Path:
    return lab.root / GRID_NOTEBOOK
