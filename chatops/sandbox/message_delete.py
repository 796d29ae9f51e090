"""Deleting messages: one (``DELETE /messages/{id}``) or a whole topic.

Who may delete one: anyone in the organization's or the channel's
``can_delete_any_message_group``; or the sender (or the owner of the sending bot), when
``can_delete_own_message_group`` lets them and the organization's delete time limit has not
passed. Everyone who had the message, and the channel's subscribers, hear of it in a
``delete_message`` event.

A topic (``POST /streams/{id}/delete_topic``) is deleted by administrators only, newest
messages first, in batches of :data:`TOPIC_BATCH_SIZE` that each commit on their own, as the
real server does (``delete_in_topic``): a request that runs out of time answers
``complete: false`` having deleted some, and the client repeats it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from . import channels, user_topics, users
from . import realm as realm_mod
from .bus import Event, EventQueue, event_bus
from .errors import ApiError
from .messages import access_message, message_audience, normalise_topic, now
from .store import Row, Store

__all__ = [
    "TOPIC_BATCH_SIZE",
    "TOPIC_TIME_LIMIT",
    "delete_message",
    "delete_topic",
    "publish_deletion",
]

#: messages deleted per transaction (the real server's RETENTION_STREAM_MESSAGE_BATCH_SIZE)
TOPIC_BATCH_SIZE = 100
#: seconds after which ``delete_topic`` stops starting batches and answers ``complete: false``
TOPIC_TIME_LIMIT = 50.0


def delete_message(store: Store, user: Row, message_id: int) -> None:
    """``DELETE /messages/{id}``: any-message deleters, or the sender within the limit."""
    message = access_message(store, user, message_id)
    settings = realm_mod.settings(store)
    allowed = realm_mod.realm_permits(store, user, "can_delete_any_message_group")
    stream = channels.get_stream(store, message["stream_id"]) if message["stream_id"] else None
    if not allowed and stream is not None:
        chan = channels.channel_settings(store, stream)
        allowed = realm_mod.user_has_setting(store, user, chan["can_delete_any_message_group"])
    if not allowed:
        sender = users.get_user(store, message["sender_id"])
        own = message["sender_id"] == user["id"] or (
            sender is not None and sender["is_bot"] and sender["bot_owner_id"] == user["id"]
        )
        if not own or not realm_mod.realm_permits(store, user, "can_delete_own_message_group"):
            raise ApiError("You don't have permission to delete this message")
        limit = settings["message_content_delete_limit_seconds"]
        if limit is not None and now() - int(message["timestamp"]) > int(limit):
            raise ApiError("The time limit for deleting this message has passed")
    with store.atomic():
        publish_deletion(store, user, [message])
        _delete_rows(store, [message_id])


def _delete_rows(store: Store, ids: list[int]) -> None:
    marks = ",".join("?" * len(ids))
    for table, column in (
        ("reactions", "message_id"),
        ("message_flags", "message_id"),
        ("attachment_messages", "message_id"),
        ("messages", "id"),
    ):
        store.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", ids)


def delete_topic(store: Store, user: Row, stream_id: int, topic_name: str) -> bool:
    """``POST /streams/{stream_id}/delete_topic``: every message of the topic the user may read.

    Administrators only; the channel must be one whose messages they may read. The topic is
    matched without regard to case, and the general chat's display name means the empty topic.
    Returns ``complete``: False when :data:`TOPIC_TIME_LIMIT` passed before the last batch, the
    batches done so far staying deleted. Once the topic is gone, everyone's visibility policy
    for it is removed (a ``user_topic`` event with policy 0 each).

    Args:
        store: the organization.
        user: who asks.
        stream_id: the channel.
        topic_name: the topic, as a client names it.
    """
    stream = channels.access_stream(store, user, stream_id)
    topic = normalise_topic(topic_name)
    first = channels.first_visible_message_id(store, user, stream)
    started = time.monotonic()
    while True:
        if time.monotonic() >= started + TOPIC_TIME_LIMIT:
            return False
        with store.atomic():
            batch = store.query(
                "SELECT * FROM messages WHERE stream_id = ? AND topic = ? COLLATE NOCASE "
                "AND id >= ? ORDER BY id DESC LIMIT ?",
                [stream_id, topic, first, TOPIC_BATCH_SIZE],
            )
            if not batch:
                break
            publish_deletion(store, user, batch)
            _delete_rows(store, [int(m["id"]) for m in batch])
    _forget_policies(store, stream, topic)
    return True


def _forget_policies(store: Store, stream: Row, topic: str) -> None:
    """Remove the visibility policies of a topic that no longer exists for the people left
    with no message of it they can read (all of them, unless history is protected)."""
    rows = store.query(
        "SELECT u.* FROM user_topics t JOIN users u ON u.id = t.user_id "
        "WHERE t.stream_id = ? AND lower(t.topic) = lower(?)",
        [stream["id"], topic],
    )
    for person in rows:
        first = channels.first_visible_message_id(store, person, stream)
        left = store.scalar(
            "SELECT 1 FROM messages WHERE stream_id = ? AND topic = ? COLLATE NOCASE AND id >= ?",
            [stream["id"], topic, first],
        )
        if left is None:
            user_topics.set_policy(
                store,
                person,
                stream_id=int(stream["id"]),
                topic=topic,
                visibility_policy=user_topics.INHERIT,
            )


def publish_deletion(store: Store, actor: Row, batch: list[Row]) -> None:
    """The ``delete_message`` events for everyone who had a message of ``batch``, as the real
    server sends them.

    ``batch`` is one message, or messages of one topic. Clients registered with the
    ``bulk_message_deletion`` capability get one event with ``message_ids`` (a list); the
    others get one event per message with ``message_id``. A channel message's event names its
    channel and its topic (lowercased, as the server groups deletions by topic); a direct
    message's says ``"message_type": "private"``. The ids are in increasing order, as the real
    server sends them. When the batch holds a channel's first message, a ``stream`` update of
    its ``first_message_id`` comes first (feature level 256). Called before the rows are
    deleted, inside the deleting transaction, so the events are delivered only if the
    deletion commits.
    """
    message = batch[0]
    ids = sorted(int(m["id"]) for m in batch)
    base: Event = {"type": "delete_message"}
    if message["stream_id"] is not None:
        base |= {
            "message_type": "stream",
            "stream_id": int(message["stream_id"]),
            "topic": str(message["topic"]).lower(),
        }
        subscribers = channels.subscriber_ids(store, int(message["stream_id"]))
    else:
        base["message_type"] = "private"
        subscribers = []
    receivers = {*message_audience(store, ids), *subscribers, int(actor["id"])}
    bus = event_bus(store)
    if message["stream_id"] is not None:
        _first_message_moved(store, int(message["stream_id"]), ids, receivers)
    bus.publish_each(receivers, "delete_message", _bulk(base | {"message_ids": ids}, True))
    for message_id in ids:
        bus.publish_each(
            receivers, "delete_message", _bulk(base | {"message_id": message_id}, False)
        )


def _first_message_moved(store: Store, stream_id: int, ids: list[int], receivers: set[int]) -> None:
    """A ``stream`` update of ``first_message_id`` when ``ids`` hold the channel's first message
    (the real server's ``check_update_first_message_id``); None when none is left."""
    first = store.scalar("SELECT min(id) FROM messages WHERE stream_id = ?", [stream_id])
    if first is None or int(first) not in ids:
        return
    marks = ",".join("?" * len(ids))
    after = store.scalar(
        f"SELECT min(id) FROM messages WHERE stream_id = ? AND id NOT IN ({marks})",
        [stream_id, *ids],
    )
    stream = channels.get_stream(store, stream_id)
    assert stream is not None
    event_bus(store).publish(
        {
            "type": "stream",
            "op": "update",
            "property": "first_message_id",
            "value": after,
            "stream_id": stream_id,
            "name": stream["name"],
        },
        receivers,
    )


def _bulk(event: Event, capable: bool) -> Callable[[EventQueue], Event | None]:
    """The event for the queues whose ``bulk_message_deletion`` capability is ``capable``."""

    def make(queue: EventQueue) -> Event | None:
        return (
            event
            if bool(queue.client_capabilities.get("bulk_message_deletion")) is capable
            else None
        )

    return make
