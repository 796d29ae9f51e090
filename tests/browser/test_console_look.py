"""The admin console as an admin sees it at 1400x900: no news toast over it, each action's question
and outcome inside the viewport, and every visible text readable (contrast at least 4.5:1) in
the Light and the Dark theme; then, in a page of their own on the same JupyterLab, the steps
that once changed the wrong thing, locked the admin out or showed an outcome no longer true.

With ``CHATOPS_SCREENSHOTS=docs/screenshots`` the module also writes a screenshot of every panel
in both themes there (how the README's screenshots are made).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from tests.browser.conftest import IDLE, Lab, screenshot

pytestmark = pytest.mark.slow

CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")
TABS = {
    "folders": "Channel folders",
    "linkifiers": "Linkifiers",
    "groups": "User groups",
    "invitations": "Invitations",
    "status": "Status",
    "people": "People and channels",
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


def in_viewport(page: Any, locator: Any, timeout: float = 15.0) -> bool:
    """Whether ``locator``'s first line is inside the window, waiting up to ``timeout``
    seconds for it to get there (a line re-rendered or scrolled into view is briefly absent)."""
    deadline = time.monotonic() + timeout
    while True:
        box = locator.bounding_box()
        view = page.viewport_size
        if box is not None and (
            box["y"] >= 0
            and box["y"] + min(box["height"], 40) <= view["height"]
            and box["x"] >= 0
            and box["x"] < view["width"]
        ):
            return True
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(250)


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
        "people",
        [
            ("fill", ".chatops-people-list textarea", "Mei Member, Gus Guest"),
            ("pick", ".chatops-people-channels select", "viewport-channel-{t}"),
        ],
        "button.chatops-people-apply",
        "button.chatops-people-yes",
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
    try:
        expect(control).to_be_enabled(timeout=10_000)
    except AssertionError:
        # a pick makes the kernel reset the panel's fields, and on a loaded machine that reset
        # can land after the text typed right after the pick (no one types that fast): type
        # again what it cleared
        for kind, selector, value in steps:
            value = value.format(t=theme, choice=CHOICE[theme])
            box = panel.locator(selector)
            if kind == "fill" and box.input_value() != value:
                box.fill(value)
        expect(control).to_be_enabled(timeout=20_000)
    control.click()
    if confirm:
        # the question, listing what will change, is in view before anything is sent
        expect(panel.locator(confirm)).to_be_in_viewport(timeout=30_000)
        panel.locator(confirm).click()
    outcome = panel.locator(".chatops-feedback .chatops-outcome span[class^=chatops-outcome-]")
    expect(outcome.first).to_be_visible(timeout=60_000)
    # long work runs in the background and its outcome line changes as it goes ("2 rows: ..."
    # then "Invited ..."): the outcome is the line once it stays the same
    seen: list[str] = []
    for _ in range(150):
        seen.append(outcome.first.inner_text())
        if len(seen) >= 4 and len(set(seen[-4:])) == 1:
            break  # the same for about a second
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


# -- the console safe by construction: each step that once changed the wrong thing, locked the
# admin out, or showed an outcome no longer true, reproduced in a page of its own (same lab)
SAFETY_TABS = (
    ("Channel folders", "folders"),
    ("Linkifiers", "linkifiers"),
    ("User groups", "groups"),
    ("Invitations", "invitations"),
    ("Status", "status"),
    ("Organization", "organization"),
)
WITH_TABLES = {"folders", "linkifiers", "groups", "invitations", "organization"}
ONCALL, LEADS, THEIRS = "safety-oncall", "safety-leads", "safety-theirs"

#: Inside a panel: every element that scrolls vertically on its own (lists to choose from and
#: text areas excepted), every word of its tables whose letters lie on more than one line, and
#: every table header cut off by the box that shows its table.
LAYOUT_JS = """
(selector) => {
  const panel = document.querySelector(selector);
  const scrolling = [...panel.querySelectorAll("*")].filter(el => {
    if (el.matches("select, textarea, option")) return false;
    const style = getComputedStyle(el);
    return ["auto", "scroll"].includes(style.overflowY) && el.scrollHeight > el.clientHeight + 1
      && el.clientHeight > 0;
  }).map(el => el.className.toString().slice(0, 80));
  const broken = [];
  let words = 0;
  for (const cell of panel.querySelectorAll("table :is(th, td)")) {
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
  // headers reaching past the box that shows their table (cut off, to be scrolled to)
  const cut = [];
  for (const th of panel.querySelectorAll("table thead th")) {
    let el = th.closest("table").parentElement;
    while (el && el !== panel && getComputedStyle(el).overflowX === "visible") el = el.parentElement;
    if (!el || el === panel) continue;
    const right = el.getBoundingClientRect().left + el.clientWidth;
    if (th.getBoundingClientRect().right > right + 0.5) cut.push(th.innerText.trim());
  }
  return { scrolling, broken, words, cut };
}
"""


@pytest.fixture(scope="module")
def owner(lab: Lab) -> Iterator[chatops.Client]:
    """The test's own view of the organization the console acts on."""
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("owner")) as client:
        yield client


