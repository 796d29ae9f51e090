"""Sending and fetching messages, topics of a channel (4.10) and mark-all-read (4.19)."""

from __future__ import annotations

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox, channels
from tests.conftest import realm_settings, unchanged
from tests.sandbox.helpers import api_error, fetch, post, stream_id


def test_send_and_fetch_round_trip(member: chatops.Client, sandbox: Sandbox) -> None:
    sent = member.messages.send_to_channel("general", "round trip", "**bold** move")
    msg = fetch(member, sent.id, apply_markdown=True)
    assert msg.content == "<p><strong>bold</strong> move</p>"
    assert msg.content_type == "text/html"
    assert msg.type == "stream" and msg.display_recipient == "general"
    assert msg.sender_id == sandbox.accounts["member"].user_id
    raw = fetch(member, sent.id)
    assert raw.content == "**bold** move" and raw.content_type == "text/x-markdown"


def test_empty_topic_and_its_display_name(member: chatops.Client, sandbox: Sandbox) -> None:
    for requested in ("", "(no topic)", "general chat"):
        mid = member.messages.send_to_channel("general", requested, "no topic here").id
        assert sandbox.store.scalar("SELECT topic FROM messages WHERE id = ?", [mid]) == ""
        assert fetch(member, mid, allow_empty_topic_name=False).subject == "general chat"
        assert fetch(member, mid, allow_empty_topic_name=True).subject == ""


def test_send_to_missing_channel(member: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store), api_error("STREAM_DOES_NOT_EXIST", stream="no-such-channel"):
        member.messages.send_to_channel("no-such-channel", "t", "x")


def test_send_respects_mandatory_topics(member: chatops.Client, sandbox: Sandbox) -> None:
    with realm_settings(sandbox.store, topics_policy="disable_empty_topic"):
        with unchanged(sandbox.store), api_error("BAD_REQUEST"):
            member.messages.send_to_channel("general", "", "x")


def test_direct_message(member: chatops.Client, admin: chatops.Client, sandbox: Sandbox) -> None:
    admin_id = sandbox.accounts["admin"].user_id
    mid = member.messages.send_direct([admin_id], "just between us").id
    msg = fetch(admin, mid)
    assert msg.type == "private" and msg.subject == ""
    assert {r.id for r in msg.display_recipient} == {admin_id, sandbox.accounts["member"].user_id}


