"""Who may change a group's members, as the server decides it (``POST /user_groups/{id}/members``):
permission to manage the group is enough but not needed. The model (no kernel) must allow exactly
what the sandbox allows; each case also asks the server directly and compares."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets._model import FieldError
from chatops.widgets.user_groups_model import GroupsModel
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
OWNER, ADMIN, MODERATOR, MEMBER, GUEST = 2, 3, 4, 5, 6


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def group_for(connect: Connect, *, members: list[int] | None = None, **settings: int) -> int:
    """A group made by the admin (who manages it as its creator), its settings naming ``who``."""
    admin = connect("admin")
    return admin.user_groups.create(
        unique("rule"), members=members or [], settings=settings or None
    )


def only(connect: Connect, user: int) -> int:
    """A group of one user, for a setting to name."""
    return connect("admin").user_groups.create(unique("who"), members=[user])


def model_of(connect: Connect, account: str) -> GroupsModel:
    made = GroupsModel(connect(account))
    made.fetch()
    return made


def members(connect: Connect, gid: int) -> list[int]:
    return sorted(connect("owner").user_groups.get(gid).members)


def test_add_members_permission_without_manage_adds_others(connect: Connect, org: Sandbox) -> None:
    gid = group_for(connect, can_add_members_group=only(connect, MEMBER))
    model = model_of(connect, "member")
    group = model.groups[gid]
    assert (group.may_manage, group.may_add_members, group.may_remove_members) == (
        False,
        True,
        False,
    )
    assert model.members_refusal(group) == ""
    rows = model.preview_members(gid, "Mona Moderator\n@*support-team*")
    assert [(r.who, r.outcome) for r in rows] == [
        ("Mona Moderator", "will be added"),
        ("support-team", "cannot"),  # subgroups need permission to administer the group
    ]
    assert "administer" in rows[1].detail
    with unchanged(org.store), pytest.raises(chatops.ChatopsError):  # the server agrees
        connect("member").user_groups.update_subgroups(gid, add=[model.group_id("support-team")])
    assert model.apply_members(gid, "Mona Moderator\n@*support-team*") == 1
    assert members(connect, gid) == [MODERATOR]
    assert model.status.text.endswith("Added 1 member to " + f'"{group.name}".')


def test_without_remove_permission_removing_is_refused_like_the_server(
    connect: Connect, org: Sandbox
) -> None:
    gid = group_for(connect, members=[MODERATOR], can_add_members_group=only(connect, MEMBER))
    model = model_of(connect, "member")
    group = model.groups[gid]
    # the group's “Who can leave” (everyone by default) lets one remove oneself only
    assert (group.may_remove_members, group.may_leave) == (False, True)
    why = model.members_refusal(group, [MODERATOR], remove=True)
    assert why.startswith(f'You may not remove members from "{group.name}": that needs its “')
    with unchanged(org.store):
        rows = model.preview_members(gid, "Mona Moderator", remove=True)
        assert [(r.who, r.outcome, r.detail) for r in rows] == [("Mona Moderator", "cannot", why)]
        with pytest.raises(FieldError, match="Nothing in the preview can be sent"):
            model.apply_members(gid, "Mona Moderator", remove=True)
        with pytest.raises(chatops.ChatopsError, match="Insufficient permission"):
            connect("member").user_groups.update_members(gid, delete=[MODERATOR])


def test_remove_permission_alone_removes(connect: Connect) -> None:
    gid = group_for(connect, members=[MODERATOR], can_remove_members_group=only(connect, MEMBER))
    model = model_of(connect, "member")
    assert model.members_refusal(model.groups[gid], remove=True) == ""
    assert "You may not add members to" in model.members_refusal(model.groups[gid])
    model.preview_members(gid, "Mona Moderator", remove=True)
    assert model.apply_members(gid, "Mona Moderator", remove=True) == 1
    assert members(connect, gid) == []


def test_join_permission_lets_one_add_only_oneself(connect: Connect, org: Sandbox) -> None:
    gid = group_for(connect, can_join_group=only(connect, MEMBER))
    model = model_of(connect, "member")
    group = model.groups[gid]
    assert (group.may_add_members, group.may_join) == (False, True)
    rows = model.preview_members(gid, "Mei Member\nMona Moderator")
    assert [(r.who, r.outcome) for r in rows] == [
        ("Mei Member", "will be added"),
        ("Mona Moderator", "cannot"),
    ]
    assert "Who can add members" in rows[1].detail or "can_add_members" in rows[1].detail
    with unchanged(org.store), pytest.raises(chatops.ChatopsError, match="Insufficient"):
        connect("member").user_groups.update_members(gid, add=[MEMBER, MODERATOR])
    assert (
        model.apply_members(gid, "Mei Member\nMona Moderator") == 1
    )  # only oneself is sent: the server lets one join
    assert members(connect, gid) == [MEMBER]


def test_no_member_setting_refuses_every_list(connect: Connect, org: Sandbox) -> None:
    gid = group_for(connect)  # every setting at its default: the creator (the admin)
    model = model_of(connect, "member")
    with unchanged(org.store):
        with pytest.raises(FieldError, match="You may not add members to"):
            model.preview_members(gid, "Mona Moderator")
        with pytest.raises(chatops.ChatopsError, match="Insufficient permission"):
            connect("member").user_groups.update_members(gid, add=[MODERATOR])


def test_a_guest_named_by_add_members_still_cannot_add(connect: Connect, org: Sandbox) -> None:
    gid = group_for(connect, can_add_members_group=only(connect, GUEST))
    model = model_of(connect, "guest")
    assert not model.groups[gid].may_add_members
    with unchanged(org.store):
        with pytest.raises(FieldError, match="Guests cannot add members"):
            model.preview_members(gid, "Mona Moderator")
        # refused before the group is looked at (require_member_or_admin)
        with pytest.raises(chatops.ChatopsError, match="Not allowed for guest users"):
            connect("guest").user_groups.update_members(gid, add=[MODERATOR])


def test_the_creator_manages_and_may_do_everything(connect: Connect) -> None:
    gid = group_for(connect)
    group = model_of(connect, "admin").groups[gid]
    assert (
        group.may_manage,
        group.may_add_members,
        group.may_remove_members,
        group.may_join,
        group.may_leave,
    ) == (True, True, True, True, True)


def test_the_panel_of_a_member_who_may_add_members_only(
    connect: Connect, export_dir: Path, org: Sandbox
) -> None:
    from chatops.widgets import UserGroupsPanel

    gid = group_for(connect, can_add_members_group=only(connect, MEMBER))
    other = group_for(connect)
    panel = UserGroupsPanel(connect("member"), background=False, export_dir=export_dir).load()
    try:
        assert not panel.read_only  # it may not manage any group, but may add to this one
        panel.group_field.value = other
        assert panel.members_preview_button.disabled
        assert panel.members_preview_button.tooltip.startswith("You may not add members to")
        panel.group_field.value = gid
        assert "you may not manage it but may add members" in panel.group_field._hint.value
        assert panel.deactivate_button.disabled  # managing it is still needed for that
        assert "You may not manage" in panel.deactivate_button.tooltip
        assert not panel.members_preview_button.disabled
        panel.entries.value = "Mona Moderator"
        panel.members_preview_button.click()
        assert not panel.members_apply_button.disabled
        panel.members_apply_button.click()
        panel.members_confirm.yes.click()
        assert members(connect, gid) == [MODERATOR]
        assert panel.status.kind == "ok", panel.status.text
    finally:
        panel.close()
