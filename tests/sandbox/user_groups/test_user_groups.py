"""User groups over HTTP: deactivation (spec 4.21) and its objections, reactivation, membership."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import realm as realm_mod
from tests.conftest import group_id, unchanged
from tests.sandbox.helpers import api_error, assert_error, raw

MENTIONED = 8

Make = Callable[..., chatops.Client]


@pytest.fixture
def owner(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("owner", fresh_sandbox)


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


def _user_id(sb: Sandbox, account: str) -> int:
    return sb.accounts[account].user_id


def _channel_id(sb: Sandbox, name: str) -> int:
    return int(sb.store.scalar("SELECT id FROM streams WHERE name = ?", [name]))


def _flags(sb: Sandbox, user_id: int, message_id: int) -> int:
    return int(
        sb.store.scalar(
            "SELECT flags FROM message_flags WHERE user_id = ? AND message_id = ?",
            [user_id, message_id],
        )
        or 0
    )


def test_deactivation_names_every_use_then_succeeds_and_mentions_stop(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    sb = fresh_sandbox
    member_id = _user_id(sb, "member")
    gid = owner.user_groups.create("oncall", members=[member_id], description="On call")
    other = owner.user_groups.create("escalation", members=[_user_id(sb, "owner")])
    holder = owner.user_groups.create("holder", members=[_user_id(sb, "owner")])
    general = _channel_id(sb, "general")
    admins = group_id(sb.store, "role:administrators")

    # a realm setting (inside an anonymous group), a channel setting, another group's setting,
    # and a subgroup
    owner.realm.update(
        can_invite_users_group={"direct_members": [], "direct_subgroups": [gid, admins]}
    )
    sb.store.execute(
        "UPDATE streams SET settings = ? WHERE id = ?",
        [json.dumps({"can_remove_subscribers_group": gid}), general],
    )
    owner.user_groups.update(other, settings={"can_mention_group": gid})
    owner.user_groups.update_subgroups(holder, add=[gid])

    # before: a mention of the group notifies its member
    before = owner.messages.send_to_channel("general", "pager", "@*oncall* please look").id
    assert _flags(sb, member_id, before) & MENTIONED

    with unchanged(sb.store), api_error("CANNOT_DEACTIVATE_GROUP_IN_USE") as info:
        owner.user_groups.deactivate(gid)
    objections = info.value.objections
    by_type = {o["type"]: o for o in objections}
    assert set(by_type) == {"subgroup", "realm", "channel", "user_group"}
    assert by_type["subgroup"]["supergroup_ids"] == [holder]
    assert by_type["realm"]["settings"] == ["can_invite_users_group"]
    assert by_type["channel"] == {
        "type": "channel",
        "channel_id": general,
        "settings": ["can_remove_subscribers_group"],
    }
    assert by_type["user_group"] == {
        "type": "user_group",
        "group_id": other,
        "settings": ["can_mention_group"],
    }

    # remove the uses, then it deactivates
    owner.realm.update(can_invite_users_group=group_id(sb.store, "role:members"))
    sb.store.execute("UPDATE streams SET settings = '{}' WHERE id = ?", [general])
    owner.user_groups.update(other, settings={"can_mention_group": admins})
    owner.user_groups.update_subgroups(holder, delete=[gid])
    owner.user_groups.deactivate(gid)
    assert owner.user_groups.get(gid).deactivated
    assert gid not in [g.id for g in owner.user_groups.list()]

    after = owner.messages.send_to_channel("general", "pager", "@*oncall* anyone?").id
    assert not _flags(sb, member_id, after) & MENTIONED

    # and it no longer grants permissions: not usable as a setting value either
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.realm.update(can_invite_users_group=gid)

    # reactivation (feature level 386) restores mentions
    owner.user_groups.reactivate(gid)
    assert not owner.user_groups.get(gid).deactivated
    again = owner.messages.send_to_channel("general", "pager", "@*oncall* back").id
    assert _flags(sb, member_id, again) & MENTIONED


def test_deactivated_group_grants_no_permission(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    sb = fresh_sandbox
    gid = owner.user_groups.create("inviters", members=[_user_id(sb, "member")])

    user = sb.store.one("SELECT * FROM users WHERE id = ?", [_user_id(sb, "member")])
    assert user is not None
    assert realm_mod.user_has_setting(sb.store, user, gid)
    owner.user_groups.deactivate(gid)
    assert not realm_mod.user_has_setting(sb.store, user, gid)
    assert not realm_mod.user_has_setting(
        sb.store, user, {"direct_members": [], "direct_subgroups": [gid]}
    )


def test_deactivate_errors(
    fresh_sandbox: Sandbox, owner: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Invalid user group"):
        owner.user_groups.deactivate(99999)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.deactivate(group_id(sb.store, "role:members"))
    alumni = group_id(sb.store, "alumni")
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        member.user_groups.deactivate(alumni)
    owner.user_groups.deactivate(alumni)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.deactivate(alumni)
    owner.user_groups.reactivate(alumni)


def test_create_update_and_members(
    fresh_sandbox: Sandbox, owner: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    mid, oid = _user_id(sb, "member"), _user_id(sb, "owner")
    gid = owner.user_groups.create("writers", members=[oid], description="Docs")
    group = owner.user_groups.get(gid)
    assert group.members == [oid] and group.creator_id == oid
    assert group.can_manage_group == chatops.AnonymousGroup(direct_members=[oid])

    for bad in ("writers", "role:x", "@x", "", "x" * 101):
        with unchanged(sb.store), api_error("BAD_REQUEST"):
            owner.user_groups.create(bad, members=[])
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.create("ghosts", members=[99999])
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Not allowed for guest users"):
        client_guest = chatops.Client.from_zuliprc(sb.zuliprc("guest"))
        try:
            client_guest.user_groups.create("guests-own", members=[])
        finally:
            client_guest.close()

    owner.user_groups.update(gid, name="authors", description="Documentation")
    owner.user_groups.update_members(gid, add=[mid])
    assert sorted(owner.user_groups.get(gid).members) == sorted([oid, mid])
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.update_members(gid, add=[mid])
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.update_members(gid, delete=[_user_id(sb, "guest")])
    # the member may leave (can_leave_group defaults to everyone) but not add others
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        member.user_groups.update_members(gid, add=[_user_id(sb, "moderator")])
    member.user_groups.update_members(gid, delete=[mid])

    # group settings: validation and the ``old`` check live in group_settings
    members_group = group_id(sb.store, "role:members")
    owner.user_groups.update(gid, settings={"can_join_group": members_group})
    with unchanged(sb.store), api_error("EXPECTATION_MISMATCH"):
        owner.user_groups.update(
            gid, settings={"can_join_group": (group_id(sb.store, "role:nobody"), gid)}
        )
    member.user_groups.update_members(gid, add=[mid])  # joining is now allowed

    # subgroups cannot form a cycle
    child = owner.user_groups.create("child", members=[], subgroups=[gid])
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.user_groups.update_subgroups(gid, add=[child])


def test_unknown_group_setting_value_is_refused(fresh_sandbox: Sandbox) -> None:
    body = assert_error(
        raw(
            fresh_sandbox,
            "owner",
            "POST",
            "/user_groups/create",
            name="bad-setting",
            description="",
            members="[]",
            can_manage_group="[1]",
        ),
        "BAD_REQUEST",
    )
    assert "can_manage_group" in body["msg"] and "var_name" not in body
