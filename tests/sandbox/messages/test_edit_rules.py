"""Review additions for spec 4.1, section 3 resolve transitions, 4.18 and section 8 limits."""

from __future__ import annotations

from pathlib import Path

import pytest

import chatops
from chatops import LimitError
from chatops.sandbox import Sandbox
from tests.conftest import age_messages, group_id, realm_settings, unchanged
from tests.sandbox.helpers import api_error, assert_error, fetch, post, raw, topic_ids

PREFIX = "\u2714 "
DAY = 86400


def _contents(sandbox: Sandbox, ids: list[int]) -> list[str]:
    return [sandbox.store.scalar("SELECT content FROM messages WHERE id = ?", [i]) for i in ids]


def test_notification_defaults_new_true_old_false(admin: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "defaults old", "a")
    post(sandbox, "member", "general", "defaults old", "b")
    # No notification parameters at all: the server's defaults apply.
    status, body = raw(
        sandbox,
        "admin",
        "PATCH",
        f"/messages/{mid}",
        topic="defaults new",
        propagate_mode="change_one",
    )
    assert status == 200 and body["result"] == "success", body
    new_thread = topic_ids(sandbox, "general", "defaults new")
    assert len(new_thread) == 2 and "moved here from" in _contents(sandbox, new_thread)[-1]
    old_thread = topic_ids(sandbox, "general", "defaults old")
    assert not any("moved to" in c for c in _contents(sandbox, old_thread))


def test_resolve_needs_only_the_resolve_permission(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    store = sandbox.store
    ids = [post(sandbox, "member", "general", "resolve only", f"m{i}") for i in range(2)]
    admins = group_id(store, "role:administrators")
    members = group_id(store, "role:members")
    age_messages(store, ids, 30 * DAY)
    with realm_settings(
        store,
        can_move_messages_between_topics_group=admins,
        can_resolve_topics_group=members,
        move_messages_within_stream_limit_seconds=DAY,
    ):
        # Renaming is refused, resolving and unresolving are not (nor time-limited).
        with unchanged(store), api_error("BAD_REQUEST"):
            member.messages.edit(ids[0], topic="renamed", propagate_mode="change_all")
        member.messages.edit(ids[0], topic=PREFIX + "resolve only", propagate_mode="change_all")
        assert topic_ids(sandbox, "general", PREFIX + "resolve only")[:2] == ids
        member.messages.edit(ids[0], topic="resolve only", propagate_mode="change_all")
        assert topic_ids(sandbox, "general", "resolve only")[:2] == ids


def test_edit_content_too_long(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "long edit", "short").id
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "PATCH", f"/messages/{mid}", content="x" * 10001),
            "BAD_REQUEST",
        )
        assert "too long" in body["msg"]
        with pytest.raises(LimitError):
            member.messages.edit(mid, content="x" * 10001)
    member.messages.edit(mid, content="x" * 10000)
    assert fetch(member, mid).content == "x" * 10000


def test_content_only_edit_rejects_other_propagate_modes(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_to_channel("general", "content modes", "text").id
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.messages.edit(mid, content="changed", propagate_mode="change_later")


def test_edit_history_absent_when_never_edited_or_hidden(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_to_channel("general", "history visibility", "v1").id
    msg = fetch(member, mid)
    assert msg.edit_history is None and msg.last_edit_timestamp is None
    member.messages.edit(mid, content="v2")
    assert fetch(member, mid).edit_history is not None
    with realm_settings(sandbox.store, allow_edit_history=False):
        assert fetch(member, mid).edit_history is None


def test_detached_uploads_only_when_no_reference_is_left(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox, tmp_path: Path
) -> None:
    shared = tmp_path / "shared.txt"
    shared.write_bytes(b"shared")
    mine = tmp_path / "mine.txt"
    mine.write_bytes(b"mine")
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(b"theirs")
    up_shared = member.uploads.upload(shared)
    up_mine = member.uploads.upload(mine)
    up_theirs = admin.uploads.upload(theirs)
    theirs_mid = admin.messages.send_to_channel("general", "detach", f"[t]({up_theirs.url})").id
    member.messages.send_to_channel("general", "detach", f"again [s]({up_shared.url})")
    mid = member.messages.send_to_channel(
        "general",
        "detach",
        f"[s]({up_shared.url}) [m]({up_mine.url}) [t]({up_theirs.url})",
    ).id
    # The owner drops their own link: the member's message is now the only reference.
    assert admin.messages.edit(theirs_mid, content="unlinked").detached_uploads == []
    result = member.messages.edit(mid, content="all gone")
    # shared.txt is still linked elsewhere; theirs.txt belongs to another user.
    assert [a.name for a in result.detached_uploads] == ["mine.txt"]
    att = result.detached_uploads[0]
    assert isinstance(att.create_time, int) and att.create_time > 10**12, "milliseconds"


def test_get_user_defaults_and_fields(member: chatops.Client, sandbox: Sandbox) -> None:
    uid = sandbox.accounts["admin"].user_id
    status, body = raw(sandbox, "member", "GET", f"/users/{uid}")
    assert status == 200
    user = body["user"]
    assert {
        "user_id",
        "delivery_email",
        "email",
        "full_name",
        "date_joined",
        "is_active",
        "is_owner",
        "is_admin",
        "is_guest",
        "is_bot",
        "role",
        "timezone",
        "avatar_url",
        "avatar_version",
    } <= set(user)
    assert not {"bot_type", "bot_owner_id", "is_system_bot"} & set(user), "only bots have them"
    assert user["avatar_url"] is None, "client_gravatar defaults to true"
    assert "profile_data" not in user or not user["profile_data"], (
        "include_custom_profile_fields defaults to false"
    )
    assert "max_message_id" not in user and "is_billing_admin" not in user