def test_message_ids_hides_what_a_user_cannot_read(
    guest: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_direct([sandbox.accounts["admin"].user_id], "private").id
    assert guest.messages.get(message_ids=[mid]).messages == []


def test_anchors_and_found_flags(member: chatops.Client, sandbox: Sandbox) -> None:
    narrow = [
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": "anchors"},
    ]
    ids = [post(sandbox, "member", "general", "anchors", f"n{i}") for i in range(5)]
    newest = member.messages.get(anchor="newest", num_before=2, narrow=narrow)
    assert [m.id for m in newest.messages] == ids[-2:]
    assert newest.found_newest and not newest.found_oldest
    oldest = member.messages.get(anchor="oldest", num_after=10, narrow=narrow)
    assert [m.id for m in oldest.messages] == ids
    assert oldest.found_oldest and oldest.found_newest
    middle = member.messages.get(anchor=ids[2], num_before=1, num_after=1, narrow=narrow)
    assert [m.id for m in middle.messages] == ids[1:4] and middle.found_anchor
    excluded = member.messages.get(
        anchor=ids[2], num_before=0, num_after=2, include_anchor=False, narrow=narrow
    )
    assert [m.id for m in excluded.messages] == ids[3:5]


def test_first_unread_anchor(
    sandbox: Sandbox, member: chatops.Client, admin: chatops.Client
) -> None:
    admin.messages.mark_all_as_read()
    mid = post(sandbox, "member", "general", "unread anchor", "please read")
    page = admin.messages.get(anchor="first_unread", num_before=0, num_after=0)
    assert [m.id for m in page.messages] == [mid]


def test_too_many_messages_requested(member: chatops.Client, sandbox: Sandbox) -> None:
    import httpx as _httpx

    acc = sandbox.accounts["member"]
    r = _httpx.get(
        f"{sandbox.site}/api/v1/messages",
        params={"anchor": "newest", "num_before": 4000, "num_after": 1001},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 400 and r.json()["msg"] == "Too many messages requested (maximum 5000)."


def test_narrows(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "design", "narrow test", "a unique zebra word")
    by_search = member.messages.get(
        anchor="newest", num_before=50, narrow=[{"operator": "search", "operand": "zebra"}]
    )
    assert mid in [m.id for m in by_search.messages]
    by_sender = member.messages.get(
        anchor="newest",
        num_before=20,
        narrow=[
            {"operator": "sender", "operand": sandbox.accounts["member"].user_id},
            {"operator": "channel", "operand": stream_id(sandbox, "design")},
        ],
    )
    assert by_sender.messages and all(
        m.sender_id == sandbox.accounts["member"].user_id for m in by_sender.messages
    )
    with api_error("BAD_NARROW"):
        member.messages.get(
            anchor="newest", num_before=1, narrow=[{"operator": "bogus", "operand": "x"}]
        )


def test_channel_topics(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = stream_id(sandbox, "general")
    post(sandbox, "member", "general", "", "general chat message")
    mid = post(sandbox, "member", "general", "latest topic", "newest")
    topics = member.messages.topics(sid, allow_empty_topic_name=False)
    assert topics[0].name == "latest topic" and topics[0].max_id == mid
    names = [t.name for t in topics]
    assert "general chat" in names and "" not in names
    raw = [t.name for t in member.messages.topics(sid, allow_empty_topic_name=True)]
    assert "" in raw and "general chat" not in raw
    assert [t.max_id for t in topics] == sorted((t.max_id for t in topics), reverse=True)


def test_topics_of_inaccessible_or_missing_channel(guest: chatops.Client, sandbox: Sandbox) -> None:
    private = sandbox.store.scalar("SELECT id FROM streams WHERE invite_only = 1 LIMIT 1")
    with api_error("BAD_REQUEST"):
        guest.messages.topics(int(private))
    with api_error("BAD_REQUEST"):
        guest.messages.topics(999_999)


def test_topics_under_protected_history(client_for, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    store = sandbox.store
    private = store.one(
        "SELECT * FROM streams WHERE invite_only = 1 AND history_public_to_subscribers = 0 "
        "AND is_archived = 0 ORDER BY id DESC LIMIT 1"
    )
    assert private is not None
    post(sandbox, "admin", private["name"], "before you came", "old")
    moderator_id = sandbox.accounts["moderator"].user_id
    store.execute(
        "DELETE FROM subscriptions WHERE user_id = ? AND stream_id = ?",
        [moderator_id, private["id"]],
    )
    channels.subscribe(store, moderator_id, private["id"])
    post(sandbox, "admin", private["name"], "after you came", "new")
    names = [t.name for t in client_for("moderator").messages.topics(private["id"])]
    assert names == ["after you came"]
    admin_names = [t.name for t in client_for("admin").messages.topics(private["id"])]
    assert "before you came" in admin_names


def test_mark_all_as_read(member: chatops.Client, sandbox: Sandbox) -> None:
    from chatops.sandbox import topics

    post(sandbox, "admin", "general", "unread", "for you")
    uid = sandbox.accounts["member"].user_id
    assert topics.unread_count(sandbox.store, uid) > 0
    member.messages.mark_all_as_read()
    assert topics.unread_count(sandbox.store, uid) == 0


def test_mark_all_as_read_in_batches_reports_incomplete(fresh_sandbox: Sandbox) -> None:
    from chatops.sandbox import topics

    store = fresh_sandbox.store
    uid = fresh_sandbox.accounts["admin"].user_id
    ids = [r["id"] for r in store.query("SELECT id FROM messages ORDER BY id LIMIT 2500")]
    store.executemany(
        "INSERT OR REPLACE INTO message_flags (user_id, message_id, flags) VALUES (?, ?, 0)",
        [(uid, i) for i in ids],
    )
    user = store.one("SELECT * FROM users WHERE id = ?", [uid])
    assert user is not None
    first = topics.mark_all_as_read(store, user, budget_seconds=0)
    assert first == {"complete": False}
    remaining = topics.unread_count(store, uid)
    assert 0 < remaining < 2500
    # The newest are marked first.
    newest_unread = store.scalar(
        "SELECT max(message_id) FROM message_flags WHERE user_id = ? AND (flags & 1) = 0", [uid]
    )
    assert newest_unread < max(ids)
    # The client repeats until the server reports completion.
    client = chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin"))
    client.messages.mark_all_as_read()
    assert topics.unread_count(store, uid) == 0


def test_delete_message_permissions(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    theirs = post(sandbox, "moderator", "general", "deletions", "not yours")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.messages.delete(theirs)
    mine = member.messages.send_to_channel("general", "deletions", "mine").id
    member.messages.delete(mine)
    admin.messages.delete(theirs)
    assert sandbox.store.one("SELECT 1 FROM messages WHERE id IN (?, ?)", [mine, theirs]) is None


@pytest.mark.parametrize("path", ["/api/v1/no/such/endpoint", "/api/v1/messages/abc"])
def test_unknown_paths_get_the_envelope(sandbox: Sandbox, path: str) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.get(sandbox.site + path, auth=(acc.email, acc.api_key))
    assert r.status_code == 404
    assert r.json()["result"] == "error" and "code" in r.json()
