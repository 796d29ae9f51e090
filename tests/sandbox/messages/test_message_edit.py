"""Spec 4.1 (edit a message) and the topic resolve transitions of section 3, over HTTP."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import chatops
from chatops import LimitError
from chatops.sandbox import Sandbox
from tests.conftest import age_messages, group_id, realm_settings, unchanged
from tests.sandbox.helpers import api_error, assert_error, fetch, post, raw, stream_id, topic_ids

PREFIX = "\u2714 "
DAY = 86400


def test_content_edit_records_history_and_timestamp(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_to_channel("general", "edit history", "first draft").id
    result = member.messages.edit(mid, content="second draft")
    assert result.detached_uploads == []
    msg = fetch(member, mid)
    assert msg.content == "second draft"
    assert msg.last_edit_timestamp is not None
    assert msg.last_moved_timestamp is None
    entry = msg.edit_history[0]
    assert entry.user_id == sandbox.accounts["member"].user_id
    assert entry.prev_content == "first draft"
    assert entry.prev_rendered_content == "<p>first draft</p>"
    assert entry.prev_topic is None and entry.prev_stream is None


def test_content_with_stream_id_is_refused(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "rule 1", "hello").id
    with unchanged(sandbox.store):
        body = assert_error(
            raw(
                sandbox,
                "member",
                "PATCH",
                f"/messages/{mid}",
                content="new",
                stream_id=stream_id(sandbox, "design"),
            ),
            "BAD_REQUEST",
        )
    assert body["msg"] == "Cannot change message content while changing channel"
    with pytest.raises(ValueError, match="stream_id"):
        member.messages.edit(mid, content="new", stream_id=stream_id(sandbox, "design"))


def test_topic_or_stream_on_direct_message_is_refused(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_direct([sandbox.accounts["admin"].user_id], "a direct message").id
    with unchanged(sandbox.store):
        with api_error("BAD_REQUEST"):
            member.messages.edit(mid, topic="a topic")
        with api_error("BAD_REQUEST"):
            member.messages.edit(mid, stream_id=stream_id(sandbox, "general"))


def test_nothing_to_change_and_bad_propagate_mode(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "nothing", "hello").id
    with unchanged(sandbox.store):
        body = assert_error(raw(sandbox, "member", "PATCH", f"/messages/{mid}"), "BAD_REQUEST")
        assert body["msg"] == "Nothing to change"
        with pytest.raises(ValueError):
            member.messages.edit(mid)
        with api_error("BAD_REQUEST"):
            member.messages.edit(mid, content="x", propagate_mode="change_all")


def test_only_the_sender_edits_content(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_to_channel("general", "ownership", "mine").id
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.messages.edit(mid, content="not yours")


def test_editing_disabled_by_the_organization(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "disabled", "text").id
    with realm_settings(sandbox.store, allow_message_editing=False):
        with unchanged(sandbox.store), api_error("BAD_REQUEST") as info:
            member.messages.edit(mid, content="changed")
    assert "turned off" in info.value.msg


def test_content_edit_time_limit(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "too late", "text").id
    age_messages(sandbox.store, [mid], 3600)
    with realm_settings(sandbox.store, message_content_edit_limit_seconds=600):
        with unchanged(sandbox.store), api_error("BAD_REQUEST"):
            member.messages.edit(mid, content="changed")
    with realm_settings(sandbox.store, message_content_edit_limit_seconds=None):
        member.messages.edit(mid, content="no limit now")
    assert fetch(member, mid).content == "no limit now"


def test_move_permission_comes_from_group_settings(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    store = sandbox.store
    mid = post(sandbox, "member", "general", "perm topic", "text")
    admins = group_id(store, "role:administrators")
    with realm_settings(
        store,
        can_move_messages_between_topics_group=admins,
        can_move_messages_between_channels_group=admins,
        can_resolve_topics_group=admins,
    ):
        with unchanged(store):
            with api_error("BAD_REQUEST"):
                member.messages.edit(mid, topic="elsewhere")
            with api_error("BAD_REQUEST"):
                member.messages.edit(mid, stream_id=stream_id(sandbox, "design"))
            with api_error("BAD_REQUEST"):
                member.messages.edit(mid, topic=PREFIX + "perm topic", propagate_mode="change_all")
        admin.messages.edit(mid, topic="elsewhere")
    assert fetch(member, mid).subject == "elsewhere"


def test_move_permission_by_anonymous_group(member: chatops.Client, sandbox: Sandbox) -> None:
    store = sandbox.store
    mid = post(sandbox, "member", "general", "anon group", "text")
    setting = {"direct_members": [sandbox.accounts["member"].user_id], "direct_subgroups": []}
    with realm_settings(store, can_move_messages_between_topics_group=setting):
        member.messages.edit(mid, topic="anon group moved")
    assert fetch(member, mid).subject == "anon group moved"


def test_move_time_limit_change_all_reports_counts(
    member: chatops.Client, moderator: chatops.Client, sandbox: Sandbox
) -> None:
    ids = [post(sandbox, "member", "general", "old topic", f"m{i}") for i in range(4)]
    age_messages(sandbox.store, ids[:2], 10 * DAY)
    with realm_settings(sandbox.store, move_messages_within_stream_limit_seconds=7 * DAY):
        with (
            unchanged(sandbox.store),
            api_error(
                "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
                first_message_id_allowed_to_move=ids[2],
                total_messages_allowed_to_move=2,
                total_messages_in_topic=4,
            ),
        ):
            member.messages.edit(ids[0], topic="new topic", propagate_mode="change_all")
        # The documented recovery: move what is allowed with change_later from that id.
        member.messages.edit(
            ids[2],
            topic="new topic",
            propagate_mode="change_later",
            send_notification_to_new_thread=False,
        )
        assert topic_ids(sandbox, "general", "new topic") == ids[2:]
        # Moderators and administrators are not bound by the limit.
        moderator.messages.edit(
            ids[0],
            topic="new topic",
            propagate_mode="change_all",
            send_notification_to_new_thread=False,
        )
    assert topic_ids(sandbox, "general", "new topic") == ids


def test_move_time_limit_with_nothing_allowed_gives_null(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    ids = [post(sandbox, "member", "general", "ancient topic", f"m{i}") for i in range(2)]
    age_messages(sandbox.store, ids, 30 * DAY)
    with realm_settings(sandbox.store, move_messages_within_stream_limit_seconds=DAY):
        with (
            unchanged(sandbox.store),
            api_error(
                "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
                first_message_id_allowed_to_move=None,
                total_messages_allowed_to_move=0,
                total_messages_in_topic=2,
            ),
        ):
            member.messages.edit(ids[0], topic="x", propagate_mode="change_all")
        with unchanged(sandbox.store), api_error("BAD_REQUEST"):
            member.messages.edit(ids[0], topic="x", propagate_mode="change_one")


def test_move_between_channels_time_limit(member: chatops.Client, sandbox: Sandbox) -> None:
    ids = [post(sandbox, "member", "general", "cross move", f"m{i}") for i in range(3)]
    age_messages(sandbox.store, ids[:1], 3 * DAY)
    with realm_settings(sandbox.store, move_messages_between_streams_limit_seconds=DAY):
        with (
            unchanged(sandbox.store),
            api_error(
                "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
                first_message_id_allowed_to_move=ids[1],
                total_messages_allowed_to_move=2,
                total_messages_in_topic=3,
            ),
        ):
            member.messages.edit(
                ids[0], stream_id=stream_id(sandbox, "design"), propagate_mode="change_all"
            )


def test_propagate_modes(admin: chatops.Client, sandbox: Sandbox) -> None:
    ids = [post(sandbox, "member", "general", "modes", f"m{i}") for i in range(5)]
    admin.messages.edit(
        ids[4],
        topic="modes one",
        propagate_mode="change_one",
        send_notification_to_new_thread=False,
    )
    assert topic_ids(sandbox, "general", "modes one") == [ids[4]]
    admin.messages.edit(
        ids[2],
        topic="modes later",
        propagate_mode="change_later",
        send_notification_to_new_thread=False,
    )
    assert topic_ids(sandbox, "general", "modes later") == ids[2:4]
    admin.messages.edit(
        ids[1],
        topic="modes all",
        propagate_mode="change_all",
        send_notification_to_new_thread=False,
    )
    assert topic_ids(sandbox, "general", "modes all") == ids[:2]
    moved = fetch(admin, ids[0])
    assert moved.last_moved_timestamp is not None
    assert moved.last_edit_timestamp is None
    assert (
        moved.edit_history[0].prev_topic == "modes" and moved.edit_history[0].topic == "modes all"
    )


def test_move_notifications(admin: chatops.Client, sandbox: Sandbox) -> None:
    post(sandbox, "member", "general", "notify me", "a")
    mid = post(sandbox, "member", "general", "notify me", "b")
    admin.messages.edit(
        mid, topic="notified", propagate_mode="change_all", send_notification_to_old_thread=True
    )
    new_thread = topic_ids(sandbox, "general", "notified")
    old_thread = topic_ids(sandbox, "general", "notify me")
    bot = sandbox.store.one("SELECT id FROM users WHERE is_system_bot = 1")
    assert bot is not None
    last_new = sandbox.store.one("SELECT * FROM messages WHERE id = ?", [new_thread[-1]])
    assert last_new is not None and last_new["sender_id"] == bot["id"]
    assert "moved here from" in last_new["content"]
    assert len(old_thread) == 1 and "moved to" in sandbox.store.scalar(
        "SELECT content FROM messages WHERE id = ?", [old_thread[0]]
    )


def test_move_to_another_channel(admin: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "to design", "x")
    admin.messages.edit(
        mid,
        stream_id=stream_id(sandbox, "design"),
        propagate_mode="change_all",
        send_notification_to_new_thread=False,
    )
    msg = fetch(admin, mid)
    assert msg.display_recipient == "design"
    assert msg.edit_history[0].prev_stream == stream_id(sandbox, "general")
    assert msg.edit_history[0].stream == stream_id(sandbox, "design")


def test_resolve_and_unresolve(member: chatops.Client, sandbox: Sandbox) -> None:
    ids = [post(sandbox, "member", "general", "resolvable", f"m{i}") for i in range(3)]
    age_messages(sandbox.store, ids, 60 * DAY)  # resolving is not bound by move time limits
    member.messages.edit(ids[0], topic=PREFIX + "resolvable", propagate_mode="change_all")
    thread = topic_ids(sandbox, "general", PREFIX + "resolvable")
    assert thread[:3] == ids and len(thread) == 4
    notice = sandbox.store.one("SELECT * FROM messages WHERE id = ?", [thread[3]])
    assert notice is not None and "has marked this topic as resolved" in notice["content"]
    msg = fetch(member, ids[0])
    assert msg.last_moved_timestamp is None, "resolving does not count as a move"
    assert msg.edit_history[0].prev_topic == "resolvable"
    # Pure resolve: no "moved here" notification.
    assert not any(
        "moved here" in sandbox.store.scalar("SELECT content FROM messages WHERE id = ?", [i])
        for i in thread
    )
    member.messages.edit(ids[0], topic="resolvable", propagate_mode="change_all")
    back = topic_ids(sandbox, "general", "resolvable")
    assert back[:3] == ids
    last = sandbox.store.scalar("SELECT content FROM messages WHERE id = ?", [back[-1]])
    assert "has marked this topic as unresolved" in last


def test_resolving_a_sixty_character_topic_cuts_it_and_counts_as_resolving(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    """As the real server: the resolved name of a topic at the limit is cut to fit
    (``truncate_topic``), and the rename still counts as resolving it (the name before the
    cut is the prefix and the old topic)."""
    long = "q" * 60
    mid = post(sandbox, "member", "general", long, "a question at the limit")
    status, body = raw(
        sandbox,
        "member",
        "PATCH",
        f"/messages/{mid}",
        topic=PREFIX + long,
        propagate_mode="change_all",
    )
    assert status == 200, body
    resolved = PREFIX + "q" * 55 + "..."
    thread = topic_ids(sandbox, "general", resolved)
    assert thread[0] == mid and len(thread) == 2
    notice = sandbox.store.one("SELECT * FROM messages WHERE id = ?", [thread[1]])
    assert notice is not None and "has marked this topic as resolved" in notice["content"]


def test_empty_topic_cannot_be_resolved(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "", "in general chat")
    with unchanged(sandbox.store), api_error("BAD_REQUEST") as info:
        member.messages.edit(mid, topic=PREFIX, propagate_mode="change_all")
    assert "cannot be marked as resolved" in info.value.msg


def test_prev_content_sha256(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = member.messages.send_to_channel("general", "hash check", "original").id
    wrong = hashlib.sha256(b"something else").hexdigest()
    with unchanged(sandbox.store), api_error("EXPECTATION_MISMATCH"):
        member.messages.edit(mid, content="x", prev_content_sha256=wrong)
    right = hashlib.sha256(b"original").hexdigest()
    member.messages.edit(mid, content="checked", prev_content_sha256=right)
    member.messages.edit(mid, content="checked again", prev_content="checked")
    assert fetch(member, mid).content == "checked again"


def test_stream_wildcard_needs_permission_in_large_channels(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    admins = group_id(sandbox.store, "role:administrators")
    mid = member.messages.send_to_channel("general", "wildcards", "hello").id
    aid = admin.messages.send_to_channel("general", "wildcards", "hello").id
    with realm_settings(sandbox.store, can_mention_many_users_group=admins):
        with unchanged(sandbox.store), api_error("STREAM_WILDCARD_MENTION_NOT_ALLOWED"):
            member.messages.edit(mid, content="hey @**all**")
        admin.messages.edit(aid, content="hey @**all**")


def test_topic_wildcard_needs_permission_in_busy_topics(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    admins = group_id(sandbox.store, "role:administrators")
    senders = [
        r["user_id"]
        for r in sandbox.store.query(
            "SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id "
            "WHERE s.stream_id = ? AND u.is_active = 1 AND u.is_bot = 0 LIMIT 17",
            [stream_id(sandbox, "general")],
        )
    ]
    for uid in senders:
        post(sandbox, uid, "general", "busy topic", "me too")
    mid = member.messages.send_to_channel("general", "busy topic", "hello").id
    with realm_settings(sandbox.store, can_mention_many_users_group=admins):
        with unchanged(sandbox.store), api_error("TOPIC_WILDCARD_MENTION_NOT_ALLOWED"):
            member.messages.edit(mid, content="hey @**topic**")


def test_topic_length_and_mandatory_topics(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "length", "x")
    # the typed client refuses a topic past the limit before sending
    with unchanged(sandbox.store), pytest.raises(LimitError, match="topic"):
        member.messages.edit(mid, topic="t" * 61)
    # the server, as the real one (truncate_topic), cuts it to fit: 57 characters and "..."
    status, body = raw(sandbox, "member", "PATCH", f"/messages/{mid}", topic="t" * 61)
    assert status == 200, body
    assert fetch(member, mid).topic == "t" * 57 + "..."
    with realm_settings(sandbox.store, topics_policy="disable_empty_topic"):
        for empty in ("", "(no topic)", "general chat"):
            with unchanged(sandbox.store), api_error("BAD_REQUEST"):
                member.messages.edit(mid, topic=empty)


def test_no_topic_is_read_as_the_empty_topic(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "named", "x")
    member.messages.edit(mid, topic="(no topic)")
    assert sandbox.store.scalar("SELECT topic FROM messages WHERE id = ?", [mid]) == ""
    assert fetch(member, mid, allow_empty_topic_name=False).subject == "general chat"
    assert fetch(member, mid, allow_empty_topic_name=True).subject == ""


def test_partial_move_under_protected_history(
    admin: chatops.Client, client_for, sandbox: Sandbox
) -> None:  # type: ignore[no-untyped-def]
    store = sandbox.store
    private = store.one(
        "SELECT * FROM streams WHERE invite_only = 1 AND history_public_to_subscribers = 0 "
        "AND is_archived = 0 ORDER BY id LIMIT 1"
    )
    assert private is not None
    early = [post(sandbox, "admin", private["name"], "protected", f"early {i}") for i in range(3)]
    member_id = sandbox.accounts["member"].user_id
    store.execute(
        "DELETE FROM subscriptions WHERE user_id = ? AND stream_id = ?", [member_id, private["id"]]
    )
    from chatops.sandbox import channels

    channels.subscribe(store, member_id, private["id"])
    late = [post(sandbox, "admin", private["name"], "protected", f"late {i}") for i in range(2)]
    member = client_for("member")
    member.messages.edit(
        late[0],
        topic="protected moved",
        propagate_mode="change_all",
        send_notification_to_new_thread=False,
    )
    assert topic_ids(sandbox, private["name"], "protected moved") == late
    assert topic_ids(sandbox, private["name"], "protected") == early


def test_detached_uploads(member: chatops.Client, sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(b"quarterly numbers")
    upload = member.uploads.upload(path)
    mid = member.messages.send_to_channel(
        "general", "uploads", f"see [report.txt]({upload.url})"
    ).id
    result = member.messages.edit(mid, content="never mind")
    assert [a.name for a in result.detached_uploads] == ["report.txt"]
    att = result.detached_uploads[0]
    assert att.path_id == upload.url.removeprefix("/user_uploads/")
    assert att.size == len(b"quarterly numbers")
    assert att.messages == []
