"""The User groups panel, headless against a real sandbox: list and filters, uses before
deactivation, deactivation with the server's objections, reactivation, permissions, CSV."""

from __future__ import annotations

import csv
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets.user_groups import UserGroupsPanel
from tests.conftest import realm_settings, unchanged

Connect = Callable[[str], chatops.Client]

OWNER, ADMIN, MODERATOR, MEMBER = 2, 3, 4, 5  # user ids of the demo accounts
ROLE_MEMBERS = 3  # the id of the system group role:members
DASH = "—"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def open_panel(client: chatops.Client, export_dir: Path) -> UserGroupsPanel:
    return UserGroupsPanel(client, background=False, export_dir=export_dir).load()


def rows_of(panel: UserGroupsPanel, table: str = "groups_table") -> dict[str, dict[str, Any]]:
    frame = getattr(panel, table).frame
    return {str(r["Group"]): r for r in frame.to_dict("records")}


def uses(frame: Any) -> list[tuple[str, str, str]]:
    return [tuple(r) for r in frame[["Kind", "Channel or group", "Setting"]].to_numpy().tolist()]


def is_deactivated(client: chatops.Client, group_id: int) -> bool:
    return client.user_groups.get(group_id).deactivated


@pytest.fixture
def admin(connect: Connect) -> chatops.Client:
    """A second client of the org, not the panel's, to set things up and check the outcome."""
    return connect("admin")


@pytest.fixture
def panel(connect: Connect, export_dir: Path) -> Iterator[UserGroupsPanel]:
    made = open_panel(connect("admin"), export_dir)
    yield made
    made.close()


# -- the list ------------------------------------------------------------------------------
def test_list_shows_members_subgroups_state_and_where_used(
    panel: UserGroupsPanel, admin: chatops.Client
) -> None:
    sub_name, top_name, channel = unique("sub"), unique("top"), unique("chan")
    sub = admin.user_groups.create(sub_name, members=[MEMBER])
    top = admin.user_groups.create(
        top_name, members=[MODERATOR, OWNER], subgroups=[sub], description="Top of the tree"
    )
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": top})

    panel.refresh()
    rows = rows_of(panel)

    assert rows[top_name] == {
        "Group": top_name,
        "Description": "Top of the tree",
        "Active members": 3,
        "Member names": "Mei Member, Mona Moderator, Olivia Owner",
        "All members": "Mei Member, Mona Moderator, Olivia Owner",
        "Subgroups": sub_name,
        "State": "active",
        "System group": "no",
        "Uses": 1,
        "Used in": f"#{channel}",
        "Where used": f"#{channel}: Who can post to this channel",
        "You may manage": "yes",
        "ID": top,
    }
    assert rows[sub_name]["Where used"] == f"subgroup of {top_name}"
    assert rows[sub_name]["Used in"] == f"subgroup of {top_name}"
    panel.group_field.value = top  # the hint names the subgroups the grid leaves out
    assert f"3 active members (with those of 1 subgroup: {sub_name})" in (
        panel.group_field._hint.value
    )
    # the grid shows the short columns, the whole as tooltips (description, members, uses)
    assert rows[top_name]["All members"] == "Mei Member, Mona Moderator, Olivia Owner"
    html = panel.groups_table.html.value
    assert (
        "<thead><tr><th>Group</th><th>Active members</th><th>Member names</th><th>Used in</th></tr>"
    ) in html
    assert f'<td><span title="#{channel}: Who can post to this channel">#{channel}</span>' in html
    assert f'<span title="Top of the tree">{top_name}</span>' in html
    assert rows[sub_name]["Active members"] == 1
    owners = rows["role:owners"]
    assert (owners["System group"], owners["You may manage"]) == ("yes", "no")
    assert owners["Member names"] == "Olivia Owner"
    # the demo's "leads" is in an organization setting through an anonymous group
    assert (
        "organization: Who can notify a large number of users with a wildcard mention"
        in rows["leads"]["Where used"]
    )
    assert rows["leads"]["You may manage"] == "no"  # made by the owner; admins are not in
    # can_manage_all_groups (owners) in the demo organization
    names = list(panel.groups_table.frame["Group"])
    custom = [n for n in names if not n.startswith("role:")]
    assert names[: len(custom)] == sorted(custom, key=str.casefold)  # custom groups first
    assert "role:" in panel.groups_table.html.value  # the table is rendered


