"""Each action's outcome shows right under the control that started it; long result tables
fold under a summary that counts the rows needing attention, shown first."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import ipywidgets as w
import pytest

import chatops
from chatops.widgets import PANELS, AdminConsole, InvitationsPanel, Panel
from chatops.widgets._base import plural
from chatops.widgets._controls import Scroller

Connect = Callable[[str], chatops.Client]


def parent_of(root: w.Widget, target: w.Widget) -> w.Box | None:
    stack = [root]
    while stack:
        box = stack.pop()
        children = getattr(box, "children", ())
        if any(c is target for c in children):
            return box
        stack.extend(children)
    return None


def place_of(panel: Panel, control: w.Widget) -> tuple[w.Box, int]:
    """The vertical container holding ``control`` (or its row) and the row's index."""
    row: w.Widget = control
    box = parent_of(panel.root, row)
    while isinstance(box, w.HBox):
        row = box
        box = parent_of(panel.root, row)
    assert box is not None
    index = next(i for i, c in enumerate(box.children) if c is row)
    return box, index


@pytest.fixture
def console(connect: Connect, export_dir: Path) -> Iterator[AdminConsole]:
    made = AdminConsole(connect("admin"), background=False, export_dir=export_dir)
    yield made
    made.close()


def test_every_bound_control_has_its_outcome_place_right_under_it(console: AdminConsole) -> None:
    checked = 0
    for panel in console.panels.values():
        panel.load()
        assert panel._bound, panel.slug
        for control in panel._bound.values():
            box, index = place_of(panel, control)
            slot = box.children[index + 1]
            assert "chatops-feedback" in slot._dom_classes, (panel.slug, control.description)
            checked += 1
    assert checked >= len(PANELS) * 2


def test_an_error_shows_under_the_button_clicked(console: AdminConsole) -> None:
    folders = console.panel("folders")
    folders.create_button.click()  # no name typed
    assert folders.status.kind == "error"
    box, index = place_of(folders, folders.create_button)
    assert any(c is folders.status.widget for c in box.children[index + 1].children)
    # the line scrolls its place into view in the browser (tests/browser/test_console_look.py)
    scroller = folders.status.scroller
    assert isinstance(scroller, Scroller) and "scrollIntoView" in Scroller._esm
    assert any(c is scroller for c in box.children[index + 1].children)  # moves with it
    assert scroller.count == folders.status.shown > 0  # a new count: the browser scrolls
    assert "<img" not in folders.status.widget.value
    assert "✗" in folders.status.widget.value
    # and nowhere else: the status line is one widget in one place
    assert not any(c is folders.status.widget for c in folders.general_feedback.children)

    folders.move_up_button.click()
    box2, index2 = place_of(folders, folders.move_up_button)
    assert any(c is folders.status.widget for c in box2.children[index2 + 1].children)
    assert not any(c is folders.status.widget for c in box.children[index + 1].children)


def test_a_long_preview_folds_under_a_summary_with_problems_first(
    connect: Connect, export_dir: Path
) -> None:
    panel = InvitationsPanel(connect("admin"), background=False, export_dir=export_dir).load()
    good = [f"fold-{i}@example.org" for i in range(27)]
    panel.addresses.value = "\n".join([*good[:10], "broken@", *good[10:], "also broken", "x@"])
    panel.preview_button.click()
    box, index = place_of(panel, panel.preview_button)
    slot = box.children[index + 1]
    folds = [c for c in slot.children if isinstance(c, w.Accordion)]
    assert len(folds) == 1
    fold = folds[0]
    assert fold.get_title(0) == (
        "Preview: every row and whether it will be sent: 3 of 30 need attention"
    )
    assert fold.selected_index is None  # 30 rows: folded
    rows = panel.preview_table.html.value.split("<tr")[2:]
    assert ["broken@" in r or "also broken" in r or ">x@<" in r for r in rows[:3]] == [True] * 3
    assert all('class="chatops-row-problem"' in r for r in rows[:3])
    assert not any("chatops-row-problem" in r for r in rows[3:])
    # the frame itself keeps the order typed (what Export CSV writes)
    assert list(panel.preview_table.frame["row"])[:3] == [1, 2, 3]
    panel.close()


def test_plural_counts_in_english() -> None:
    assert plural(1, "use") == "1 use"
    assert plural(2, "use") == "2 uses"
    assert plural(0, "address") == "0 addresses"
    assert plural(1500, "channel") == "1,500 channels"


def test_a_status_preview_says_what_it_found_under_its_button(console: AdminConsole) -> None:
    status = console.panel("status")
    status.roles.value = (100,)  # the owners
    status.status_text.value = "Away"
    status.preview_button.click()
    assert status.status.kind == "info"
    assert status.status.text.startswith("Preview for 1 user: 1 ")
    assert status.status.text.endswith("Nothing is sent until Apply status.")
    box, index = place_of(status, status.preview_button)
    assert any(c is status.status.widget for c in box.children[index + 1].children)
