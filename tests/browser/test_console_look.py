"""The admin console as an admin sees it at 1400x900: no news toast over it, each action's outcome
inside the viewport after the click, and every visible text readable (contrast at least 4.5:1)
in the Light and the Dark theme.

With ``CHATOPS_SCREENSHOTS=docs/screenshots`` the module also writes a screenshot of every panel
in both themes there (how the README's screenshots are made).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from tests.browser.conftest import IDLE, Lab

pytestmark = pytest.mark.slow

CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")
TABS = {
    "folders": "Channel folders",
    "linkifiers": "Linkifiers",
    "groups": "User groups",
    "invitations": "Invitations",
    "status": "Status",
    "organization": "Organization",
}
SHOTS = os.environ.get("CHATOPS_SCREENSHOTS", "")
VIEWPORT_GROUP = "viewport-crew"  # the groups tab deactivates it
STATUS_GROUP = "viewport-status"


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any) -> Iterator[Any]:
    from playwright.sync_api import expect

    # a group the console's account made (so it may manage it), with a few members
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("admin")) as acting:
        members = [u.user_id for u in acting.users.list() if not u.is_bot and u.is_active][:3]
        for theme in ("light", "dark"):
            crew = acting.user_groups.create(f"{VIEWPORT_GROUP}-{theme}", members=members)
            # a channel setting uses it: deactivation is refused, and the fix is offered
            acting.channels.subscribe(
                [f"viewport-channel-{theme}"], group_settings={"can_send_message_group": crew}
            )
        acting.user_groups.create(STATUS_GROUP, members=members)

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.goto(lab.notebook_url("admin_console.ipynb"))
    idle = tab.locator("#jp-main-statusbar").get_by_text(IDLE)
    # chatops lab opened the notebook already run: the console is there, nothing clicked
    expect(tab.locator(".chatops-console")).to_be_visible(timeout=90_000)
    expect(idle).to_be_visible(timeout=60_000)
    expect(tab.get_by_text("Loading widget...")).to_have_count(0)
    yield tab
    context.close()


def open_tab(page: Any, slug: str) -> Any:
    page.locator(".chatops-console-tabs .lm-TabBar-tab", has_text=TABS[slug]).click()
    panel = page.locator(f".chatops-panel-{slug}")
    panel.locator(".chatops-who").wait_for()
    return panel


def in_viewport(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    assert box is not None
    view = page.viewport_size
    return bool(
        box["y"] >= 0
        and box["y"] + min(box["height"], 40) <= view["height"]
        and box["x"] >= 0
        and box["x"] < view["width"]
    )


def test_no_news_toast_over_the_console(page: Any) -> None:
    from playwright.sync_api import expect

    page.wait_for_timeout(1000)
    expect(page.get_by_text("official Jupyter news")).to_have_count(0)


def pick_option(panel: Any, selector: str, starts: str = "") -> None:
    """Pick the first option of a select (or the first whose text starts with ``starts``)."""
    select = panel.locator(selector)
    # option labels come with non-breaking spaces
    texts = [t.replace("\xa0", " ") for t in select.locator("option").all_text_contents()]
    found = [i for i, t in enumerate(texts) if t.strip() and t.strip().startswith(starts)]
    assert found, (selector, starts, texts)
    index = found[0]
    select.select_option(index=index)


THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
#: per theme, a value the setting pickers do not hold yet (the light run set the first)
CHOICE = {"light": "Moderators", "dark": "Members"}

# (tab, steps before the click, the button, a confirmation button clicked after it); in the
# values, {t} is the theme (light or dark) and {choice} a role the setting does not name yet
ACTIONS: list[tuple[str, list[tuple[str, str, str]], str, str]] = [
    (
        "folders",
        [("fill", ".chatops-folders-name input", "Viewport folder {t}")],
        "button.chatops-folders-create",
        "",
    ),
    (
        "folders",
        [("pick", ".chatops-folders-channels select", "")],
        "button.chatops-folders-assign",
        "button.chatops-folders-move-yes",
    ),
    (
        "folders",
        [],
        "button.chatops-folders-take-out",
        "button.chatops-folders-move-yes",
    ),
    (
        "folders",
        [("pick", ".chatops-folders-folder select", "Viewport folder {t}")],
        "button.chatops-folders-archive",
        "button.chatops-folders-confirm-yes",
    ),
    (
        "linkifiers",
        [
            ("pick", ".chatops-linkifiers-picker select", "New linkifier"),
            ("fill", ".chatops-linkifiers-pattern input", r"VP{t}-(?P<id>[0-9]+)"),
            ("fill", ".chatops-linkifiers-url-template input", "https://vp.example.com/{{id}}"),
        ],
        "button.chatops-linkifiers-add",
        "",
    ),
    (
        "groups",
        [("fill", ".chatops-groups-new-name input", "viewport-made-{t}")],
        "button.chatops-groups-create",
        "",
    ),
    (
        "groups",
        [
            ("pick", ".chatops-groups-pick select", VIEWPORT_GROUP + "-{t}"),
            ("fill", ".chatops-groups-edit-description input", "Checked at 1400x900, {t}"),
        ],
        "button.chatops-groups-save",
        "",
    ),
    (
        "groups",
        [("fill", ".chatops-groups-entries textarea", "Mei Member\nnobody@nowhere.test")],
        "button.chatops-groups-members-preview",
        "",
    ),
    (
        "groups",
        [],
        "button.chatops-groups-members-apply",
        "button.chatops-groups-members-yes",
    ),
    (
        "groups",
        [
            ("pick", ".chatops-groups-setting select", "Who can mention this group"),
            ("pick", ".chatops-groups-setting-value select", "{choice}"),
        ],
        "button.chatops-groups-set-permission",
        "button.chatops-groups-set-yes",
    ),
    (
        "groups",
        [("pick", ".chatops-groups-pick select", VIEWPORT_GROUP + "-{t}")],
        "button.chatops-groups-deactivate",
        "button.chatops-groups-confirm-yes",
    ),
    (
        "groups",
        [],
        "button.chatops-groups-fix",
        "button.chatops-groups-fix-yes",
    ),
    (
        "invitations",
        [
            (
                "fill",
                ".chatops-invitations-addresses textarea",
                "\n".join(f"person{i}-{{t}}@viewport.test" for i in range(500)) + "\nbroken@",
            )
        ],
        "button.chatops-invitations-preview",
        "",
    ),
    (
        "invitations",
        [
            (
                "fill",
                ".chatops-invitations-addresses textarea",
                "one-{t}@viewport.test\ntwo-{t}@viewport.test",
            )
        ],
        "button.chatops-invitations-send",
        "button.chatops-invitations-send-yes",
    ),
    (
        "status",
        [
            ("pick", ".chatops-status-group select", STATUS_GROUP),
            ("fill", ".chatops-status-text input", "In the viewport, {t}"),
        ],
        "button.chatops-status-preview",
        "",
    ),
    (
        "status",
        [],
        "button.chatops-status-apply",
        ".chatops-status-confirm button >> text=Apply status",
    ),
    (
        "status",
        [],
        "button.chatops-status-restore",
        ".chatops-status-confirm button >> text=Restore",
    ),
    (
        "organization",
        [
            ("pick", ".chatops-organization-setting select", "Who can add custom emoji"),
            ("pick", ".chatops-who-picker select", "{choice}"),
        ],
        "button.chatops-organization-set",
        "button.chatops-organization-yes",
    ),
]
RUNS = [(theme, *action) for theme in THEMES for action in ACTIONS]


@pytest.mark.parametrize(
    ("theme", "slug", "steps", "button", "confirm"),
    RUNS,
    ids=[f"{r[0]}-{r[1]}-{r[3].rsplit('-', 1)[-1]}" for r in RUNS],
)
def test_each_question_and_outcome_lies_in_the_viewport(
    page: Any, theme: str, slug: str, steps: list[tuple[str, str, str]], button: str, confirm: str
) -> None:
    """Every write action at 1400x900, in both themes: its question (listing what will change)
    is in view before anything is sent, and its outcome is in view after."""
    from playwright.sync_api import expect

    if page.evaluate("document.body.dataset.jpThemeName") != THEMES[theme]:
        switch_theme(page, THEMES[theme])
    panel = open_tab(page, slug)
    for kind, selector, value in steps:
        value = value.format(t=theme, choice=CHOICE[theme])
        if kind == "fill":
            panel.locator(selector).fill(value)
        else:
            pick_option(panel, selector, value)
    control = panel.locator(button)
    expect(control).to_be_enabled(timeout=10_000)
    control.click()
    if confirm:
        # the question, listing what will change, is in view before anything is sent
        expect(panel.locator(confirm)).to_be_in_viewport(timeout=30_000)
        panel.locator(confirm).click()
    outcome = panel.locator(".chatops-feedback .chatops-outcome span[class^=chatops-outcome-]")
    expect(outcome.first).to_be_visible(timeout=60_000)
    # long work runs in the background and its outcome line changes as it goes ("2 rows: ..."
    # then "Invited ..."): the outcome is the line once it stays the same
    last = ""
    for _ in range(100):
        text = outcome.first.inner_text()
        if text == last:
            break
        last = text
        page.wait_for_timeout(300)  # also the scroll into view
    text = outcome.first.inner_text()
    assert text.strip()
    assert in_viewport(page, outcome.first), (slug, button, text, outcome.first.bounding_box())


def switch_theme(page: Any, name: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    page.wait_for_function("n => document.body.dataset.jpThemeName === n", arg=name, timeout=20_000)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_every_panel_is_readable_in_the_theme(page: Any, theme: str) -> None:
    switch_theme(page, theme)
    failures = {}
    for slug in TABS:
        open_tab(page, slug)
        page.locator(f".chatops-panel-{slug}").scroll_into_view_if_needed()
        result = page.evaluate(CONTRAST_JS, [f".chatops-panel-{slug}", 4.5])
        assert result["checked"] > 10, (slug, result)
        if result["bad"]:
            failures[slug] = result["bad"][:8]
        if SHOTS:
            folder = Path(SHOTS)
            folder.mkdir(parents=True, exist_ok=True)
            short = "dark" if "Dark" in theme else "light"
            # what an admin sees at 1400x900 with the panel's top at the top of the notebook
            page.locator(f".chatops-panel-{slug}").evaluate(
                "el => el.closest('.chatops-console').scrollIntoView({block: 'start'})"
            )
            page.wait_for_timeout(300)
            page.screenshot(path=str(folder / f"{slug}-{short}.png"))
    assert failures == {}, json.dumps(failures, indent=1, ensure_ascii=False)
