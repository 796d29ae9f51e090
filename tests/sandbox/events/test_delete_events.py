"""``delete_message`` events (facts: the real server's ``zerver/actions/message_delete.py``).

Deleting a message tells everyone who had it: one event per message with ``message_id``, or,
to clients registered with the ``bulk_message_deletion`` capability, ``message_ids`` (a list).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.events.test_events import Queue


@pytest.fixture
def queues(sandbox: Sandbox) -> Iterator[tuple[Queue, Queue]]:
    single = Queue(sandbox, "member", event_types=["delete_message"])
    bulk = Queue(
        sandbox,
        "member",
        event_types=["delete_message"],
        client_capabilities={"bulk_message_deletion": True},
    )
    yield single, bulk
    single.close()
    bulk.close()


def test_deleting_a_channel_message_tells_its_readers(
    queues: tuple[Queue, Queue], admin: chatops.Client, sandbox: Sandbox
) -> None:
    single, bulk = queues
    sid = admin.channels.get_id("general")
    mid = admin.messages.send_to_channel("general", "Deleted Soon", "gone in a moment").id
    admin.messages.delete(mid)
    event = single.wait_for("delete_message")
    assert event == {
        "type": "delete_message",
        "message_type": "stream",
        "stream_id": sid,
        "topic": "deleted soon",  # the server groups deletions by the lowercased topic
        "message_id": mid,
        "id": event["id"],
    }
    event = bulk.wait_for("delete_message")
    assert event["message_ids"] == [mid] and "message_id" not in event
    assert (event["message_type"], event["stream_id"]) == ("stream", sid)


def test_deleting_a_direct_message_tells_its_participants(
    queues: tuple[Queue, Queue], admin: chatops.Client, sandbox: Sandbox
) -> None:
    single, bulk = queues
    member = sandbox.accounts["member"].user_id
    mid = admin.messages.send_direct([member], "a direct message to delete").id
    admin.messages.delete(mid)
    event = single.wait_for("delete_message")
    assert event == {
        "type": "delete_message",
        "message_type": "private",
        "message_id": mid,
        "id": event["id"],
    }
    assert bulk.wait_for("delete_message")["message_ids"] == [mid]


def test_a_refused_deletion_announces_nothing(
    queues: tuple[Queue, Queue], admin: chatops.Client, sandbox: Sandbox
) -> None:
    single, _ = queues
    mid = admin.messages.send_to_channel("general", "kept", "the member cannot delete this").id
    with chatops.Client.from_zuliprc(sandbox.zuliprc("member")) as member:
        with pytest.raises(chatops.ApiError):
            member.messages.delete(mid)
    assert single.poll() == []
