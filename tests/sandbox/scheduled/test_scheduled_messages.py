"""Spec 4.3: creating and editing scheduled messages, every rule and error."""

from __future__ import annotations

import time

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, assert_error, raw, stream_id

LATER = 3600


def _new(client: chatops.Client, sandbox: Sandbox, topic: str = "plan") -> int:
    return client.scheduled_messages.create(
        "channel",
        stream_id(sandbox, "general"),
        "scheduled text",
        topic=topic,
        scheduled_delivery_timestamp=int(time.time()) + LATER,
    )


def _record(client: chatops.Client, sid: int) -> chatops.ScheduledMessage:
    return {s.scheduled_message_id: s for s in client.scheduled_messages.list()}[sid]


def test_create_and_list(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    record = _record(member, sid)
    assert (record.type, record.to, record.topic, record.content) == (
        "stream",
        stream_id(sandbox, "general"),
        "plan",
        "scheduled text",
    )
    assert record.rendered_content == "<p>scheduled text</p>"
    admin_id = sandbox.accounts["admin"].user_id
    dm = member.scheduled_messages.create(
        "direct", [admin_id], "dm later", scheduled_delivery_timestamp=int(time.time()) + LATER
    )
    assert _record(member, dm).to == [admin_id] and _record(member, dm).type == "private"


def test_create_errors(member: chatops.Client, sandbox: Sandbox) -> None:
    later = int(time.time()) + LATER
    with unchanged(sandbox.store), api_error("STREAM_DOES_NOT_EXIST", stream_id=999999):
        member.scheduled_messages.create(
            "channel", 999999, "x", topic="t", scheduled_delivery_timestamp=later
        )
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.scheduled_messages.create(
            "direct", [999999], "x", scheduled_delivery_timestamp=later
        )
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.scheduled_messages.create(
            "channel",
            stream_id(sandbox, "general"),
            "x",
            topic="t",
            scheduled_delivery_timestamp=int(time.time()) - 1,
        )


def test_no_topic_and_display_name_read_as_empty(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    member.scheduled_messages.update(sid, topic="(no topic)")
    assert _record(member, sid).topic == ""
    member.scheduled_messages.update(sid, topic="renamed")
    member.scheduled_messages.update(sid, topic="general chat")
    assert _record(member, sid).topic == ""


def test_topics_required_channel_refuses_empty_topic(
    admin: chatops.Client, sandbox: Sandbox
) -> None:
    admin.channels.subscribe(["topics-required"], topics_policy="disable_empty_topic")
    channel = stream_id(sandbox, "topics-required")
    sid = admin.scheduled_messages.create(
        "channel", channel, "x", topic="real", scheduled_delivery_timestamp=int(time.time()) + LATER
    )
    for empty in ("", "(no topic)", "general chat"):
        with unchanged(sandbox.store), api_error("BAD_REQUEST"):
            admin.scheduled_messages.update(sid, topic=empty)


def test_type_change_needs_to_and_topic(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    admin_id = sandbox.accounts["admin"].user_id
    with unchanged(sandbox.store):
        assert_error(
            raw(sandbox, "member", "PATCH", f"/scheduled_messages/{sid}", type="direct"),
            "BAD_REQUEST",
        )
    with pytest.raises(ValueError):
        member.scheduled_messages.update(sid, type="direct")
    member.scheduled_messages.update(sid, type="direct", to=[admin_id])
    assert _record(member, sid).type == "private"
    general = stream_id(sandbox, "general")
    with unchanged(sandbox.store):
        assert_error(
            raw(
                sandbox,
                "member",
                "PATCH",
                f"/scheduled_messages/{sid}",
                type="channel",
                to=str(general),
            ),
            "BAD_REQUEST",
        )
    member.scheduled_messages.update(sid, type="channel", to=general, topic="back")
    record = _record(member, sid)
    assert (record.type, record.to, record.topic) == ("stream", general, "back")


def test_update_errors(member: chatops.Client, admin: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    with unchanged(sandbox.store), api_error("STREAM_DOES_NOT_EXIST", stream_id=999999):
        member.scheduled_messages.update(sid, type="channel", to=999999, topic="t")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.scheduled_messages.update(sid, type="direct", to=[999999])
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        member.scheduled_messages.update(999999, content="x")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        admin.scheduled_messages.update(sid, content="not mine")
    with unchanged(sandbox.store):
        assert_error(raw(sandbox, "member", "PATCH", f"/scheduled_messages/{sid}"), "BAD_REQUEST")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.scheduled_messages.update(sid, scheduled_delivery_timestamp=int(time.time()) - 10)
    member.scheduled_messages.update(sid, content="new content")
    assert _record(member, sid).content == "new content"


def test_failed_needs_new_time(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    sandbox.store.execute("UPDATE scheduled_messages SET failed = 1 WHERE id = ?", [sid])
    assert _record(member, sid).failed is True
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.scheduled_messages.update(sid, content="retry")
    member.scheduled_messages.update(
        sid, content="retry", scheduled_delivery_timestamp=int(time.time()) + LATER
    )
    assert _record(member, sid).failed is False


def test_delete(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _new(member, sandbox)
    member.scheduled_messages.delete(sid)
    assert sid not in {s.scheduled_message_id for s in member.scheduled_messages.list()}
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
        member.scheduled_messages.delete(sid)