@pytest.fixture(scope="module")
def safety(lab: Lab, browser: Any, owner: chatops.Client) -> Iterator[Any]:
    from playwright.sync_api import expect

    me = owner.users.me().user_id
    member = next(u.user_id for u in owner.users.list() if u.full_name == "Mei Member")
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("admin")) as acting:
        acting.user_groups.create(ONCALL, members=[member])  # the admin made it: may manage it
        acting.user_groups.create(LEADS, members=[me])  # the admin is not in it
    owner.user_groups.create(THEIRS, members=[member])  # the owner made it: the admin may not
    owner.channels.create_folder("Engineering operations", description="")
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.goto(lab.notebook_url("admin_console.ipynb"))
    expect(tab.locator(".chatops-console")).to_be_visible(timeout=90_000)
    expect(tab.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(timeout=60_000)
    expect(tab.get_by_text("Loading widget...")).to_have_count(0)
    # the console (one kernel, shared with the page before) fetches the groups made above
    tab.locator("button.chatops-console-refresh, button", has_text="Refresh all").first.click()
    expect(tab.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(timeout=60_000)
    tab.wait_for_timeout(1000)
    yield tab
    context.close()


def open_titled(page: Any, title: str, slug: str) -> Any:
    page.locator(".chatops-console-tabs .lm-TabBar-tab", has_text=title).click()
    panel = page.locator(f".chatops-panel-{slug}")
    panel.locator(".chatops-who").wait_for(timeout=60_000)
    return panel


def box(locator: Any) -> dict[str, float]:
    """The locator's box once it is laid out (a widget re-drawn meanwhile has none)."""
    from playwright.sync_api import expect

    for _ in range(20):
        expect(locator).to_be_visible()
        found = locator.bounding_box()
        if found is not None:
            return dict(found)
        locator.page.wait_for_timeout(100)
    raise AssertionError(f"{locator} has no box")


def settle(page: Any) -> None:
    """Let a picker the kernel refills (its options follow the setting or group chosen) reach
    the page before choosing in it: a choice is sent as a position in the options."""
    page.wait_for_timeout(800)


def option_labels(select: Any) -> list[str]:
    return [t.replace("\xa0", " ").strip() for t in select.locator("option").all_inner_texts()]


def selected(select: Any) -> list[str]:
    texts = select.evaluate("s => [...s.selectedOptions].map(o => o.textContent)")
    return [t.replace("\xa0", " ").strip() for t in texts]


def group_value(owner: chatops.Client, name: str, setting: str) -> Any:
    group = next(g for g in owner.user_groups.list() if g.name == name)
    return getattr(group, setting)


def realm_value(owner: chatops.Client, setting: str) -> Any:
    return owner.server.register(fetch_event_types=["realm"])[f"realm_{setting}"]


def test_the_console_is_the_notebooks_only_visible_output_and_one_scroll_area(safety: Any) -> None:
    """Console issue (layout): the console sat under the code cells, and each panel was a box
    with two scroll areas of its own; words broke inside ("Enginee ring")."""
    page = safety
    from playwright.sync_api import expect

    expect(page.locator(".jp-Notebook .jp-InputArea-editor:visible")).to_have_count(0)
    console = page.locator(".chatops-console")
    screenshot(page, "safety-top")
    # first in the notebook: only the hidden cells' one-line stubs above it
    assert box(console)["y"] < 260, box(console)
    for title, slug in SAFETY_TABS:
        panel = open_titled(page, title, slug)
        if slug in WITH_TABLES:  # the others show tables once something is chosen or done
            expect(panel.locator("table").first).to_be_visible(timeout=30_000)
        measured = page.evaluate(LAYOUT_JS, f".chatops-panel-{slug}")
        assert measured["scrolling"] == [], (slug, measured)
        assert measured["broken"] == [] and measured["cut"] == [], (slug, measured)
        assert measured["words"] > 20 or slug not in WITH_TABLES, (slug, measured)
    screenshot(page, "safety-layout")


def test_a_lockout_is_named_and_needs_a_second_yes_and_cancel_changes_nothing(
    safety: Any, owner: chatops.Client
) -> None:
    """Console issue 2: setting “Who can administer this group” of a group to one the admin is
    not in left the admin unable to manage it, with no warning."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "User groups", "groups")
    before = group_value(owner, ONCALL, "can_manage_group")
    panel.locator(".chatops-groups-pick select").select_option(label=ONCALL)
    settle(page)
    panel.locator(".chatops-groups-setting select").select_option(
        label="Who can administer this group"
    )
    settle(page)
    panel.locator(".chatops-groups-setting-value select").select_option(label=LEADS)
    panel.locator("button.chatops-groups-set-permission").click()
    confirm = panel.locator(".chatops-groups-set-confirm")
    expect(confirm).to_be_in_viewport()
    expect(confirm).to_contain_text("takes away your right to administer the group")
    expect(confirm.locator(".chatops-confirm-listing")).to_contain_text(
        f'⚠ You would no longer be able to administer "{ONCALL}"'
    )
    confirm.locator("button.chatops-groups-set-yes").click()  # Continue…
    expect(confirm).to_be_in_viewport()
    expect(confirm.locator("button.chatops-groups-set-yes")).to_have_text("Set it, and lose access")
    screenshot(page, "safety-lockout")
    confirm.locator("button", has_text="Cancel").click()
    expect(confirm).to_be_hidden()
    assert group_value(owner, ONCALL, "can_manage_group") == before


def test_why_a_group_cannot_be_managed_is_in_view(safety: Any) -> None:
    """Console issue 3: the reason was only in a hover tooltip."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "User groups", "groups")
    panel.locator(".chatops-groups-pick select").select_option(label=THEIRS)
    hint = panel.locator(".chatops-field-hint", has_text="Who can administer all user groups")
    expect(hint.first).to_be_visible()
    expect(hint.first).to_contain_text("neither its “Who can administer this group”")


def test_the_who_picker_shows_the_current_value_and_takes_a_person_with_a_group(
    safety: Any, owner: chatops.Client
) -> None:
    """Console issue 7: switching to “Who can join” showed the last choice, not the current
    value; a person could be neither chosen nor combined with a group."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "User groups", "groups")
    panel.locator(".chatops-groups-pick select").select_option(label=ONCALL)
    settle(page)
    setting = panel.locator(".chatops-groups-setting select")
    who = panel.locator(".chatops-groups-setting-value select")
    setting.select_option(label="Who can mention this group")
    settle(page)
    who.select_option(label="Moderators")
    setting.select_option(label="Who can join this group")  # its value now: Nobody
    settle(page)
    assert selected(who) == ["Nobody"]
    person = next(t for t in option_labels(who) if t.startswith("Mei Member <"))
    who.select_option(label=[person, "Moderators"])
    panel.locator("button.chatops-groups-set-permission").click()
    confirm = panel.locator(".chatops-groups-set-confirm")
    expect(confirm).to_be_in_viewport()
    expect(confirm).to_contain_text("Nobody → Moderators, Mei Member")
    confirm.locator("button.chatops-groups-set-yes").click()
    outcome = panel.locator(".chatops-outcome-ok", has_text="Who can join this group")
    expect(outcome).to_be_in_viewport()
    value = group_value(owner, ONCALL, "can_join_group")
    assert len(value.direct_members) == 1 and len(value.direct_subgroups) == 1


def test_an_unknown_member_is_named_by_its_line_skipped_then_invited(
    safety: Any, owner: chatops.Client
) -> None:
    """Console issue 8: one unknown member blocked a new group, the error named the wrong row,
    and there was no way to skip or invite them."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "User groups", "groups")
    panel.locator(".chatops-groups-new-name input").fill("safety-new")
    panel.locator(".chatops-groups-new-members textarea").fill(
        "Mei Member\nOlivia Owner, Mei Member\nnew.hire@elsewhere.test"
    )
    panel.locator("button.chatops-groups-create").click()
    error = panel.locator(".chatops-field-error", has_text="new.hire@elsewhere.test")
    expect(error).to_be_in_viewport()
    expect(error).to_contain_text("line 3 “new.hire@elsewhere.test”: unknown")
    assert "safety-new" not in {g.name for g in owner.user_groups.list()}
    panel.locator(".chatops-groups-skip-unknown input").check()
    panel.locator("button.chatops-groups-create").click()
    invite = panel.locator("button.chatops-groups-invite-new")
    expect(invite).to_be_visible()
    expect(invite).to_have_text("Invite 1 address not found…")
    invite.click()
    invitations = page.locator(".chatops-panel-invitations")
    expect(invitations.locator(".chatops-invitations-addresses textarea")).to_have_value(
        "new.hire@elsewhere.test"
    )
    expect(invitations.locator(".chatops-outcome-info").first).to_contain_text(
        "to join “safety-new” when they accept"
    )
    screenshot(page, "safety-invite")
    assert "new.hire@elsewhere.test" not in {i.email for i in owner.invitations.list()}


def test_outcomes_go_when_another_action_starts(safety: Any) -> None:
    """Console issue 6: “46 of 46 addresses sent” stayed on screen under the next action."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "Invitations", "invitations")
    panel.locator(".chatops-invitations-addresses textarea").fill("gone.soon@safety.test")
    panel.locator("button.chatops-invitations-send").click()
    panel.locator("button.chatops-invitations-send-yes").click()
    sent = panel.locator(".chatops-outcome-ok", has_text="Invited 1 of 1 address")
    expect(sent.first).to_be_visible(timeout=30_000)
    panel.locator("button.chatops-invitations-preview").click()
    expect(panel.locator(".chatops-outcome-ok", has_text="Invited 1 of 1")).to_have_count(0)
    expect(panel.locator(".chatops-invitations-preview-table")).to_contain_text("already invited")


def test_a_pattern_error_shows_beside_the_pattern_and_add_says_why_it_is_off(safety: Any) -> None:
    """Console issue 9: the pattern's error showed about 500 px below the box, and “Add
    linkifier” stayed enabled with a pattern that does not compile."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "Linkifiers", "linkifiers")
    picker = panel.locator(".chatops-linkifiers-picker select")
    picker.select_option(label=next(t for t in option_labels(picker) if "New linkifier" in t))
    pattern = panel.locator(".chatops-linkifiers-pattern input")
    pattern.fill("TICKET-(?P<id>[0-9]+")
    panel.locator(".chatops-linkifiers-url-template input").fill("https://t.example/{id}")
    add = panel.locator("button.chatops-linkifiers-add")
    expect(add).to_be_disabled()
    assert add.get_attribute("title")
    error = panel.locator(".chatops-field-error").first
    expect(error).to_be_visible()
    below = box(pattern)
    gap = box(error)["y"] - (below["y"] + below["height"])
    assert 0 <= gap < 80, gap
    pattern.fill("TICKET-(?P<id>[0-9]+)")
    expect(add).to_be_enabled()
    expect(panel.locator(".chatops-outcome-error", has_text="Check the fields")).to_have_count(0)


def test_an_organization_permission_is_set_to_people_and_groups_and_undone(
    safety: Any, owner: chatops.Client
) -> None:
    """Console issue 3: no panel could change the organization's settings. The Organization
    tab names each permission as Zulip's settings page does, asks (twice when the change takes
    it from the admin), and the console's Undo puts it back."""
    page = safety
    from playwright.sync_api import expect

    panel = open_titled(page, "Organization", "organization")
    table = panel.locator(".chatops-organization-permissions table")
    expect(table).to_contain_text("Who can administer all user groups")
    before = realm_value(owner, "can_create_groups")
    panel.locator(".chatops-organization-setting select").select_option(
        label="Who can create user groups"
    )
    settle(page)
    who = panel.locator(".chatops-who-picker select")
    person = next(t for t in option_labels(who) if t.startswith("Mei Member <"))
    who.select_option(label=[person, "Owners"])  # leaves the admin out
    panel.locator("button.chatops-organization-set").click()
    confirm = panel.locator(".chatops-organization-confirm")
    expect(confirm).to_be_in_viewport()
    expect(confirm).to_contain_text("Members → Owners, Mei Member")
    expect(confirm).to_contain_text("⚠ You would no longer be in “Who can create user groups”")
    assert realm_value(owner, "can_create_groups") == before
    confirm.locator("button.chatops-organization-yes").click()  # Continue…
    expect(confirm.locator("button.chatops-organization-yes")).to_have_text(
        "Set it, and lose it myself"
    )
    assert realm_value(owner, "can_create_groups") == before
    confirm.locator("button.chatops-organization-yes").click()
    outcome = panel.locator(".chatops-outcome-ok", has_text="now names Owners, Mei Member")
    expect(outcome).to_be_in_viewport()
    assert realm_value(owner, "can_create_groups") != before
    screenshot(page, "safety-organization")
    page.locator("button.chatops-console-undo").click()
    undo = page.locator(".chatops-console-undo-confirm")
    expect(undo).to_be_in_viewport()
    undo.locator("button.chatops-console-undo-yes").click()
    expect(page.locator(".chatops-console .chatops-outcome-ok").first).to_contain_text("put back")
    assert realm_value(owner, "can_create_groups") == before
