"""Editing a scheduled message (spec 4.3): limits, and what a direct message ignores."""

from __future__ import annotations

import json
import time

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import assert_error, raw, stream_id

LATER = 3600


# -- 4.3: content and topic limits, topic ignored for direct, legacy `private` ------------------
def _scheduled(member: chatops.Client, sandbox: Sandbox) -> int:
    return member.scheduled_messages.create(
        "channel",
        stream_id(sandbox, "general"),
        "scheduled text",
        topic="review plan",
        scheduled_delivery_timestamp=int(time.time()) + LATER,
    )


def _record(client: chatops.Client, sid: int) -> chatops.ScheduledMessage:
    return {s.scheduled_message_id: s for s in client.scheduled_messages.list()}[sid]


def test_scheduled_edit_limits(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _scheduled(member, sandbox)
    path = f"/scheduled_messages/{sid}"
    with unchanged(sandbox.store):
        assert_error(raw(sandbox, "member", "PATCH", path, content="x" * 10001), "BAD_REQUEST")
        assert_error(raw(sandbox, "member", "PATCH", path, topic="t" * 61), "BAD_REQUEST")
    with pytest.raises(chatops.LimitError):
        member.scheduled_messages.update(sid, content="x" * 10001)
    member.scheduled_messages.update(sid, content="x" * 10000, topic="t" * 60)
    record = _record(member, sid)
    assert (len(record.content), record.topic) == (10000, "t" * 60)


def test_scheduled_edit_topic_ignored_for_direct_and_private_is_direct(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    admin_id = sandbox.accounts["admin"].user_id
    dm = member.scheduled_messages.create(
        "direct", [admin_id], "dm later", scheduled_delivery_timestamp=int(time.time()) + LATER
    )
    member.scheduled_messages.update(dm, topic="ignored for direct")
    assert not _record(member, dm).topic
    sid = _scheduled(member, sandbox)
    status, body = raw(
        sandbox,
        "member",
        "PATCH",
        f"/scheduled_messages/{sid}",
        type="private",
        to=json.dumps([admin_id]),
    )
    assert (status, body["result"]) == (200, "success"), body
    record = _record(member, sid)
    assert (record.type, record.to) == ("private", [admin_id])
