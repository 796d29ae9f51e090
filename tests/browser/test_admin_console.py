"""The admin console in a real JupyterLab in Chromium: open ``admin_console.ipynb`` as
``chatops lab`` prepared it, run it, and in each tab perform one real action, checking both the
screen and the sandbox. Screenshots of each tab are written to ``test-artifacts/browser/``.

The tests of this module share one page and run in order: each leaves the console open for the
next, as an admin would.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import chatops
from tests.browser.conftest import IDLE, Lab, screenshot

pytestmark = pytest.mark.slow

BUSY_GROUP = "browser-busy"
BUSY_CHANNEL = "browser-busy-channel"
STATUS_GROUP = "browser-on-call"
#: the statuses of the status group's members before the status tab replaced them
STATUSES_BEFORE: dict[int, tuple[str, str]] = {}


@pytest.fixture(scope="module")
def admin(lab: Lab) -> Iterator[chatops.Client]:
    """The test's own view of the organization the console acts on."""
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("owner")) as client:
        yield client


@pytest.fixture(scope="module")
def page(lab: Lab, browser: Any, admin: chatops.Client) -> Iterator[Any]:
    """The console notebook, run to the end, with no widget left loading and no error output."""
    from playwright.sync_api import expect

    # What the tabs will act on, made before the console opens. The console's account made the
    # busy group, so it may manage it; a channel's setting uses it.
    with chatops.Client.from_zuliprc(lab.sandbox.zuliprc("admin")) as acting:
        busy = acting.user_groups.create(BUSY_GROUP, members=[acting.users.me().user_id])
        acting.channels.subscribe([BUSY_CHANNEL], group_settings={"can_send_message_group": busy})
    members = [u.user_id for u in admin.users.list() if not u.is_bot and u.is_active][:3]
    admin.user_groups.create(STATUS_GROUP, members=members)

    context = browser.new_context(viewport={"width": 1400, "height": 2400})
    tab = context.new_page()
    tab.goto(lab.notebook_url("admin_console.ipynb"))
    idle = tab.locator("#jp-main-statusbar").get_by_text(IDLE)
    # chatops lab opened the notebook already run: the console is there, nothing clicked
    expect(tab.locator(".chatops-console")).to_be_visible(timeout=90_000)
    expect(idle).to_be_visible(timeout=60_000)
    expect(tab.get_by_text("Loading widget...")).to_have_count(0)
    yield tab
    context.close()


def no_errors(page: Any) -> None:
    """No error output in the notebook and no error line in any panel."""
    from playwright.sync_api import expect

    expect(page.locator('[data-mime-type="application/vnd.jupyter.stderr"]')).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    expect(page.get_by_text("Loading widget...")).to_have_count(0)


SLUGS = {
    "Channel folders": "folders",
    "Linkifiers": "linkifiers",
    "User groups": "groups",
    "Invitations": "invitations",
    "Status": "status",
    "People and channels": "people",
    "Organization": "organization",
}


def open_tab(page: Any, title: str) -> None:
    """Open a tab and wait for its panel to load (a tab loads when first opened)."""
    page.locator(".chatops-console-tabs .lm-TabBar-tab", has_text=title).click()
    page.locator(f".chatops-panel-{SLUGS[title]} .chatops-who").wait_for(timeout=60_000)


def test_console_opens_with_its_tabs(page: Any, lab: Lab) -> None:
    from playwright.sync_api import expect

    tabs = page.locator(".chatops-console-tabs .lm-TabBar-tab")
    expect(tabs).to_have_text(list(SLUGS))
    who = page.locator(".chatops-panel-folders .chatops-who")
    expect(who).to_contain_text("administrator")
    expect(who).to_contain_text(lab.sandbox.site)
    no_errors(page)


def test_console_opens_already_run(page: Any, lab: Lab) -> None:
    """Nothing was clicked to run the notebook: chatops lab ran it in a kernel of the server's
    own, and the page joined that kernel (one session, the page connected to it)."""
    import httpx
    from playwright.sync_api import expect

    expect(page.locator(".chatops-console")).to_be_visible()
    expect(page.get_by_text("official Jupyter news")).to_have_count(0)
    sessions = httpx.get(f"{lab.url}/api/sessions", params={"token": lab.token}).json()
    assert [s["path"] for s in sessions] == ["admin_console.ipynb"]
    assert sessions[0]["kernel"]["connections"] >= 1
    # the last cell's prompt carries the number of its run
    expect(page.locator(".jp-OutputArea-prompt").last).to_contain_text("[3]:")


