"""Event queues (spec section 6, facts 3.1): POST /register, GET /events, DELETE /events.

One queue receives each event kind the sandbox announces, with the real server's fields;
unknown, foreign, deleted and expired queues give BAD_EVENT_QUEUE_ID.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.bus import event_bus
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, stream_id


class Queue:
    """A registered queue of one demo account, read over raw HTTP."""

    def __init__(self, sandbox: Sandbox, account: str, **params: Any) -> None:
        acc = sandbox.accounts[account]
        self.http = httpx.Client(base_url=f"{sandbox.site}/api/v1", auth=(acc.email, acc.api_key))
        body = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
        r = self.http.post("/register", data=body)
        assert r.status_code == 200, r.text
        self.registration = r.json()
        self.queue_id: str = self.registration["queue_id"]
        self.last_event_id: int = self.registration["last_event_id"]

    def poll(self, *, dont_block: bool = True) -> list[dict[str, Any]]:
        r = self.http.get(
            "/events",
            params={
                "queue_id": self.queue_id,
                "last_event_id": self.last_event_id,
                "dont_block": json.dumps(dont_block),
            },
            timeout=30,
        )
        assert r.status_code == 200, r.text
        events: list[dict[str, Any]] = r.json()["events"]
        if events:
            self.last_event_id = events[-1]["id"]
        return events

    def wait_for(self, event_type: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """The next event of ``event_type`` whose fields include ``match``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.poll():
                if event["type"] == event_type and all(event.get(k) == v for k, v in match.items()):
                    return event
            time.sleep(0.02)
        raise AssertionError(f"no {event_type} event {match} within {timeout}s")

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def queue(sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(sandbox, "member")
    yield q
    q.close()


def test_register_keeps_the_initial_state_and_adds_a_queue(queue: Queue) -> None:
    reg = queue.registration
    assert isinstance(reg["queue_id"], str) and reg["queue_id"]
    assert reg["last_event_id"] == -1
    for name in (
        "zulip_feature_level",
        "realm_empty_topic_display_name",
        "realm_users",
        "max_file_upload_size_mib",
        "streams",
        "realm_name",
        "user_id",
    ):
        assert name in reg
    assert reg["event_queue_longpoll_timeout_seconds"] > 0
    assert isinstance(reg["max_message_id"], int)


def test_dont_block_answers_at_once_with_nothing(queue: Queue) -> None:
    assert queue.poll() == []


def test_message_event(queue: Queue, admin: chatops.Client, sandbox: Sandbox) -> None:
    mid = admin.messages.send_to_channel("general", "events", "hello @**Mei Member**").id
    event = queue.wait_for("message")
    assert event["message"]["id"] == mid
    assert event["message"]["content"] == "hello @**Mei Member**"  # apply_markdown defaults off
    assert event["message"]["display_recipient"] == "general"
    assert event["message"]["subject"] == "events"
    assert event["flags"] == ["mentioned"]
    assert isinstance(event["id"], int)


def test_edit_and_move_give_update_message(
    queue: Queue, member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_to_channel("general", "to edit", "before").id
    queue.wait_for("message")
    member.messages.edit(mid, content="after")
    edit = queue.wait_for("update_message", message_id=mid)
    assert edit["orig_content"] == "before" and edit["content"] == "after"
    assert edit["rendered_content"] == "<p>after</p>"
    assert edit["user_id"] == sandbox.accounts["member"].user_id
    assert edit["message_ids"] == [mid] and edit["stream_id"] == stream_id(sandbox, "general")
    assert "orig_subject" not in edit
    member.messages.edit(mid, topic="edited topic", propagate_mode="change_all")
    move = queue.wait_for("update_message", message_id=mid)
    assert move["orig_subject"] == "to edit" and move["subject"] == "edited topic"
    assert move["propagate_mode"] == "change_all" and "orig_content" not in move
    assert mid in move["message_ids"]


def test_move_between_channels_names_the_new_channel(
    queue: Queue, admin: chatops.Client, sandbox: Sandbox
) -> None:
    mid = admin.messages.send_to_channel("general", "moving", "move me").id
    queue.wait_for("message")
    target = next(s for s in admin.channels.list() if s.name != "general" and not s.invite_only)
    admin.messages.edit(mid, stream_id=target.stream_id, propagate_mode="change_one")
    move = queue.wait_for("update_message", message_id=mid)
    assert move["stream_id"] == stream_id(sandbox, "general")
    assert move["new_stream_id"] == target.stream_id


def test_reaction_events(queue: Queue, admin: chatops.Client, sandbox: Sandbox) -> None:
    mid = admin.messages.send_to_channel("general", "reactions", "react").id
    admin.messages.add_reaction(mid, "octopus")
    added = queue.wait_for("reaction", op="add")
    assert added["message_id"] == mid and added["emoji_code"] == "1f419"
    assert added["emoji_name"] == "octopus" and added["reaction_type"] == "unicode_emoji"
    assert added["user_id"] == sandbox.accounts["admin"].user_id
    admin.messages.remove_reaction(mid, emoji_name="octopus")
    removed = queue.wait_for("reaction", op="remove")
    assert removed["message_id"] == mid and removed["emoji_name"] == "octopus"


def test_refused_request_announces_nothing(
    queue: Queue, admin: chatops.Client, sandbox: Sandbox
) -> None:
    mid = admin.messages.send_to_channel("general", "refused", "no reaction here").id
    queue.wait_for("message")
    with unchanged(sandbox.store), api_error("REACTION_DOES_NOT_EXIST"):
        admin.messages.remove_reaction(mid, emoji_name="octopus")
    assert queue.poll() == []


def test_event_types_filter(sandbox: Sandbox, admin: chatops.Client) -> None:
    q = Queue(sandbox, "member", event_types=["reaction"])
    try:
        mid = admin.messages.send_to_channel("general", "filtered", "only reactions").id
        admin.messages.add_reaction(mid, "tada")
        event = q.wait_for("reaction")
        assert event["message_id"] == mid
        assert all(e["type"] == "reaction" for e in q.poll())
    finally:
        q.close()


def test_only_receivers_get_message_events(sandbox: Sandbox, admin: chatops.Client) -> None:
    guest = Queue(sandbox, "guest", event_types=["message"])
    try:
        admin.messages.send_direct([sandbox.accounts["member"].user_id], "not for the guest")
        time.sleep(0.1)
        assert guest.poll() == []
    finally:
        guest.close()


def test_last_event_id_acknowledges(queue: Queue, admin: chatops.Client) -> None:
    admin.messages.send_to_channel("general", "ack", "one")
    first = queue.wait_for("message")
    admin.messages.send_to_channel("general", "ack", "two")
    second = queue.wait_for("message")
    assert second["id"] > first["id"]
    # re-reading from before the first: the acknowledged first is gone, the second is kept
    queue.last_event_id = first["id"] - 1
    assert [e["id"] for e in queue.poll()] == [second["id"]]


def test_long_poll_waits_without_blocking_the_server(
    queue: Queue, admin: chatops.Client, member: chatops.Client
) -> None:
    got: list[list[dict[str, Any]]] = []
    waiter = threading.Thread(target=lambda: got.append(queue.poll(dont_block=False)))
    waiter.start()
    time.sleep(0.2)
    assert waiter.is_alive()  # still waiting
    t0 = time.monotonic()
    member.users.me()  # the server answers other requests meanwhile
    assert time.monotonic() - t0 < 2
    mid = admin.messages.send_to_channel("general", "long poll", "wake up").id
    waiter.join(5)
    assert not waiter.is_alive()
    assert [e["message"]["id"] for e in got[0] if e["type"] == "message"] == [mid]


def test_heartbeat_after_the_wait(sandbox: Sandbox, queue: Queue) -> None:
    bus = event_bus(sandbox.store)
    old = bus.heartbeat_seconds
    bus.heartbeat_seconds = 0.2
    try:
        events = queue.poll(dont_block=False)
    finally:
        bus.heartbeat_seconds = old
    assert [e["type"] for e in events] == ["heartbeat"]


def test_unknown_queue(member: chatops.Client) -> None:
    with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id="no-such-queue") as info:
        member.events.get("no-such-queue", dont_block=True)
    assert info.value.msg == "Bad event queue ID: no-such-queue"
    assert isinstance(info.value, chatops.BadEventQueueId)


def test_another_users_queue_is_unknown(queue: Queue, admin: chatops.Client) -> None:
    with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id=queue.queue_id):
        admin.events.get(queue.queue_id, dont_block=True)
    with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id=queue.queue_id):
        admin.events.delete_queue(queue.queue_id)


