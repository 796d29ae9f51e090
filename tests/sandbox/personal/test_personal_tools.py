"""Spec 4.4 topic preferences, 4.6 channel folders, 4.11 typing for edits, 4.12 navigation views,
4.13/4.14 saved snippets and 4.16 reminders: rules and errors through the client."""

from __future__ import annotations

import time

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import user_topics as user_topics_mod
from chatops.sandbox.bus import event_bus
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, assert_error, post, raw, stream_id


def _policy(sandbox: Sandbox, account: str, channel: int, topic: str) -> int:
    return user_topics_mod.policy_of(
        sandbox.store, sandbox.accounts[account].user_id, channel, topic
    )


# -- 4.4 topic preferences --------------------------------------------------------------------
def test_visibility_policies_replace_each_other(member: chatops.Client, sandbox: Sandbox) -> None:
    general = stream_id(sandbox, "general")
    for policy in (1, 2, 3, 0):
        member.channels.set_topic_visibility(general, "no messages yet", policy)  # type: ignore[arg-type]
        assert _policy(sandbox, "member", general, "no messages yet") == policy
    rows = sandbox.store.query("SELECT * FROM user_topics WHERE topic = 'no messages yet'")
    assert rows == []


def test_policies_reported_by_register(member: chatops.Client, sandbox: Sandbox) -> None:
    general = stream_id(sandbox, "general")
    member.channels.set_topic_visibility(general, "followed one", 3)
    acc = sandbox.accounts["member"]
    body = httpx.post(f"{sandbox.site}/api/v1/register", auth=(acc.email, acc.api_key)).json()
    entry = next(t for t in body["user_topics"] if t["topic_name"] == "followed one")
    assert (entry["stream_id"], entry["visibility_policy"]) == (general, 3)


def test_unmuted_in_unmuted_channel_acts_as_none(member: chatops.Client, sandbox: Sandbox) -> None:
    general = stream_id(sandbox, "general")
    uid = sandbox.accounts["member"].user_id
    member.channels.set_topic_visibility(general, "unmuted topic", 2)
    assert user_topics_mod.is_muted(sandbox.store, uid, general, "unmuted topic") is False
    assert user_topics_mod.is_muted(sandbox.store, uid, general, "other topic") is False
    member.channels.set_topic_visibility(general, "muted topic", 1)
    assert user_topics_mod.is_muted(sandbox.store, uid, general, "muted topic") is True