def test_folders_tab_creates_a_folder(page: Any, admin: chatops.Client) -> None:
    from playwright.sync_api import expect

    open_tab(page, "Channel folders")
    panel = page.locator(".chatops-panel-folders")
    panel.locator(".chatops-folders-name input").fill("Browser folder")
    panel.locator(".chatops-folders-description textarea, .chatops-folders-description input").fill(
        "Made in Chromium"
    )
    panel.locator("button.chatops-folders-create").click()
    expect(panel.locator(".chatops-folders-list table")).to_contain_text("Browser folder")
    expect(panel.locator(".chatops-outcome-ok")).to_be_visible()
    screenshot(page, "console-folders")
    folders = {f.name: f for f in admin.channels.folders()}
    assert folders["Browser folder"].description == "Made in Chromium"
    no_errors(page)


def test_linkifiers_tab_edits_with_the_live_preview(page: Any, admin: chatops.Client) -> None:
    from playwright.sync_api import expect

    open_tab(page, "Linkifiers")
    panel = page.locator(".chatops-panel-linkifiers")
    first = admin.realm.linkifiers()[0]
    panel.locator(".chatops-linkifiers-picker select").select_option(value=None, index=1)
    expect(panel.locator(".chatops-linkifiers-pattern input")).to_have_value(first.pattern)
    pattern = r"BUG-(?P<id>[0-9]+)"
    template = "https://bugs.example.com/show/{id}"
    panel.locator(".chatops-linkifiers-pattern input").fill(pattern)
    panel.locator(".chatops-linkifiers-url-template input").fill(template)
    panel.locator(".chatops-linkifiers-sample textarea").fill("See BUG-42 and BUG-7.")
    preview = panel.locator(".chatops-linkifiers-preview table")
    expect(preview).to_contain_text("https://bugs.example.com/show/42")
    expect(preview).to_contain_text("https://bugs.example.com/show/7")
    expect(panel.locator(".chatops-linkifiers-check-problem")).to_have_count(0)
    screenshot(page, "console-linkifiers")
    panel.locator("button.chatops-linkifiers-save").click()
    expect(panel.locator(".chatops-outcome-ok")).to_be_visible()
    saved = {lk.id: lk for lk in admin.realm.linkifiers()}[first.id]
    assert (saved.pattern, saved.url_template) == (pattern, template)
    no_errors(page)


