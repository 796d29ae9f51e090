"""The Organization panel, headless against a real sandbox: the organization's permissions by
the names of Zulip's settings pages, changed to groups and people after a question that names
the change, a change that takes a permission away from the admin confirmed twice, and undone
from the console."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets import AdminConsole
from chatops.widgets._model import FieldError
from chatops.widgets._who import Pick
from chatops.widgets._words import SETTING_LABELS
from chatops.widgets.organization import OrganizationPanel
from chatops.widgets.organization_model import SECTIONS
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
MODERATOR, MEMBER = 4, 5


@pytest.fixture
def panel(connect: Connect, export_dir: Path) -> Iterator[OrganizationPanel]:
    made = OrganizationPanel(connect("admin"), background=False, export_dir=export_dir).load()
    yield made
    made.close()


def realm(client: chatops.Client, setting: str) -> object:
    return client.server.register(fetch_event_types=["realm"])[f"realm_{setting}"]


def test_every_permission_shows_by_zulips_label_with_who_it_names_and_whether_you_are_in_it(
    panel: OrganizationPanel, connect: Connect
) -> None:
    table = panel.settings_table.frame
    assert list(table.columns) == ["Section", "Setting", "Who now", "Includes you"]
    shown = dict(zip(table["Setting"].map(str), table["Who now"], strict=True))
    assert shown["Who can administer all user groups"] == "Owners"
    assert shown["Who can create user groups"] == "Members"
    assert len(table) == len(panel.model.settings()) >= 20
    you = dict(zip(table["Setting"].map(str), table["Includes you"], strict=True))
    assert you["Who can administer all user groups"] == "no"  # the admin is no owner
    assert you["Who can create user groups"] == "✓ yes"
    assert set(table["Section"]) <= set(SECTIONS)
    assert {s for names in SECTIONS.values() for s in names} <= set(SETTING_LABELS["realm"])


def test_the_picker_shows_the_current_value_and_only_what_the_server_accepts(
    panel: OrganizationPanel,
) -> None:
    panel.setting_field.value = "can_create_groups"
    members = panel.group_id("role:members")
    assert panel.picker.value == (Pick("group", members),)
    labels = [label for label, _pick in panel.picker.input.options]
    assert "Everyone on the internet" not in labels
    assert any(pick.kind == "user" for _label, pick in panel.picker.input.options)
    # “Who can create reusable invitation links” takes a role, never a person
    panel.setting_field.value = "create_multiuse_invite_group"
    offered = [pick for _label, pick in panel.picker.input.options]
    assert offered and all(p.kind == "group" for p in offered)
    assert panel.picker.value == (Pick("group", panel.group_id("role:administrators")),)
    assert panel.set_button.disabled
    assert panel.set_button.tooltip == "That is what the setting names now."
    # “Who can administer all user groups” never names nobody
    panel.setting_field.value = "can_manage_all_groups"
    assert "Nobody" not in [label for label, _pick in panel.picker.input.options]


def test_people_and_a_group_together_are_asked_first_then_set_and_undone(
    connect: Connect, org: Sandbox, export_dir: Path
) -> None:
    """Console issue: only named groups could be chosen; a person could be neither chosen nor
    combined with a group. Nothing is sent before Yes; the console's Undo puts it back."""
    console = AdminConsole(connect("admin"), background=False, export_dir=export_dir)
    try:
        panel = console.panel("organization")
        assert isinstance(panel, OrganizationPanel)
        owner = connect("owner")
        mods = panel.group_id("role:moderators")
        panel.setting_field.value = "can_create_groups"
        panel.picker.value = (Pick("group", mods), Pick("user", MEMBER))
        with unchanged(org.store):
            panel.set_button.click()
            assert panel.set_confirm.pending
            assert panel.set_confirm.items == [
                "“Who can create user groups”: Members → Moderators, Mei Member"
            ]
        panel.set_confirm.yes.click()
        assert panel.status.kind == "ok", panel.status.text
        assert realm(owner, "can_create_groups") == {
            "direct_members": [MEMBER],
            "direct_subgroups": [mods],
        }
        assert set(panel.picker.value) == {Pick("group", mods), Pick("user", MEMBER)}
        row = panel.settings_table.frame.set_index("Setting").loc["Who can create user groups"]
        assert row["Who now"] == "Moderators, Mei Member"
        question = console.ask_undo()
        assert "put back 1 change" in question
        console.undo_confirm.yes.click()
        assert console.undo_status.kind == "ok", console.undo_status.text
        assert realm(owner, "can_create_groups") == panel.group_id("role:members")
    finally:
        console.close()