def test_topic_preference_errors(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    general = stream_id(sandbox, "general")
    with unchanged(sandbox.store):
        assert_error(
            raw(
                sandbox,
                "member",
                "POST",
                "/user_topics",
                stream_id=general,
                topic="t",
                visibility_policy=4,
            ),
            "BAD_REQUEST",
        )
        assert_error(
            raw(
                sandbox,
                "member",
                "POST",
                "/user_topics",
                stream_id=999999,
                topic="t",
                visibility_policy=1,
            ),
            "BAD_REQUEST",
        )
        assert_error(
            raw(
                sandbox,
                "member",
                "POST",
                "/user_topics",
                stream_id=general,
                topic="x" * 61,
                visibility_policy=1,
            ),
            "BAD_REQUEST",
        )
    admin.channels.subscribe(["topic-private"], invite_only=True)
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.channels.set_topic_visibility(stream_id(sandbox, "topic-private"), "t", 1)
    with pytest.raises(chatops.LimitError):
        member.channels.set_topic_visibility(general, "x" * 61, 1)


# -- 4.6 channel folders ----------------------------------------------------------------------
def test_channel_folders(admin: chatops.Client, member: chatops.Client, sandbox: Sandbox) -> None:
    fid = admin.channels.create_folder("Platform", description="")
    with unchanged(sandbox.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.channels.create_folder("Mine", description="")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.create_folder("platform", description="dup")
    with unchanged(sandbox.store):
        assert_error(
            raw(sandbox, "admin", "POST", "/channel_folders/create", name="  ", description=""),
            "BAD_REQUEST",
        )
        assert_error(
            raw(sandbox, "admin", "POST", "/channel_folders/create", name="x" * 61, description=""),
            "BAD_REQUEST",
        )
        assert_error(
            raw(sandbox, "admin", "POST", "/channel_folders/create", name="no-desc"),
            "REQUEST_VARIABLE_MISSING",
        )
    admin.channels.update_folder(fid, name="Eng", description="builders")
    folders = {f.id: f for f in member.channels.folders()}
    assert (folders[fid].name, folders[fid].description) == ("Eng", "builders")
    # a channel in the folder blocks archiving it
    admin.channels.subscribe(["in-folder"], folder_id=fid)
    channel = stream_id(sandbox, "in-folder")
    assert admin.channels.get(channel).folder_id == fid
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.update_folder(fid, is_archived=True)
    admin.channels.update(channel, folder_id=None)
    admin.channels.update_folder(fid, is_archived=True)
    assert fid not in {f.id for f in member.channels.folders()}
    assert fid in {f.id for f in member.channels.folders(include_archived=True)}
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.update_folder(999999, name="x")
    second = admin.channels.create_folder("Second", description="")
    ids = [f.id for f in admin.channels.folders(include_archived=True)]
    admin.channels.reorder_folders(list(reversed(ids)))
    assert [f.id for f in admin.channels.folders(include_archived=True)] == list(reversed(ids))
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.reorder_folders([second])


# -- 4.11 typing while editing --------------------------------------------------------------------
def test_edit_typing_publishes_event(member: chatops.Client, sandbox: Sandbox) -> None:
    mid = post(sandbox, "member", "general", "edit typing", "to edit")
    seen: list[tuple[dict[str, object], set[int]]] = []
    original = event_bus(sandbox.store).publish

    def spy(event: dict[str, object], user_ids: object) -> None:
        seen.append((event, set(user_ids)))  # type: ignore[call-overload]
        original(event, user_ids)  # type: ignore[arg-type]

    event_bus(sandbox.store).publish = spy  # type: ignore[method-assign]
    try:
        member.typing.editing(mid, "start")
        member.typing.set("start", stream_id=stream_id(sandbox, "general"), topic="edit typing")
        member.typing.set("stop", to=[sandbox.accounts["admin"].user_id])
    finally:
        event_bus(sandbox.store).publish = original  # type: ignore[method-assign]
    edit, channel, direct = (e for e, _ in seen)
    assert edit == {
        "type": "typing_edit_message",
        "op": "start",
        "sender_id": sandbox.accounts["member"].user_id,
        "message_id": mid,
        "recipient": {
            "type": "channel",
            "channel_id": stream_id(sandbox, "general"),
            "topic": "edit typing",
        },
    }
    assert channel["message_type"] == "stream" and channel["topic"] == "edit typing"
    assert direct["message_type"] == "direct"
    assert {r["user_id"] for r in direct["recipients"]} == {  # type: ignore[attr-defined]
        sandbox.accounts["member"].user_id,
        sandbox.accounts["admin"].user_id,
    }


def test_edit_typing_rules(member: chatops.Client, sandbox: Sandbox) -> None:
    other = post(sandbox, "admin", "general", "edit typing", "not yours")
    with api_error("BAD_REQUEST"):
        member.typing.editing(other, "start")
    with api_error("BAD_REQUEST"):
        member.typing.editing(999999, "start")
    mine = post(sandbox, "member", "general", "edit typing", "mine")
    assert_error(
        raw(sandbox, "member", "POST", f"/messages/{mine}/typing", op="begin"), "BAD_REQUEST"
    )
    assert_error(
        raw(sandbox, "member", "POST", f"/messages/{mine}/typing"), "REQUEST_VARIABLE_MISSING"
    )


# -- 4.12 navigation views --------------------------------------------------------------------
def test_navigation_views(member: chatops.Client, sandbox: Sandbox) -> None:
    member.navigation_views.create("narrow/is/starred", is_pinned=True)
    member.navigation_views.create("narrow/channel/1-general", is_pinned=False, name="General")
    views = {v.fragment: v for v in member.navigation_views.list()}
    assert views["narrow/is/starred"].is_pinned and views["narrow/is/starred"].name is None
    assert views["narrow/channel/1-general"].name == "General"
    with unchanged(sandbox.store):
        for params in (
            {"fragment": "  ", "is_pinned": "true"},
            {"fragment": "inbox", "is_pinned": "true", "name": "My inbox"},
            {"fragment": "narrow/custom", "is_pinned": "true"},
            {"fragment": "narrow/is/starred", "is_pinned": "false"},
            {"fragment": "narrow/other", "is_pinned": "false", "name": "General"},
        ):
            assert_error(
                raw(sandbox, "member", "POST", "/navigation_views", **params), "BAD_REQUEST"
            )
        assert_error(
            raw(sandbox, "member", "POST", "/navigation_views", fragment="x"),
            "REQUEST_VARIABLE_MISSING",
        )
    member.navigation_views.update("narrow/is/starred", is_pinned=False)
    member.navigation_views.update("narrow/channel/1-general", name="Town square")
    views = {v.fragment: v for v in member.navigation_views.list()}
    assert views["narrow/is/starred"].is_pinned is False
    assert views["narrow/channel/1-general"].name == "Town square"
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.navigation_views.update("narrow/is/starred", name="Stars")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.navigation_views.delete("narrow/is/mentioned")
    member.navigation_views.delete("narrow/is/starred")
    assert "narrow/is/starred" not in {v.fragment for v in member.navigation_views.list()}
    with pytest.raises(ValueError):
        member.navigation_views.create(" ", is_pinned=True)


# -- 4.13, 4.14 saved snippets ----------------------------------------------------------------
def test_saved_snippets(member: chatops.Client, admin: chatops.Client, sandbox: Sandbox) -> None:
    sid = member.saved_snippets.create("Greeting", "Hello **there**")
    assert {s.id: s.title for s in member.saved_snippets.list()}[sid] == "Greeting"
    with unchanged(sandbox.store):
        assert_error(
            raw(sandbox, "member", "POST", "/saved_snippets", title=" ", content="x"), "BAD_REQUEST"
        )
        assert_error(
            raw(sandbox, "member", "POST", "/saved_snippets", title="t", content=" "), "BAD_REQUEST"
        )
        assert_error(
            raw(sandbox, "member", "POST", "/saved_snippets", title="t" * 61, content="x"),
            "BAD_REQUEST",
        )
        assert_error(
            raw(sandbox, "member", "POST", "/saved_snippets", title="t"), "REQUEST_VARIABLE_MISSING"
        )
    member.saved_snippets.update(sid, content="Hi")
    member.saved_snippets.update(sid, title="Hi there")
    snippet = {s.id: s for s in member.saved_snippets.list()}[sid]
    assert (snippet.title, snippet.content) == ("Hi there", "Hi")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        admin.saved_snippets.update(sid, title="stolen")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        member.saved_snippets.update(999999, title="nothing")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.saved_snippets.update(sid, title=" ")
    member.saved_snippets.delete(sid)
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        member.saved_snippets.delete(sid)
    with pytest.raises(ValueError):
        member.saved_snippets.create("", "x")


# -- 4.16 reminders ---------------------------------------------------------------------------
def test_reminder_rules(member: chatops.Client, admin: chatops.Client, sandbox: Sandbox) -> None:
    target = post(sandbox, "admin", "general", "remind me", "something")
    later = int(time.time()) + 3600
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.reminders.create(target, scheduled_delivery_timestamp=int(time.time()) - 5)
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.reminders.create(999999, scheduled_delivery_timestamp=later)
    with unchanged(sandbox.store):
        assert_error(
            raw(
                sandbox,
                "member",
                "POST",
                "/reminders",
                message_id=target,
                scheduled_delivery_timestamp=later,
                note="n" * 1001,
            ),
            "BAD_REQUEST",
        )
    with pytest.raises(chatops.LimitError):
        member.reminders.create(target, scheduled_delivery_timestamp=later, note="n" * 1001)
    rid = member.reminders.create(target, scheduled_delivery_timestamp=later)
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        admin.reminders.delete(rid)
    member.reminders.delete(rid)
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        member.reminders.delete(rid)
