"""The official ``zulip`` client's channel and scheduled-message calls work against the sandbox."""

from __future__ import annotations

import time

import pytest
import zulip

from chatops.sandbox import Sandbox

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def official(sandbox: Sandbox) -> zulip.Client:
    return zulip.Client(config_file=str(sandbox.zuliprc("admin")), client="OfficialTest/1.0")


def test_add_get_remove_subscriptions(official: zulip.Client, sandbox: Sandbox) -> None:
    member_id = sandbox.accounts["member"].user_id
    admin_id = sandbox.accounts["admin"].user_id
    added = official.add_subscriptions(
        streams=[{"name": "official-subs", "description": "made by zulip"}],
        principals=[admin_id, member_id],
    )
    assert added["result"] == "success", added
    assert added["subscribed"] == {
        str(admin_id): ["official-subs"],
        str(member_id): ["official-subs"],
    }
    again = official.add_subscriptions(streams=[{"name": "official-subs"}])
    assert again["already_subscribed"] == {str(admin_id): ["official-subs"]}

    subs = official.get_subscriptions({"include_subscribers": True})
    assert subs["result"] == "success", subs
    mine = {s["name"]: s for s in subs["subscriptions"]}
    assert mine["official-subs"]["description"] == "made by zulip"
    assert set(mine["official-subs"]["subscribers"]) >= {admin_id, member_id}
    assert "color" in mine["official-subs"]

    stream_id = official.get_stream_id("official-subs")["stream_id"]
    status = official.get_subscription_status(user_id=member_id, stream_id=stream_id)
    assert status["is_subscribed"] is True

    removed = official.remove_subscriptions(["official-subs"], principals=[member_id])
    assert removed["result"] == "success", removed
    assert removed["removed"] == ["official-subs"]
    gone = official.remove_subscriptions(["official-subs"], principals=[member_id])
    assert gone["not_removed"] == ["official-subs"]


def test_get_stream_topics(official: zulip.Client, sandbox: Sandbox) -> None:
    stream_id = official.get_stream_id("general")["stream_id"]
    sent = official.send_message(
        {"type": "stream", "to": "general", "topic": "official topics", "content": "x"}
    )
    result = official.get_stream_topics(stream_id)
    assert result["result"] == "success", result
    assert result["topics"][0] == {"name": "official topics", "max_id": sent["id"]}


def test_scheduled_message_calls(official: zulip.Client, sandbox: Sandbox) -> None:
    stream_id = official.get_stream_id("general")["stream_id"]
    created = official.call_endpoint(
        url="scheduled_messages",
        method="POST",
        request={
            "type": "stream",
            "to": stream_id,
            "topic": "official schedule",
            "content": "scheduled by zulip",
            "scheduled_delivery_timestamp": int(time.time()) + 3600,
        },
    )
    assert created["result"] == "success", created
    sid = created["scheduled_message_id"]
    listed = official.call_endpoint(url="scheduled_messages", method="GET")
    record = next(s for s in listed["scheduled_messages"] if s["scheduled_message_id"] == sid)
    assert record["type"] == "stream" and record["to"] == stream_id
    assert record["failed"] is False

    updated = official.call_endpoint(
        url=f"scheduled_messages/{sid}", method="PATCH", request={"content": "changed"}
    )
    assert updated["result"] == "success", updated
    deleted = official.call_endpoint(url=f"scheduled_messages/{sid}", method="DELETE")
    assert deleted["result"] == "success", deleted
    missing = official.call_endpoint(url=f"scheduled_messages/{sid}", method="DELETE")
    assert missing["result"] == "error" and missing["code"] == "BAD_REQUEST"
    assert missing["msg"] == "Scheduled message does not exist"


def test_subscription_settings_default_channel_email_address(fresh_sandbox: Sandbox) -> None:
    official = zulip.Client(config_file=str(fresh_sandbox.zuliprc("admin")), client="Official/1.0")
    design = int(fresh_sandbox.store.scalar("SELECT id FROM streams WHERE name = 'design'"))
    changed = official.update_subscription_settings(
        [
            {"stream_id": design, "property": "color", "value": "#f00f00"},
            {"stream_id": design, "property": "pin_to_top", "value": True},
        ]
    )
    assert changed["result"] == "success", changed
    subs = {s["stream_id"]: s for s in official.get_subscriptions()["subscriptions"]}
    assert (subs[design]["color"], subs[design]["pin_to_top"]) == ("#f00f00", True)
    added = official.add_default_stream(design)
    assert added["result"] == "success", added
    assert official.get_stream_id("design")["stream_id"] == design
    address = official.get_stream_email_address(design)
    assert address["result"] == "success", address
    assert address["email"].startswith("design.")
