"""Events announced by the other API areas, received through one queue (spec 6.3, 6.4).

The actions are the other areas' endpoints (typing, typing for edits, subscriptions, channel
folders, user groups, user status, realm settings); this file checks only that each one reaches
an event queue with the real server's fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from chatops.sandbox import Sandbox
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import raw


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(
        fresh_sandbox,
        "member",
        client_capabilities={"stream_typing_notifications": True, "empty_topic_name": True},
    )
    yield q
    q.close()


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    status, body = result
    assert status == 200, body
    return body


def test_typing_in_a_direct_message(fresh_sandbox: Sandbox, queue: Queue) -> None:
    sb = fresh_sandbox
    member = sb.accounts["member"].user_id
    admin = sb.accounts["admin"].user_id
    for op in ("start", "stop"):
        ok(raw(sb, "admin", "POST", "/typing", type="direct", op=op, to=json.dumps([member])))
        event = queue.wait_for("typing", op=op)
        assert event["message_type"] == "direct"
        assert event["sender"]["user_id"] == admin
        assert {r["user_id"] for r in event["recipients"]} == {admin, member}


def test_typing_in_a_channel(fresh_sandbox: Sandbox, queue: Queue) -> None:
    sb = fresh_sandbox
    sid = int(sb.store.scalar("SELECT id FROM streams WHERE name = 'general'"))
    ok(raw(sb, "admin", "POST", "/typing", type="channel", op="start", stream_id=sid, topic="t"))
    event = queue.wait_for("typing", op="start")
    assert event["message_type"] == "stream"
    assert event["stream_id"] == sid and event["topic"] == "t"


def test_typing_for_a_message_edit(fresh_sandbox: Sandbox, queue: Queue) -> None:
    sb = fresh_sandbox
    body = ok(
        raw(
            sb,
            "admin",
            "POST",
            "/messages",
            type="stream",
            to="general",
            topic="edit typing",
            content="to be edited",
        )
    )
    mid = body["id"]
    queue.wait_for("message")
    for op in ("start", "stop"):
        ok(raw(sb, "admin", "POST", f"/messages/{mid}/typing", op=op))
        event = queue.wait_for("typing_edit_message", op=op)
        assert event["message_id"] == mid
        assert event["sender_id"] == sb.accounts["admin"].user_id
        assert event["recipient"]["type"] == "channel"


def test_subscription_added(fresh_sandbox: Sandbox, queue: Queue) -> None:
    ok(
        raw(
            fresh_sandbox,
            "member",
            "POST",
            "/users/me/subscriptions",
            subscriptions=json.dumps([{"name": "events-new-channel"}]),
        )
    )
    event = queue.wait_for("subscription", op="add")
    assert [s["name"] for s in event["subscriptions"]] == ["events-new-channel"]


def test_channel_folder_added(fresh_sandbox: Sandbox, queue: Queue) -> None:
    ok(
        raw(
            fresh_sandbox,
            "admin",
            "POST",
            "/channel_folders/create",
            name="Events folder",
            description="",
        )
    )
    event = queue.wait_for("channel_folder", op="add")
    assert event["channel_folder"]["name"] == "Events folder"


def test_user_group_added(fresh_sandbox: Sandbox, queue: Queue) -> None:
    member = fresh_sandbox.accounts["member"].user_id
    ok(
        raw(
            fresh_sandbox,
            "admin",
            "POST",
            "/user_groups/create",
            name="events-group",
            description="for the events test",
            members=json.dumps([member]),
        )
    )
    event = queue.wait_for("user_group", op="add")
    assert event["group"]["name"] == "events-group"
    assert member in event["group"]["members"]


def test_user_status(fresh_sandbox: Sandbox, queue: Queue) -> None:
    ok(raw(fresh_sandbox, "admin", "POST", "/users/me/status", status_text="in a meeting"))
    event = queue.wait_for("user_status", user_id=fresh_sandbox.accounts["admin"].user_id)
    assert event["status_text"] == "in a meeting"


def test_realm_update_dict(fresh_sandbox: Sandbox, queue: Queue) -> None:
    ok(raw(fresh_sandbox, "admin", "PATCH", "/realm", message_content_edit_limit_seconds=1200))
    event = queue.wait_for("realm", op="update_dict")
    assert event["property"] == "default"
    assert event["data"] == {"message_content_edit_limit_seconds": 1200}