def test_long_member_lists_are_shortened(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    name = unique("many")
    admin.user_groups.create(name, members=[OWNER, ADMIN, MODERATOR, MEMBER, 9])
    panel.refresh()
    names = rows_of(panel)[name]["Member names"]
    assert names == "Adam Admin, Farid Novak and 3 more"
    every = "Adam Admin, Farid Novak, Mei Member, Mona Moderator, Olivia Owner"
    assert rows_of(panel)[name]["All members"] == every
    assert f'<span title="{every}">{names}</span>' in panel.groups_table.html.value


def test_name_filter(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    token = uuid.uuid4().hex[:6]
    admin.user_groups.create(f"Filter-{token}-a", members=[MEMBER])
    admin.user_groups.create(f"filter-{token}-b", members=[MEMBER])
    panel.refresh()
    panel.name_filter.value = f"FILTER-{token}"
    assert sorted(panel.groups_table.frame["Group"]) == [
        f"Filter-{token}-a",
        f"filter-{token}-b",
    ]
    panel.name_filter.value = "no group has this in its name"
    assert panel.groups_table.frame.empty
    assert "No user group matches" in panel.groups_table.html.value


def test_only_empty_follows_subgroups(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    empty, full, via_subgroup = unique("empty"), unique("full"), unique("via")
    empty_id = admin.user_groups.create(empty, members=[])
    admin.user_groups.create(full, members=[MEMBER])
    admin.user_groups.create(via_subgroup, members=[], subgroups=[empty_id])
    member_sub = admin.user_groups.create(unique("msub"), members=[MODERATOR])
    only_through_sub = unique("through")
    admin.user_groups.create(only_through_sub, members=[], subgroups=[member_sub])
    panel.refresh()
    panel.only_empty.value = True
    shown = set(panel.groups_table.frame["Group"])
    assert {empty, via_subgroup, "role:nobody"} <= shown
    assert not {full, only_through_sub, "role:members"} & shown
    assert set(panel.groups_table.frame["Active members"]) == {0}
    panel.only_empty.value = False
    assert {full, only_through_sub} <= set(panel.groups_table.frame["Group"])


def test_only_unused(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    unused, used = unique("unused"), unique("used")
    used_id = admin.user_groups.create(used, members=[MEMBER])
    admin.user_groups.create(unique("holder"), members=[MEMBER], subgroups=[used_id])
    admin.user_groups.create(unused, members=[MEMBER])
    panel.refresh()
    panel.only_unused.value = True
    shown = set(panel.groups_table.frame["Group"])
    assert unused in shown
    assert used not in shown
    assert "role:members" not in shown
    assert set(panel.groups_table.frame["Where used"]) == {"not used"}


def test_show_deactivated(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    name = unique("gone")
    gid = admin.user_groups.create(name, members=[MEMBER])
    admin.user_groups.deactivate(gid)
    panel.refresh()
    assert name not in set(panel.groups_table.frame["Group"])
    panel.show_deactivated.value = True
    row = rows_of(panel)[name]
    assert row["State"] == "deactivated"
    assert row["Active members"] == 1  # its members stay
    # the grid has no State column: the group's cell says it
    assert f'<td>{name} <span class="chatops-muted">deactivated</span></td>' in (
        panel.groups_table.html.value
    )
    states = list(panel.groups_table.frame["State"])
    assert states == sorted(states, key=lambda s: s == "deactivated")  # active ones first
    assert (f"{name} (deactivated)", gid) in panel.group_field.input.options


# -- uses before deactivation --------------------------------------------------------------
def test_uses_are_shown_before_deactivation(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    target_name, holder, settings_group, channel = (
        unique("target"),
        unique("holder"),
        unique("mention"),
        unique("chan"),
    )
    target = admin.user_groups.create(target_name, members=[MEMBER])
    admin.user_groups.create(holder, members=[], subgroups=[target])
    admin.user_groups.create(
        settings_group, members=[MEMBER], settings={"can_mention_group": target}
    )
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    anonymous = {"direct_members": [], "direct_subgroups": [ROLE_MEMBERS, target]}
    with realm_settings(org.store, can_invite_users_group=anonymous):
        panel.refresh()
        panel.group_field.value = target
        assert uses(panel.uses_table.frame) == [
            ("subgroup of", holder, DASH),
            ("organization", DASH, "Who can send email invitations to new users"),
            ("channel", f"#{channel}", "Who can post to this channel"),
            ("group", settings_group, "Who can mention this group"),
        ]
        assert "used in 4 places" in panel.group_field._hint.value
        assert rows_of(panel)[target_name]["Where used"] == (
            f"subgroup of {holder}; organization: Who can send email invitations to new users; "
            f"#{channel}: Who can post to this channel; group {settings_group}: "
            "Who can mention this group"
        )


def test_uses_count_settings_named_groups(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    """can_create_groups ends in "_groups": the server counts it, and so does the panel."""
    target = admin.user_groups.create(unique("creators"), members=[MEMBER])
    with realm_settings(org.store, can_create_groups=target):
        panel.refresh()
        assert uses(panel.uses_frame(target)) == [
            ("organization", DASH, "Who can create user groups")
        ]
        with unchanged(org.store):
            assert panel.deactivate(target) is False
        assert uses(panel.objections_table.frame) == [
            ("organization", DASH, "Who can create user groups")
        ]


def test_uses_table_with_nothing_using_the_group(
    panel: UserGroupsPanel, admin: chatops.Client
) -> None:
    gid = admin.user_groups.create(unique("free"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    assert panel.uses_table.frame.empty
    assert "it can be deactivated" in panel.uses_table.html.value
    assert "not used; you may manage it" in panel.group_field._hint.value


# -- deactivation ----------------------------------------------------------------------------
def test_deactivate_an_unused_group(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    name = unique("retire")
    gid = admin.user_groups.create(name, members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    panel.deactivate_button.click()
    assert panel.confirm.pending
    assert name in panel.confirm.message.value
    panel.confirm.yes.click()

    assert is_deactivated(admin, gid)
    assert panel.status.kind == "ok"
    assert f'Deactivated the user group "{name}"' in panel.status.text
    assert name not in set(panel.groups_table.frame["Group"])  # the list caught up
    assert panel.objections_box.layout.display == "none"


def test_deactivate_a_used_group_shows_the_objections(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    target_name, holder, settings_group, channel = (
        unique("busy"),
        unique("super"),
        unique("settings"),
        unique("chan"),
    )
    target = admin.user_groups.create(target_name, members=[MEMBER])
    admin.user_groups.create(holder, members=[], subgroups=[target])
    admin.user_groups.create(
        settings_group, members=[MEMBER], settings={"can_mention_group": target}
    )
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    anonymous = {"direct_members": [], "direct_subgroups": [ROLE_MEMBERS, target]}
    with realm_settings(org.store, can_invite_users_group=anonymous):
        panel.refresh()
        panel.group_field.value = target
        with unchanged(org.store):
            panel.deactivate_button.click()
            assert "the server will likely refuse" in panel.confirm.message.value
            panel.confirm.yes.click()

        assert not is_deactivated(admin, target)
        assert uses(panel.objections_table.frame) == [
            ("subgroup of", holder, DASH),
            ("organization", DASH, "Who can send email invitations to new users"),
            ("channel", f"#{channel}", "Who can post to this channel"),
            ("group", settings_group, "Who can mention this group"),
        ]
        assert panel.objections_box.layout.display == "flex"
        html = panel.objections_table.html.value
        assert f"#{channel}" in html and "objections" not in html  # names, never raw JSON
        assert panel.status.kind == "error"
        assert "CANNOT_DEACTIVATE_GROUP_IN_USE, HTTP 400" in panel.status.text
        advice = (
            "First change the organization's “Who can send email invitations to new users” and the "
            f"settings of "
            f"#{channel} that name it and the settings of the groups {settings_group} that "
            f"name it to another group; then remove it from the subgroups of {holder}; then "
            "deactivate it again."
        )
        assert advice in panel.status.text
        # said once: the advice is on the status line, not repeated over the table
        assert "First change" not in panel.objections_note.value
        assert "used in 4 places" in panel.status.text
        assert 'title="API: can_invite_users_group"' in html  # the API name as a tooltip

        # picking another group hides objections that belong to this one
        panel.group_field.value = panel.group_id("role:members")
        assert panel.objections_box.layout.display == "none"


def test_server_objects_although_the_panel_saw_no_use(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    name, late_holder = unique("quiet"), unique("late")
    target = admin.user_groups.create(name, members=[MEMBER])
    panel.refresh()
    panel.group_field.value = target
    assert panel.uses_table.frame.empty  # the panel sees no use ...
    admin.user_groups.create(late_holder, members=[], subgroups=[target])  # ... one appears

    with unchanged(org.store):
        panel.deactivate_button.click()
        assert "It can no longer be mentioned" in panel.confirm.message.value
        panel.confirm.yes.click()

    assert not is_deactivated(admin, target)
    assert uses(panel.objections_table.frame) == [("subgroup of", late_holder, DASH)]
    assert "CANNOT_DEACTIVATE_GROUP_IN_USE" in panel.status.text
    assert f"remove it from the subgroups of {late_holder}" in panel.status.text
    assert uses(panel.uses_table.frame) == [("subgroup of", late_holder, DASH)]  # caught up


def test_objections_of_a_channel_made_after_the_last_fetch_are_named(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    target = admin.user_groups.create(unique("chanuse"), members=[MEMBER])
    panel.refresh()
    channel = unique("newchan")
    admin.channels.subscribe([channel], group_settings={"can_add_subscribers_group": target})
    with unchanged(org.store):
        assert panel.deactivate(target) is False
    assert uses(panel.objections_table.frame) == [
        ("channel", f"#{channel}", "Who can subscribe anyone to this channel")
    ]


def test_confirm_cancel_changes_nothing(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    gid = admin.user_groups.create(unique("keep"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    with unchanged(org.store):
        panel.deactivate_button.click()
        assert panel.confirm.pending
        panel.confirm.no.click()
    assert not panel.confirm.pending
    assert panel.confirm.widget.layout.display == "none"
    assert not is_deactivated(admin, gid)


def test_system_group_cannot_be_deactivated(panel: UserGroupsPanel, org: Sandbox) -> None:
    panel.group_field.value = panel.group_id("role:members")
    with unchanged(org.store):
        panel.deactivate_button.click()
    assert not panel.confirm.pending
    assert "system group" in panel.group_field.error_text
    assert "cannot be deactivated" in panel.group_field.error_text
    assert panel.status.kind == "error"
    assert "cannot be deactivated" in panel.group_field._hint.value


def test_group_the_account_may_not_manage_is_refused_before_sending(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    leads = panel.group_id("leads")  # made by the owner
    panel.group_field.value = leads
    with unchanged(org.store):
        panel.deactivate_button.click()
    assert not panel.confirm.pending
    assert 'You may not deactivate "leads"' in panel.group_field.error_text
    assert "“Who can administer all user groups” (owners)" in panel.group_field.error_text
    assert not is_deactivated(admin, leads)


def test_already_deactivated_elsewhere_shows_the_server_refusal(
    panel: UserGroupsPanel, admin: chatops.Client
) -> None:
    gid = admin.user_groups.create(unique("race"), members=[MEMBER])
    panel.refresh()
    admin.user_groups.deactivate(gid)  # someone else was quicker
    panel.group_field.value = gid
    panel.deactivate_button.click()
    panel.confirm.yes.click()
    assert panel.status.text == (
        "The server refused: User group is already deactivated. (BAD_REQUEST, HTTP 400)"
    )
    assert panel.log.outputs == ()  # an API refusal, not a traceback


def test_deactivate_twice_is_refused_next_to_the_group(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    gid = admin.user_groups.create(unique("twice"), members=[MEMBER])
    admin.user_groups.deactivate(gid)
    panel.refresh()
    panel.group_field.value = gid
    with unchanged(org.store):
        panel.deactivate_button.click()
    assert "already deactivated" in panel.group_field.error_text
    assert not panel.confirm.pending


# -- reactivation --------------------------------------------------------------------------
def test_reactivate(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    name = unique("back")
    gid = admin.user_groups.create(name, members=[MEMBER])
    admin.user_groups.deactivate(gid)
    panel.refresh()
    panel.group_field.value = gid
    assert "Deactivated" in panel.group_field._hint.value
    panel.reactivate_button.click()
    assert not is_deactivated(admin, gid)
    assert panel.status.text == f'Reactivated the user group "{name}".'
    assert rows_of(panel)[name]["State"] == "active"


def test_reactivate_an_active_group_is_refused(
    panel: UserGroupsPanel, admin: chatops.Client, org: Sandbox
) -> None:
    gid = admin.user_groups.create(unique("awake"), members=[MEMBER])
    panel.refresh()
    panel.group_field.value = gid
    with unchanged(org.store):
        panel.reactivate_button.click()
    assert "only a deactivated group can be reactivated" in panel.group_field.error_text


def test_reactivate_needs_feature_level_386(export_dir: Path, tmp_path: Path) -> None:
    with Sandbox.start(tmp_path / "old", size="small", seed=21, feature_level=380) as old:
        client = chatops.Client.from_zuliprc(old.zuliprc("admin"))
        alumni = 11
        client.user_groups.deactivate(alumni)
        panel = open_panel(client, export_dir)
        panel.group_field.value = alumni
        with unchanged(old.store):
            panel.reactivate_button.click()
        assert "feature level 380" in panel.group_field.error_text
        assert "386" in panel.group_field.error_text
        client.close()


# -- permissions -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("account", "reason"),
    [
        ("member", "You are a member and may manage none of the"),
        ("guest", "Guests cannot deactivate or reactivate user groups; you are a guest."),
    ],
)
def test_read_only_without_permission(
    connect: Connect, export_dir: Path, org: Sandbox, account: str, reason: str
) -> None:
    panel = open_panel(connect(account), export_dir)
    assert panel.read_only
    assert reason in (panel.read_only_reason or "")
    assert reason.split(";")[0] in panel.notice.value
    assert panel.deactivate_button.disabled and panel.reactivate_button.disabled
    assert "leads" in set(panel.groups_table.frame["Group"])  # the list still shows
    with unchanged(org.store):
        panel.group_field.value = panel.group_id("alumni")
        panel.deactivate_button.click()  # disabled in the browser; the method refuses too
    assert not panel.confirm.pending
    assert "You may not deactivate" in panel.group_field.error_text


def test_member_of_can_manage_group_acts_on_that_group_only(
    connect: Connect, admin: chatops.Client, export_dir: Path
) -> None:
    name = unique("modded")
    gid = admin.user_groups.create(
        name,
        members=[MEMBER],
        settings={"can_manage_group": {"direct_members": [MODERATOR], "direct_subgroups": []}},
    )
    panel = open_panel(connect("moderator"), export_dir)
    assert not panel.read_only
    rows = rows_of(panel)
    assert rows[name]["You may manage"] == "yes"
    assert rows["alumni"]["You may manage"] == "no"
    assert panel.deactivate(gid) is True
    assert is_deactivated(admin, gid)


def test_owner_manages_every_custom_group(connect: Connect, export_dir: Path) -> None:
    panel = open_panel(connect("owner"), export_dir)
    frame = panel.groups_table.frame
    custom = frame[frame["System group"] == "no"]
    system = frame[frame["System group"] == "yes"]
    assert set(custom["You may manage"]) == {"yes"}
    assert set(system["You may manage"]) == {"no"}


# -- refresh and CSV -----------------------------------------------------------------------
def test_refresh_shows_groups_made_elsewhere(panel: UserGroupsPanel, admin: chatops.Client) -> None:
    name = unique("fresh")
    assert name not in set(panel.groups_table.frame["Group"])
    gid = admin.user_groups.create(name, members=[MEMBER])
    panel.groups_table.refresh_button.click()
    assert name in set(panel.groups_table.frame["Group"])
    assert (name, gid) in panel.group_field.input.options
    admin.user_groups.deactivate(gid)
    panel.uses_table.refresh_button.click()  # any table's Refresh fetches everything
    assert name not in set(panel.groups_table.frame["Group"])


def test_export_csv_of_the_filtered_list(
    panel: UserGroupsPanel, admin: chatops.Client, export_dir: Path
) -> None:
    token = uuid.uuid4().hex[:6]
    admin.user_groups.create(f"csv-{token}", members=[MEMBER], description="For, the CSV")
    panel.refresh()
    panel.name_filter.value = f"csv-{token}"
    panel.groups_table.export_button.click()
    files = list(export_dir.glob("groups-list-*.csv"))
    assert len(files) == 1
    with files[0].open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["Group"] for r in rows] == [f"csv-{token}"]
    assert rows[0]["Description"] == "For, the CSV"
    assert rows[0]["Member names"] == "Mei Member"
    assert list(rows[0]) == list(panel.groups_table.frame.columns)
    assert "Saved 1 row to" in panel.groups_table.export_link.value


def test_export_csv_of_the_objections(
    panel: UserGroupsPanel, admin: chatops.Client, export_dir: Path
) -> None:
    target = admin.user_groups.create(unique("objected"), members=[MEMBER])
    holder = unique("holder")
    admin.user_groups.create(holder, members=[], subgroups=[target])
    panel.refresh()
    assert panel.deactivate(target) is False
    path = panel.objections_table.export()
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows == [
        {
            "Fix": "1",
            "Kind": "subgroup of",
            "Channel or group": holder,
            "Setting": DASH,
            "How to fix": f"remove it from {holder}",
        }
    ]
    panel.group_field.value = target
    uses_path = panel.uses_table.export(export_dir / "uses.csv")
    assert "subgroup of" in uses_path.read_text(encoding="utf-8")


def test_where_used_counts_many_settings_of_one_place() -> None:
    uses = [("channel", "#design", f"can_{n}_group") for n in ("a", "b", "c")]
    uses += [("organization", DASH, "can_invite_users_group")]
    assert UserGroupsPanel.where_used(uses) == (
        "#design: 3 settings; organization: can_invite_users_group"
    )