def test_delete_queue(queue: Queue, member: chatops.Client) -> None:
    member.events.delete_queue(queue.queue_id)
    with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id=queue.queue_id):
        member.events.get(queue.queue_id, dont_block=True)
    with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id=queue.queue_id):
        member.events.delete_queue(queue.queue_id)


def test_delete_wakes_a_waiting_poll(queue: Queue, member: chatops.Client) -> None:
    result: list[int] = []

    def wait() -> None:
        r = queue.http.get("/events", params={"queue_id": queue.queue_id}, timeout=30)
        result.append(r.status_code)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)
    member.events.delete_queue(queue.queue_id)
    waiter.join(5)
    assert result == [400]


def test_unused_queue_expires(sandbox: Sandbox, member: chatops.Client) -> None:
    bus = event_bus(sandbox.store)
    old = bus.queue_timeout
    bus.queue_timeout = 0.2
    try:
        reg = member.events.register(event_types=["message"])
        assert reg.queue_id is not None
        time.sleep(0.5)
        with api_error("BAD_EVENT_QUEUE_ID", 400, queue_id=reg.queue_id):
            member.events.get(reg.queue_id, dont_block=True)
    finally:
        bus.queue_timeout = old


def test_register_checks_event_types(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.post(
        f"{sandbox.site}/api/v1/register",
        data={"event_types": json.dumps("message")},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 400
    assert r.json()["code"] == "BAD_REQUEST" and r.json()["msg"] == "event_types is not a list"


def test_get_events_needs_queue_id(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.get(f"{sandbox.site}/api/v1/events", auth=(acc.email, acc.api_key))
    assert r.status_code == 400
    assert r.json()["code"] == "REQUEST_VARIABLE_MISSING" and r.json()["var_name"] == "queue_id"
