"""POST /register's initial state as the real server builds it (facts 3.1, fetch_initial_state_data).

Each ``fetch_event_types`` value brings its own keys and no others; none brings all; unread
counts follow the per-user flags; ``include_subscribers`` and the client capabilities change
the shapes the way the real server's do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox, initial_state
from tests.conftest import unchanged
from tests.sandbox.helpers import stream_id

ALWAYS = {"zulip_version", "zulip_merge_base", "zulip_feature_level", "queue_id", "last_event_id"}

#: fetch_event_types value -> keys the real server returns for it (a sample of the big blocks)
EXPECTED: dict[str, set[str]] = {
    "alert_words": {"alert_words"},
    "custom_profile_fields": {"custom_profile_fields", "custom_profile_field_types"},
    "message": {"max_message_id"},
    "drafts": {"drafts"},
    "muted_users": {"muted_users"},
    "presence": {"presences", "server_timestamp"},
    "realm_bot": {"realm_bots"},
    "realm_emoji": {"realm_emoji"},
    "realm_user_groups": {"realm_user_groups"},
    "realm_user": {
        "realm_users",
        "realm_non_active_users",
        "cross_realm_bots",
        "user_id",
        "email",
        "full_name",
        "is_admin",
        "avatar_url",
        "can_create_streams",
    },
    "recent_private_conversations": {"recent_private_conversations"},
    "subscription": {"subscriptions", "unsubscribed", "never_subscribed"},
    "starred_messages": {"starred_messages"},
    "stream": {"streams"},
    "user_settings": {"user_settings"},
    "user_status": {"user_status"},
    "user_topic": {"user_topics"},
    "muted_topics": {"muted_topics"},
    "realm_linkifiers": {"realm_linkifiers"},
    "realm_filters": {"realm_filters"},
    "default_streams": {"realm_default_streams"},
    "scheduled_messages": {"scheduled_messages"},
    "saved_snippets": {"saved_snippets"},
    "navigation_views": {"navigation_views"},
    "channel_folders": {"channel_folders"},
    "realm_playgrounds": {"realm_playgrounds"},
    "realm_user_settings_defaults": {"realm_user_settings_defaults"},
}


class Session:
    """Raw ``POST /register`` calls of one demo account."""

    def __init__(self, sandbox: Sandbox, account: str) -> None:
        acc = sandbox.accounts[account]
        self.http = httpx.Client(base_url=f"{sandbox.site}/api/v1", auth=(acc.email, acc.api_key))

    def register(self, expect: int = 200, **params: Any) -> dict[str, Any]:
        body = {k: json.dumps(v) for k, v in params.items()}
        r = self.http.post("/register", data=body)
        assert r.status_code == expect, r.text
        result: dict[str, Any] = r.json()
        return result


@pytest.fixture
def member_session(sandbox: Sandbox) -> Iterator[Session]:
    s = Session(sandbox, "member")
    yield s
    s.http.close()


@pytest.mark.parametrize("fetch", sorted(EXPECTED))
def test_each_fetch_event_type_brings_its_keys_only(member_session: Session, fetch: str) -> None:
    body = member_session.register(fetch_event_types=[fetch])
    keys = set(body) - {"result", "msg"}
    assert EXPECTED[fetch] <= keys
    others = set().union(*(v for k, v in EXPECTED.items() if k != fetch)) - EXPECTED[fetch]
    assert not keys & others, f"{fetch} brought {sorted(keys & others)}"
    assert ALWAYS <= keys


def test_no_fetch_event_types_brings_every_block(member_session: Session) -> None:
    body = member_session.register()
    for fetch, keys in EXPECTED.items():
        if fetch == "muted_topics":
            continue  # asked with everything, both muted_topics and user_topics come
        assert keys <= set(body), f"{fetch}: missing {sorted(keys - set(body))}"
    assert "muted_topics" in body and "unread_msgs" in body
    assert "realm_name" in body and "max_file_upload_size_mib" in body


def test_event_types_choose_the_state_when_fetch_event_types_is_absent(
    member_session: Session,
) -> None:
    body = member_session.register(event_types=["message"])
    assert "max_message_id" in body
    assert "subscriptions" not in body and "realm_users" not in body
    both = member_session.register(event_types=["message"], fetch_event_types=["subscription"])
    assert "subscriptions" in both and "max_message_id" not in both


def test_unread_msgs_needs_message_and_flag_events(member_session: Session) -> None:
    assert "unread_msgs" not in member_session.register(fetch_event_types=["message"])
    body = member_session.register(fetch_event_types=["message", "update_message_flags"])
    unread = body["unread_msgs"]
    assert set(unread) == {"count", "pms", "streams", "huddles", "mentions", "old_unreads_missing"}


def test_muted_topics_left_out_for_clients_that_read_user_topic(
    member_session: Session,
) -> None:
    body = member_session.register(fetch_event_types=["muted_topics", "user_topic"])
    assert "user_topics" in body and "muted_topics" not in body


def test_legacy_settings_only_without_the_user_settings_object_capability(
    member_session: Session,
) -> None:
    fetch = ["update_display_settings", "update_global_notifications", "user_settings"]
    legacy = member_session.register(fetch_event_types=fetch)
    assert legacy["twenty_four_hour_time"] is False
    assert legacy["pm_content_in_desktop_notifications"] is True
    assert legacy["user_settings"]["send_private_typing_notifications"] is True
    modern = member_session.register(
        fetch_event_types=fetch, client_capabilities={"user_settings_object": True}
    )
    assert "twenty_four_hour_time" not in modern
    assert modern["user_settings"]["twenty_four_hour_time"] is False


def test_include_subscribers(member_session: Session, sandbox: Sandbox) -> None:
    plain = member_session.register(fetch_event_types=["subscription"])
    assert all("subscribers" not in s for s in plain["subscriptions"])
    full = member_session.register(fetch_event_types=["subscription"], include_subscribers=True)
    general = stream_id(sandbox, "general")
    sub = next(s for s in full["subscriptions"] if s["stream_id"] == general)
    stored = {
        r["user_id"]
        for r in sandbox.store.query(
            "SELECT user_id FROM subscriptions WHERE stream_id = ? AND active = 1", [general]
        )
    }
    assert set(sub["subscribers"]) == stored
    assert sandbox.accounts["member"].user_id in sub["subscribers"]
    for s in full["never_subscribed"]:
        assert "subscribers" in s
    partial = member_session.register(
        fetch_event_types=["subscription"], include_subscribers="partial"
    )
    assert next(s for s in partial["subscriptions"] if s["stream_id"] == general)["subscribers"]


def test_never_subscribed_holds_the_visible_channels_not_joined(
    member_session: Session, sandbox: Sandbox
) -> None:
    body = member_session.register(fetch_event_types=["subscription"])
    member_id = sandbox.accounts["member"].user_id
    joined = {
        r["stream_id"]
        for r in sandbox.store.query(
            "SELECT stream_id FROM subscriptions WHERE user_id = ?", [member_id]
        )
    }
    public = {r["id"] for r in sandbox.store.query("SELECT id FROM streams WHERE invite_only = 0")}
    never = {s["stream_id"] for s in body["never_subscribed"]}
    assert never == public - joined
    subscribed = {s["stream_id"] for s in body["subscriptions"]}
    assert subscribed.isdisjoint(never)


def test_bad_options_are_refused_without_a_queue(member_session: Session, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        r = member_session.register(expect=400, fetch_event_types="message")
        assert r["code"] == "BAD_REQUEST" and r["msg"] == "fetch_event_types is not a list"
        r = member_session.register(expect=400, include_subscribers="some")
        assert "include_subscribers" in r["msg"] and "var_name" not in r


def test_cross_realm_bots_and_users(member_session: Session, sandbox: Sandbox) -> None:
    body = member_session.register(fetch_event_types=["realm_user"])
    system = {r["id"] for r in sandbox.store.query("SELECT id FROM users WHERE is_system_bot = 1")}
    assert {b["user_id"] for b in body["cross_realm_bots"]} == system
    assert all(b["is_bot"] for b in body["cross_realm_bots"])
    active = {
        r["id"]
        for r in sandbox.store.query(
            "SELECT id FROM users WHERE is_active = 1 AND is_system_bot = 0"
        )
    }
    assert {u["user_id"] for u in body["realm_users"]} == active
    assert all("profile_data" in u for u in body["realm_users"] if not u["is_bot"])


def _unread_for(session: Session) -> dict[str, Any]:
    body = session.register(fetch_event_types=["message", "update_message_flags"])
    unread: dict[str, Any] = body["unread_msgs"]
    return unread


def test_unread_counts_follow_sending_and_reading(fresh_sandbox: Sandbox, client_for: Any) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)
    member: chatops.Client = client_for("member", fresh_sandbox)
    session = Session(fresh_sandbox, "member")
    ids = {a: fresh_sandbox.accounts[a].user_id for a in ("admin", "member", "moderator")}
    before = _unread_for(session)

    in_channel = admin.messages.send_to_channel("general", "unread check", "news").id
    mention = admin.messages.send_to_channel("general", "unread check", "hi @**Mei Member**").id
    direct = admin.messages.send_direct([ids["member"]], "just you").id
    group = admin.messages.send_direct([ids["member"], ids["moderator"]], "the three of us").id
    after = _unread_for(session)

    assert after["count"] == before["count"] + 4
    topic = next(s for s in after["streams"] if s["topic"] == "unread check")
    assert topic["unread_message_ids"] == [in_channel, mention]
    assert topic["stream_id"] == stream_id(fresh_sandbox, "general")
    assert mention in after["mentions"] and in_channel not in after["mentions"]
    pm = next(p for p in after["pms"] if p["other_user_id"] == ids["admin"])
    assert direct in pm["unread_message_ids"] and pm["sender_id"] == ids["admin"]
    key = ",".join(str(i) for i in sorted(ids.values()))
    huddle = next(h for h in after["huddles"] if h["user_ids_string"] == key)
    assert group in huddle["unread_message_ids"]

    # Muting a sender marks their messages read, as on the real server.
    member.users.mute(ids["admin"])
    try:
        read = _unread_for(session)
        admins_unread = sum(
            1
            for r in fresh_sandbox.store.query(
                "SELECT 1 FROM message_flags f JOIN messages m ON m.id = f.message_id "
                "WHERE f.user_id = ? AND m.sender_id = ? AND f.flags & 1 = 0",
                [ids["member"], ids["admin"]],
            )
        )
        assert admins_unread == 0
        all_ids = {
            i
            for group_ in ("pms", "streams", "huddles")
            for entry in read[group_]
            for i in entry["unread_message_ids"]
        }
        assert not {in_channel, mention, direct, group} & all_ids
        assert mention not in read["mentions"]
        assert read["count"] < after["count"]
    finally:
        member.users.unmute(ids["admin"])
    session.http.close()


def test_muted_channel_unreads_are_listed_but_not_counted(
    fresh_sandbox: Sandbox, client_for: Any
) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)
    session = Session(fresh_sandbox, "member")
    member_id = fresh_sandbox.accounts["member"].user_id
    general = stream_id(fresh_sandbox, "general")
    fresh_sandbox.store.execute(
        "UPDATE subscriptions SET is_muted = 1 WHERE user_id = ? AND stream_id = ?",
        [member_id, general],
    )
    try:
        before = _unread_for(session)
        mid = admin.messages.send_to_channel("general", "muted place", "quiet").id
        after = _unread_for(session)
        assert after["count"] == before["count"]
        listed = {i for s in after["streams"] for i in s["unread_message_ids"]}
        assert mid in listed
    finally:
        fresh_sandbox.store.execute(
            "UPDATE subscriptions SET is_muted = 0 WHERE user_id = ? AND stream_id = ?",
            [member_id, general],
        )
        session.http.close()


def test_starred_and_recent_conversations(fresh_sandbox: Sandbox, client_for: Any) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)
    session = Session(fresh_sandbox, "member")
    member_id = fresh_sandbox.accounts["member"].user_id
    admin_id = fresh_sandbox.accounts["admin"].user_id
    mid = admin.messages.send_direct([member_id], "latest").id
    body = session.register(fetch_event_types=["recent_private_conversations", "starred_messages"])
    first = body["recent_private_conversations"][0]
    assert first == {"max_message_id": mid, "user_ids": [admin_id]}
    starred = {
        r["message_id"]
        for r in fresh_sandbox.store.query(
            "SELECT message_id FROM message_flags WHERE user_id = ? AND flags & 2 != 0",
            [member_id],
        )
    }
    assert set(body["starred_messages"]) == starred
    session.http.close()


def test_custom_profile_fields_come_from_one_place(
    member_session: Session, sandbox: Sandbox
) -> None:
    body = member_session.register(fetch_event_types=["custom_profile_fields"])
    assert body["custom_profile_fields"] == initial_state.custom_profile_fields(sandbox.store)
    assert body["custom_profile_field_types"]["SHORT_TEXT"] == {"id": 1, "name": "Text (short)"}


def test_realm_bots_are_the_users_own_and_for_administrators_all(sandbox: Sandbox) -> None:
    """``realm_bots``: a member hears of the bots they own; an administrator of every bot."""

    def bots_of(account: str) -> set[int]:
        acc = sandbox.accounts[account]
        r = httpx.post(
            f"{sandbox.site}/api/v1/register",
            data={"fetch_event_types": '["realm_bot"]'},
            auth=(acc.email, acc.api_key),
        )
        assert r.status_code == 200, r.text
        return {bot["user_id"] for bot in r.json()["realm_bots"]}

    bots = sandbox.store.query("SELECT id, bot_owner_id FROM users WHERE is_bot = 1")
    every = {int(r["id"]) for r in bots if r["bot_owner_id"] is not None}
    member = sandbox.accounts["member"].user_id
    admin = sandbox.accounts["admin"].user_id
    assert every and bots_of("admin") == every
    assert bots_of("member") == {int(r["id"]) for r in bots if r["bot_owner_id"] == member}
    assert member != admin