def test_groups_tab_shows_the_objections_of_a_group_in_use(
    page: Any, admin: chatops.Client
) -> None:
    from playwright.sync_api import expect

    open_tab(page, "User groups")
    panel = page.locator(".chatops-panel-groups")
    panel.locator(".chatops-groups-pick select").select_option(label=BUSY_GROUP)
    expect(panel.locator(".chatops-groups-uses table")).to_contain_text(f"#{BUSY_CHANNEL}")
    panel.locator("button.chatops-groups-deactivate").click()
    panel.locator("button.chatops-groups-confirm-yes").click()
    objections = panel.locator(".chatops-groups-objections table")
    expect(objections).to_be_visible()
    expect(objections).to_contain_text(f"#{BUSY_CHANNEL}")
    expect(objections).to_contain_text("Who can post to this channel")  # Zulip's own words
    expect(objections).not_to_contain_text("channel_id")  # names, never raw JSON
    status = panel.locator(".chatops-outcome")
    expect(status).to_contain_text("CANNOT_DEACTIVATE_GROUP_IN_USE")
    screenshot(page, "console-groups")
    groups = {g.name: g for g in admin.user_groups.list(include_deactivated_groups=True)}
    assert groups[BUSY_GROUP].deactivated is False
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_groups_tab_fixes_the_objection_in_place_and_deactivates(
    page: Any, admin: chatops.Client
) -> None:
    """Continues from the objections above: the channel's setting is the one fix offered; it
    is applied with another group after confirmation, and the group is deactivated."""
    from playwright.sync_api import expect

    panel = page.locator(".chatops-panel-groups")
    fix = panel.locator(".chatops-groups-fix-pick select")
    expect(fix.locator("option")).to_have_count(1)
    expect(fix).to_contain_text(f"#{BUSY_CHANNEL}: “Who can post to this channel”")
    replacement = panel.locator(".chatops-groups-replacement select")
    expect(replacement).to_be_visible()
    replacement.select_option(label="moderators")
    panel.locator("button.chatops-groups-fix").click()
    confirm = panel.locator(".chatops-groups-fix-confirm")
    expect(confirm).to_contain_text('Put "moderators" in place of')
    panel.locator("button.chatops-groups-fix-yes").click()
    expect(panel.locator(".chatops-outcome-ok")).to_contain_text("Deactivated the user group")
    expect(panel.locator(".chatops-groups-objections")).to_be_hidden()
    screenshot(page, "console-groups-fixed")
    groups = {g.name: g for g in admin.user_groups.list(include_deactivated_groups=True)}
    assert groups[BUSY_GROUP].deactivated is True
    streams = admin.get("/streams", params={"include_all": True})["streams"]
    channel = next(c for c in streams if c["name"] == BUSY_CHANNEL)
    assert channel["can_send_message_group"] == groups["role:moderators"].id
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_groups_tab_creates_a_group_and_adds_members(page: Any, admin: chatops.Client) -> None:
    from playwright.sync_api import expect

    panel = page.locator(".chatops-panel-groups")
    panel.locator(".chatops-groups-new-name input").fill("browser-made")
    panel.locator(".chatops-groups-new-description input").fill("Made in Chromium")
    panel.locator("button.chatops-groups-create").click()
    expect(panel.locator(".chatops-outcome-ok")).to_contain_text(
        'Created the user group "browser-made"'
    )
    panel.locator(".chatops-groups-entries textarea").fill(
        "member@demo.chatops.test\nMona Moderator\nnobody@nowhere.test"
    )
    panel.locator("button.chatops-groups-members-preview").click()
    preview = panel.locator(".chatops-groups-members-table table")
    expect(preview).to_contain_text("will be added")
    expect(preview).to_contain_text("unknown")
    panel.locator("button.chatops-groups-members-apply").click()
    confirm = panel.locator(".chatops-groups-members-confirm")
    expect(confirm).to_be_in_viewport()
    expect(confirm).to_contain_text("Mona Moderator")
    confirm.locator("button.chatops-groups-members-yes").click()
    expect(panel.locator(".chatops-outcome-ok")).to_contain_text("Added 2 members to")
    screenshot(page, "console-groups-members")
    made = {g.name: g for g in admin.user_groups.list()}["browser-made"]
    assert made.description == "Made in Chromium"
    assert len(made.members) == 2
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_a_preview_left_on_screen_never_applies_to_another_group(
    page: Any, admin: chatops.Client
) -> None:
    """Console issue: a preview of adding people to one group stayed on screen, with Apply
    enabled, after a new group was created (the picker switched to it); Apply added them to
    the first group while the form showed the new one."""
    from playwright.sync_api import expect

    panel = page.locator(".chatops-panel-groups")
    panel.locator(".chatops-groups-pick select").select_option(label="browser-made")
    panel.locator(".chatops-groups-entries textarea").fill("Olivia Owner")
    panel.locator("button.chatops-groups-members-preview").click()
    preview = panel.locator(".chatops-groups-members-table table")
    apply = panel.locator("button.chatops-groups-members-apply")
    expect(preview).to_contain_text("will be added")
    expect(apply).to_be_enabled()
    panel.locator(".chatops-groups-new-name input").fill("browser-triage")
    panel.locator("button.chatops-groups-create").click()
    expect(panel.locator(".chatops-outcome-ok")).to_contain_text("browser-triage")
    # the picker shows the new group: the preview made for the other one is gone, Apply off
    expect(panel.locator(".chatops-groups-members-table")).not_to_contain_text("will be added")
    expect(apply).to_be_disabled()
    expect(apply).to_have_attribute("title", "Preview first.")
    groups = {g.name: g for g in admin.user_groups.list()}
    assert len(groups["browser-made"].members) == 2 and groups["browser-triage"].members == []
    no_errors(page)


