"""The User groups panel's forms, headless against a real sandbox: a new group, name and
description, members in bulk with the preview, the group's permissions, and objections fixed
in place with a confirmation."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets._model import FieldError
from chatops.widgets._who import Pick
from chatops.widgets.user_groups import UserGroupsPanel
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
MODERATOR, MEMBER = 4, 5


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def panel(connect: Connect, export_dir: Path) -> Iterator[UserGroupsPanel]:
    made = UserGroupsPanel(connect("admin"), background=False, export_dir=export_dir).load()
    yield made
    made.close()


def test_create_from_the_form_picks_the_new_group(panel: UserGroupsPanel, connect: Connect) -> None:
    name = unique("formed")
    panel.new_name.value = name
    panel.new_description.value = "Made in the panel"
    panel.new_members.value = "Mei Member\nmoderator@demo.chatops.test"
    panel.create_button.click()
    assert panel.status.kind == "ok", panel.status.text
    gid = panel.group_id(name)
    assert sorted(connect("owner").user_groups.get(gid).members) == [MODERATOR, MEMBER]
    assert panel.group_field.value == gid
    assert panel.edit_name.value == name
    assert panel.new_name.value == ""
    assert name in set(panel.groups_table.frame["Group"])


def test_a_bad_name_shows_beside_the_field(panel: UserGroupsPanel, org: Sandbox) -> None:
    panel.new_name.value = "role:mine"
    with unchanged(org.store):
        panel.create_button.click()
    assert 'cannot start with "role:"' in panel.new_name.error_text
    assert panel.status.kind == "error"


def test_rename_from_the_form(panel: UserGroupsPanel, connect: Connect) -> None:
    gid = connect("admin").user_groups.create(unique("was"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    assert not panel.save_button.disabled
    new = unique("now")
    panel.edit_name.value = new
    panel.save_button.click()
    assert connect("owner").user_groups.get(gid).name == new
    assert panel.status.text.startswith("Renamed")


def test_members_preview_then_apply(panel: UserGroupsPanel, connect: Connect, org: Sandbox) -> None:
    gid = connect("admin").user_groups.create(unique("bulk"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    assert panel.members_apply_button.disabled  # nothing previewed yet
    assert panel.members_apply_button.tooltip == "Preview first."
    panel.entries.value = "Mei Member, Mona Moderator, nobody@nowhere.test"
    with unchanged(org.store):
        panel.members_preview_button.click()
    assert list(panel.members_table.frame["outcome"]) == [
        "already in the group",
        "will be added",
        "unknown",
    ]
    assert "No user or group has this email or name." in panel.members_table.html.value
    assert not panel.members_apply_button.disabled
    with unchanged(org.store):
        panel.members_apply_button.click()  # asks first, naming who is added
    assert panel.members_confirm.question.startswith('Add 1 entry to "')
    assert panel.members_confirm.items == ["Mona Moderator"]
    panel.members_confirm.yes.click()
    assert sorted(connect("owner").user_groups.get(gid).members) == [MODERATOR, MEMBER]
    assert panel.status.text.startswith("Added 1 member to")
    assert panel.members_apply_button.disabled


def test_set_a_permission_from_the_form(panel: UserGroupsPanel, connect: Connect) -> None:
    gid = connect("admin").user_groups.create(unique("perm"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    html = panel.permissions_table.html.value
    assert "Who can mention this group" in html
    assert 'title="API: can_mention_group"' in html  # the API name as a tooltip
    panel.setting_field.value = "can_mention_group"
    panel.setting_value.value = (Pick("group", panel.group_id("role:moderators")),)
    panel.set_button.click()
    assert panel.set_confirm.question == "Change this permission?"
    assert panel.set_confirm.items[0].startswith("“Who can mention this group” of ")
    assert panel.set_confirm.items[0].endswith("→ Moderators")
    panel.set_confirm.yes.click()
    assert connect("owner").user_groups.get(gid).can_mention_group == panel.group_id(
        "role:moderators"
    )
    assert "Moderators" in panel.permissions_table.html.value


def test_an_objection_fixed_in_place_then_deactivated(
    panel: UserGroupsPanel, connect: Connect, org: Sandbox
) -> None:
    admin = connect("admin")
    target = admin.user_groups.create(unique("busy"), members=[MEMBER])
    holder = unique("holder")
    holder_id = admin.user_groups.create(holder, members=[], subgroups=[target])
    channel = unique("chan")
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    panel.refresh()
    panel.group_field.value = target
    panel.deactivate_button.click()
    panel.confirm.yes.click()
    assert panel.objections_box.layout.display == "flex"
    assert list(panel.objections_table.frame["How to fix"]) == [
        f"remove it from {holder}",
        "choose another group for the setting",
    ]
    labels = [label for label, _i in panel.fix_field.input.options]
    assert labels == [
        f"1. Remove it from the subgroups of {holder}",
        f"2. #{channel}: “Who can post to this channel”",
    ]
    # a supergroup needs no replacement; a setting does
    assert panel.replacement_field.box.layout.display == "none"
    with unchanged(org.store):
        panel.fix_button.click()
        assert panel.fix_confirm.pending
        assert f"from the subgroups of {holder}" in panel.fix_confirm.message.value
        panel.fix_confirm.no.click()
    panel.fix_button.click()
    panel.fix_confirm.yes.click()
    assert admin.user_groups.get(holder_id).direct_subgroup_ids == []
    assert not admin.user_groups.get(target).deactivated  # the channel still uses it
    assert panel.status.kind == "error"
    assert panel.status.text.startswith(f'Removed "{panel.model.groups[target].name}" from')
    # still refused: the outcome is right under the fix button, in the objections shown
    fix_place = panel._slots[id(panel.fix_button)]
    assert any(c is panel.status.widget for c in fix_place.children)
    assert [label for label, _i in panel.fix_field.input.options] == [
        f"1. #{channel}: “Who can post to this channel”"
    ]
    assert panel.replacement_field.box.layout.display == "flex"
    panel.replacement_field.value = panel.group_id("role:moderators")
    panel.fix_button.click()
    assert "Put &quot;moderators&quot; in place of" in panel.fix_confirm.message.value
    panel.fix_confirm.yes.click()
    assert admin.user_groups.get(target).deactivated
    assert panel.status.kind == "ok"
    assert "Deactivated the user group" in panel.status.text
    assert panel.objections_box.layout.display == "none"
    # the objections are hidden with the place under the fix: the outcome moves under Deactivate
    place = panel._slots[id(panel.deactivate_button)]
    assert any(c is panel.status.widget for c in place.children)


def test_a_group_used_in_five_places_is_deactivated_through_the_panel_alone(
    panel: UserGroupsPanel, connect: Connect, org: Sandbox
) -> None:
    """Only the panel's controls: Deactivate, then for each objection row its fix, confirmed;
    each fix is followed by another try, and the fifth one deactivates the group."""
    from tests.conftest import realm_settings

    admin = connect("admin")
    target = admin.user_groups.create(unique("five"), members=[MEMBER])
    admin.user_groups.create(unique("super"), members=[], subgroups=[target])
    admin.user_groups.create(
        unique("other"), members=[MEMBER], settings={"can_mention_group": target}
    )
    channel = unique("chan")
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    anonymous = {"direct_members": [], "direct_subgroups": [3, target]}
    with realm_settings(org.store, can_invite_users_group=anonymous, can_create_groups=target):
        panel.refresh()
        panel.group_field.value = target
        panel.deactivate_button.click()
        panel.confirm.yes.click()
        seen = []
        for left in (5, 4, 3, 2, 1):
            assert len(panel.fix_field.input.options) == left
            assert len(panel.objections_table.frame) == left
            seen.append(panel.fix_field.input.options[0][0])
            panel.fix_button.click()
            assert panel.fix_confirm.pending
            panel.fix_confirm.yes.click()
        assert panel.status.kind == "ok", panel.status.text
        assert "Deactivated the user group" in panel.status.text
    assert admin.user_groups.get(target).deactivated
    assert len(set(seen)) == 5  # each fix once, in the server's order
    assert panel.objections_box.layout.display == "none"


def test_a_change_that_locks_you_out_is_named_and_needs_its_own_yes(
    connect: Connect, org: Sandbox, export_dir: Path
) -> None:
    """Console issue: setting a group's “Who can administer this group” to a group the acting
    admin is not in left them unable to manage it, with no warning. A moderator (not in the
    organization's “Who can administer all user groups”) who created the group is warned."""
    gid = connect("moderator").user_groups.create(unique("mine"), members=[MODERATOR])
    panel = UserGroupsPanel(connect("moderator"), background=False, export_dir=export_dir).load()
    try:
        panel.group_field.value = gid
        panel.setting_field.value = "can_manage_group"
        panel.setting_value.value = (Pick("group", panel.group_id("role:members")),)  # in: fine
        assert panel.model.lockout(gid, "can_manage_group", panel.setting_value.value) == ""
        leads = connect("admin").user_groups.create(unique("leads"), members=[MEMBER])
        panel.refresh()
        panel.group_field.value = gid
        panel.setting_field.value = "can_manage_group"
        panel.setting_value.value = (Pick("group", leads),)
        with unchanged(org.store):
            question = panel.forms.ask_set()
            assert "takes away your right to administer" in question
            assert panel.set_confirm.items[1].startswith("⚠ You would no longer be able to")
            panel.set_confirm.yes.click()  # the first Yes only asks again
            assert panel.set_confirm.question.startswith("You would no longer be able to")
            assert panel.set_confirm.yes.description == "Set it, and lose access"
            with pytest.raises(FieldError, match="no longer be able to administer"):
                panel.model.set_permission(gid, "can_manage_group", leads)
            panel.setting_value.value = (Pick("group", panel.group_id("role:moderators")),)
            assert not panel.set_confirm.pending  # changed: no question left
        panel.setting_value.value = (Pick("group", leads),)
        panel.set_button.click()
        panel.set_confirm.yes.click()
        panel.set_confirm.yes.click()
        assert connect("owner").user_groups.get(gid).can_manage_group == leads
        panel.group_field.value = gid
        assert panel.set_button.disabled and "You may not manage" in panel.set_button.tooltip
        # why, in view beside the picker, not only in a tooltip
        hint = panel.group_field._hint.value
        assert "neither its “Who can administer this group” (" in hint
        manage_all = panel.model.manage_all_words()
        assert f"“Who can administer all user groups” ({manage_all}) includes you" in hint
    finally:
        panel.close()


def test_the_who_picker_shows_each_settings_current_value(
    panel: UserGroupsPanel, connect: Connect
) -> None:
    """Console issue: switching to “Who can join” showed the last choice (`leads`), not the
    current value (nobody); a value of people showed as nothing at all."""
    admin = connect("admin")
    mods = next(g.id for g in admin.user_groups.list() if g.name == "role:moderators")
    gid = admin.user_groups.create(unique("cur"), members=[MEMBER])
    admin.user_groups.update(
        gid,
        settings={
            "can_mention_group": mods,
            "can_leave_group": {"direct_members": [MEMBER], "direct_subgroups": []},
        },
    )
    panel.refresh()
    panel.group_field.value = gid
    panel.setting_field.value = "can_mention_group"
    assert panel.setting_value.value == (Pick("group", mods),)
    panel.setting_field.value = "can_join_group"
    joined = connect("owner").user_groups.get(gid).can_join_group
    assert panel.setting_value.value == (Pick("group", joined),) and joined != mods
    panel.setting_field.value = "can_leave_group"
    assert panel.setting_value.value == (Pick("user", MEMBER),)
    assert "Now: Mei Member." in panel.setting_value._hint.value


def test_a_person_and_a_group_together_can_be_chosen_and_set(
    panel: UserGroupsPanel, connect: Connect, org: Sandbox
) -> None:
    """Console issue: only named groups could be chosen; a single person, shown as a current
    value, could be neither chosen nor combined with a group."""
    admin = connect("admin")
    gid = admin.user_groups.create(unique("both"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    panel.setting_field.value = "can_mention_group"
    people = [p for _label, p in panel.setting_value.input.options if p.kind == "user"]
    assert Pick("user", MODERATOR) in people
    mods = panel.group_id("role:moderators")
    panel.setting_value.value = (Pick("user", MEMBER), Pick("group", mods))
    with unchanged(org.store):
        panel.set_button.click()
    assert panel.set_confirm.items[0].endswith("→ Moderators, Mei Member")
    panel.set_confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    value = connect("owner").user_groups.get(gid).can_mention_group
    assert (value.direct_members, value.direct_subgroups) == ([MEMBER], [mods])
    assert set(panel.setting_value.value) == {Pick("user", MEMBER), Pick("group", mods)}


def test_addresses_nobody_has_are_offered_to_invite_into_the_new_group(
    connect: Connect, org: Sandbox, export_dir: Path
) -> None:
    """Console issue: one unknown member blocked a new group, with no way to skip or invite
    them. Skipped, the group is made; the addresses nobody here has open the console's
    Invitations with the group chosen, and nothing is sent until Send is confirmed."""
    from chatops.widgets import AdminConsole

    console = AdminConsole(connect("admin"), background=False, export_dir=export_dir)
    try:
        panel = console.panel("groups")
        assert isinstance(panel, UserGroupsPanel)
        name = unique("newcomers")
        panel.new_name.value = name
        panel.new_members.value = "Mei Member\nNew Person <new.person@elsewhere.test>, nobody"
        with unchanged(org.store):
            panel.create_button.click()
        assert "line 2 “New Person <new.person@elsewhere.test>”: unknown" in (
            panel.new_members.error_text
        )
        assert "line 2 “nobody”: unknown" in panel.new_members.error_text
        panel.forms.skip_unknown.value = True
        panel.create_button.click()
        assert panel.status.kind == "ok", panel.status.text
        gid = panel.group_id(name)
        button = panel.forms.invite_new_button
        assert button.layout.display is None
        assert button.description == "Invite 1 address not found…"
        with unchanged(org.store):
            button.click()
            invitations = console.panels["invitations"]
            assert console.tabs.selected_index == list(console.panels).index("invitations")
            assert invitations.addresses.value == "new.person@elsewhere.test"  # type: ignore[attr-defined]
            assert invitations.groups.input.value == (gid,)  # type: ignore[attr-defined]
            assert "to join “" + name + "” when they accept" in invitations.status.text
    finally:
        console.close()


def test_a_members_preview_offers_to_invite_the_addresses_it_did_not_find(
    panel: UserGroupsPanel, connect: Connect
) -> None:
    gid = connect("admin").user_groups.create(unique("grow"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    panel.forms.entries.value = "moderator@demo.chatops.test\nfresh@elsewhere.test"
    panel.members_preview_button.click()
    button = panel.forms.invite_members_button
    assert button.layout.display is None and button.tooltip == "fresh@elsewhere.test"
    button.click()  # a panel alone says where to invite them
    assert "Invite them from the Invitations panel: fresh@elsewhere.test" in (
        panel.forms.entries.error_text
    )
    panel.forms.entries.value = "moderator@demo.chatops.test"
    assert button.layout.display == "none"


def test_set_with_the_current_value_says_so_and_asks_nothing(
    panel: UserGroupsPanel, connect: Connect, org: Sandbox
) -> None:
    gid = connect("admin").user_groups.create(unique("same"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    panel.setting_field.value = "can_join_group"  # the picker shows what it names now
    with unchanged(org.store):
        panel.set_button.click()
    assert not panel.set_confirm.pending
    assert panel.setting_value.error_text == "“Who can join this group” already names Nobody."
