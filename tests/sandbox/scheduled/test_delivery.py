"""Scheduled messages and reminders are really delivered by the running sandbox (spec 4.3, 4.16)."""

from __future__ import annotations

import time
from collections.abc import Callable

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import api_error, post, stream_id


def _wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def test_scheduled_channel_message_is_delivered(member: chatops.Client, sandbox: Sandbox) -> None:
    general = stream_id(sandbox, "general")
    when = int(time.time()) + 2
    sid = member.scheduled_messages.create(
        "channel", general, "delivered later", topic="scheduler", scheduled_delivery_timestamp=when
    )
    listed = {s.scheduled_message_id: s for s in member.scheduled_messages.list()}
    assert listed[sid].to == general and listed[sid].topic == "scheduler"
    assert listed[sid].failed is False
    _wait_for(lambda: sid not in {s.scheduled_message_id for s in member.scheduled_messages.list()})
    page = member.messages.get(
        anchor="newest",
        num_before=5,
        narrow=[("channel", general), ("topic", "scheduler")],
        apply_markdown=False,
    )
    assert page.messages[-1].content == "delivered later"
    assert page.messages[-1].sender_id == sandbox.accounts["member"].user_id


def test_scheduled_direct_message_is_delivered(member: chatops.Client, sandbox: Sandbox) -> None:
    admin_id = sandbox.accounts["admin"].user_id
    sid = member.scheduled_messages.create(
        "direct",
        [admin_id],
        "a DM from the past",
        scheduled_delivery_timestamp=int(time.time()) + 1,
    )
    _wait_for(lambda: sid not in {s.scheduled_message_id for s in member.scheduled_messages.list()})
    page = member.messages.get(
        anchor="newest", num_before=1, narrow=[("dm", [admin_id])], apply_markdown=False
    )
    assert page.messages[-1].content == "a DM from the past"


def test_reminder_is_delivered_by_the_notification_bot(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    target = post(sandbox, "admin", "general", "reminded", "please review the plan")
    rid = member.reminders.create(
        target, scheduled_delivery_timestamp=int(time.time()) + 2, note="before Friday"
    )
    pending = {r.reminder_id: r for r in member.reminders.list()}
    assert pending[rid].reminder_target_message_id == target
    assert rid not in {s.scheduled_message_id for s in member.scheduled_messages.list()}
    _wait_for(lambda: rid not in {r.reminder_id for r in member.reminders.list()})
    bot = sandbox.store.one("SELECT * FROM users WHERE is_system_bot = 1 ORDER BY id LIMIT 1")
    assert bot is not None
    page = member.messages.get(
        anchor="newest", num_before=1, narrow=[("dm", [bot["id"]])], apply_markdown=False
    )
    message = page.messages[-1]
    assert message.sender_id == bot["id"]
    assert "before Friday" in message.content
    assert "please review the plan" in message.content
    assert f"/near/{target}" in message.content


def test_archived_channel_marks_failed_and_can_be_rescheduled(
    admin: chatops.Client, sandbox: Sandbox
) -> None:
    admin.channels.subscribe(["scheduler-archive"])
    channel = admin.channels.get_id("scheduler-archive")
    sid = admin.scheduled_messages.create(
        "channel",
        channel,
        "will fail first",
        topic="t",
        scheduled_delivery_timestamp=int(time.time()) + 1,
    )
    admin.channels.archive(channel)

    def failed() -> bool:
        return any(
            s.scheduled_message_id == sid and s.failed for s in admin.scheduled_messages.list()
        )

    _wait_for(failed)
    # a failed message needs a new delivery time
    with api_error("BAD_REQUEST"):
        admin.scheduled_messages.update(sid, content="edited")
    admin.channels.unarchive(channel)
    admin.scheduled_messages.update(sid, scheduled_delivery_timestamp=int(time.time()) + 1)
    again = {s.scheduled_message_id: s for s in admin.scheduled_messages.list()}
    assert again[sid].failed is False
    _wait_for(lambda: sid not in {s.scheduled_message_id for s in admin.scheduled_messages.list()})
    page = admin.messages.get(
        anchor="newest", num_before=1, narrow=[("channel", channel)], apply_markdown=False
    )
    assert page.messages[-1].content == "will fail first"