def test_invitations_tab_sends_a_pasted_list(page: Any, admin: chatops.Client) -> None:
    from playwright.sync_api import expect

    open_tab(page, "Invitations")
    panel = page.locator(".chatops-panel-invitations")
    existing = admin.users.me().delivery_email or admin.users.me().email
    pasted = "ada@browser.test\nbob@browser.test, not-an-address\nADA@browser.test\n" + existing
    panel.locator(".chatops-invitations-addresses textarea").fill(pasted)
    panel.locator("button.chatops-invitations-preview").click()
    preview = panel.locator(".chatops-invitations-preview-table table")
    for word in ("valid", "invalid", "duplicate", "already a user"):
        expect(preview).to_contain_text(word)
    panel.locator("button.chatops-invitations-send").click()
    # nothing is sent before the question, listing the addresses, is answered
    confirm = panel.locator(".chatops-invitations-send-confirm")
    expect(confirm).to_contain_text("Send 2 invitations as member")
    expect(confirm.locator(".chatops-confirm-listing")).to_contain_text("ada@browser.test")
    expect(confirm.locator(".chatops-confirm-listing")).to_contain_text("bob@browser.test")
    assert not {i.email for i in admin.invitations.list()} & {"ada@browser.test"}
    confirm.locator("button.chatops-invitations-send-yes").click()
    results = panel.locator(".chatops-invitations-results-table table")
    expect(results).to_contain_text("ada@browser.test")
    expect(results).to_contain_text("bob@browser.test")
    expect(results).to_contain_text("invited")
    screenshot(page, "console-invitations")
    invited = {i.email for i in admin.invitations.list() if not i.is_multiuse}
    assert {"ada@browser.test", "bob@browser.test"} <= invited
    assert "not-an-address" not in invited
    no_errors(page)


def test_status_tab_sets_a_status_for_a_group(page: Any, admin: chatops.Client) -> None:
    from playwright.sync_api import expect

    open_tab(page, "Status")
    panel = page.locator(".chatops-panel-status")
    group_select = panel.locator(".chatops-status-group select")
    labels = group_select.locator("option").all_inner_texts()
    label = next(text for text in labels if text.startswith(STATUS_GROUP))
    group_select.select_option(label=label)
    targets = panel.locator(".chatops-status-targets table")
    members = {g.name: g for g in admin.user_groups.list()}[STATUS_GROUP].members
    expect(targets.locator("tbody tr")).to_have_count(len(members))
    for user_id in members:
        before = admin.users.get_status(user_id)
        STATUSES_BEFORE[user_id] = (before.status_text or "", before.emoji_name or "")
    panel.locator(".chatops-status-text input").fill("On call this week")
    expect(panel.locator(".chatops-status-count")).to_contain_text("17 / 60")
    panel.locator(".chatops-status-emoji input").fill("palm_tree")
    panel.locator("button.chatops-status-apply").click()
    panel.locator(".chatops-status-confirm button", has_text="Apply status").click()
    results = panel.locator(".chatops-status-results table")
    expect(results.locator("tbody tr")).to_have_count(len(members))
    expect(results).to_contain_text("set")
    screenshot(page, "console-status")
    for user_id in members:
        status = admin.users.get_status(user_id)
        assert (status.status_text, status.emoji_name) == ("On call this week", "palm_tree")
    no_errors(page)


def test_undo_puts_back_the_statuses_the_last_action_replaced(
    page: Any, admin: chatops.Client
) -> None:
    """Console issue: a bulk status replaced people's own statuses with no way back. The
    console's Undo lists what it puts back, asks, and restores each status."""
    from playwright.sync_api import expect

    members = {g.name: g for g in admin.user_groups.list()}[STATUS_GROUP].members
    page.locator("button.chatops-console-undo").click()
    confirm = page.locator(".chatops-console-undo-confirm")
    expect(confirm).to_be_in_viewport()
    expect(confirm).to_contain_text(
        f"Undo “Status: Apply status”: put back {len(members)} changes?"
    )
    screenshot(page, "console-undo")
    confirm.locator("button.chatops-console-undo-yes").click()
    expect(page.locator(".chatops-console .chatops-outcome-ok").first).to_contain_text("put back")
    assert STATUSES_BEFORE, "the status tab's test runs first"
    for user_id in members:
        status = admin.users.get_status(user_id)
        assert (status.status_text or "", status.emoji_name or "") == STATUSES_BEFORE[user_id]
    no_errors(page)