def test_a_change_that_takes_the_permission_from_you_needs_a_second_yes(
    panel: OrganizationPanel, connect: Connect, org: Sandbox
) -> None:
    """Console issue: a change could lock the admin out without warning. Setting “Who can
    create user groups” to Owners leaves the admin out of it: the question says so, and a
    second question must be answered before anything is sent."""
    owner = connect("owner")
    owners = panel.group_id("role:owners")
    panel.setting_field.value = "can_create_groups"
    panel.picker.value = (Pick("group", owners),)
    with unchanged(org.store):
        panel.set_button.click()
        assert "takes it away from you" in panel.set_confirm.question
        assert any(i.startswith("⚠ You would no longer be in") for i in panel.set_confirm.items)
        panel.set_confirm.yes.click()  # the first Yes only asks again
        assert panel.set_confirm.pending
        assert panel.set_confirm.question.startswith(
            "You would no longer be in “Who can create user groups”"
        )
        assert panel.set_confirm.yes.description == "Set it, and lose it myself"
        with pytest.raises(FieldError, match="no longer be in"):
            panel.model.set_permission("can_create_groups", owners)
    panel.set_confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    assert realm(owner, "can_create_groups") == owners
    assert (
        panel.settings_table.frame.set_index("Setting").loc[
            "Who can create user groups", "Includes you"
        ]
        == "no"
    )
    panel.model.set_permission("can_create_groups", panel.group_id("role:members"))


def test_a_member_sees_the_permissions_read_only_and_why(
    connect: Connect, export_dir: Path, org: Sandbox
) -> None:
    made = OrganizationPanel(connect("member"), background=False, export_dir=export_dir).load()
    try:
        assert made.read_only
        assert "Only organization administrators" in made.notice.value
        assert made.set_button.disabled
        with unchanged(org.store), pytest.raises(FieldError, match="Only organization admin"):
            made.model.set_permission("can_create_groups", made.group_id("role:moderators"))
        assert len(made.settings_table.frame) >= 20
    finally:
        made.close()


def test_a_refusal_changes_nothing_and_says_why(panel: OrganizationPanel, org: Sandbox) -> None:
    """The server refuses a value someone changed since the panel read it (``old`` differs)."""
    panel.setting_field.value = "can_add_custom_emoji_group"
    owner_changed = panel.group_id("role:administrators")
    panel.client.patch("/realm", params={"can_add_custom_emoji_group": {"new": owner_changed}})
    panel.picker.value = (Pick("group", panel.group_id("role:moderators")),)
    with unchanged(org.store):
        panel.set_button.click()
        panel.set_confirm.yes.click()
    assert panel.status.kind == "error"
    assert "The server refused" in panel.status.text
    panel.refresh()
    assert panel.picker.value == (Pick("group", owner_changed),)


def test_a_group_named_like_a_role_is_never_shown_as_the_role(
    panel: OrganizationPanel, connect: Connect
) -> None:
    """A member who may create groups makes one called "Administrators": it must not read as
    the role in the picker, the list or a question."""
    gid = connect("member").user_groups.create("Administrators", members=[MEMBER])
    panel.refresh()
    panel.setting_field.value = "can_add_custom_emoji_group"
    labels = dict((pick, label) for label, pick in panel.picker.input.options)
    assert labels[Pick("group", gid)] == "Administrators (a group, not the role)"
    assert labels[Pick("group", panel.group_id("role:administrators"))] == "Administrators"
    panel.picker.value = (Pick("group", gid),)
    panel.set_button.click()
    assert panel.set_confirm.items[0].endswith("→ Administrators (a group, not the role)")
    panel.set_confirm.cancel()
