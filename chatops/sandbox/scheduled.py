"""Scheduled messages (spec 4.3) and message reminders (spec 4.16), and their delivery.

Both live in one table, as on the real server: ``delivery_type`` is ``send`` for a scheduled
message and ``remind`` for a reminder. :func:`deliver_due` sends whatever is due; a delivery
that cannot happen (the channel was archived, the sender lost access) marks the row ``failed``.
"""

from __future__ import annotations

import json
from typing import Any

from . import channels, clock, messages, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError, not_found
from .rendering import render
from .store import Row, Store

SEND, REMIND = "send", "remind"
CHANNEL_TYPES = ("stream", "channel")
DIRECT_TYPES = ("direct", "private")
#: the real server gives up on a message this late and marks it failed
LATE_CUTOFF_SECONDS = 600


def _now() -> int:
    return int(clock.now())


# -- records ------------------------------------------------------------------------------------
def record(row: Row) -> dict[str, Any]:
    """The scheduled-message record of ``GET /scheduled_messages`` (facts 2.4)."""
    out: dict[str, Any] = {
        "scheduled_message_id": row["id"],
        "content": row["content"],
        "rendered_content": render(row["content"]),
        "scheduled_delivery_timestamp": row["scheduled_delivery_timestamp"],
        "failed": bool(row["failed"]),
    }
    if row["type"] == "stream":
        out.update({"type": "stream", "to": row["stream_id"], "topic": row["topic"]})
    else:
        out.update({"type": "private", "to": json.loads(row["user_ids"])})
    if row["delivery_type"] == REMIND:
        out["reminder_target_message_id"] = row["reminder_target_message_id"]
    return out


def list_scheduled(store: Store, user: Row, delivery_type: str = SEND) -> list[dict[str, Any]]:
    rows = store.query(
        "SELECT * FROM scheduled_messages WHERE sender_id = ? AND delivery_type = ? "
        "AND delivered = 0 ORDER BY scheduled_delivery_timestamp, id",
        [user["id"], delivery_type],
    )
    return [record(r) for r in rows]


def _publish(store: Store, user_id: int, event: dict[str, Any]) -> None:
    event_bus(store).publish(event, [user_id])


# -- validation ---------------------------------------------------------------------------------
def _check_time(timestamp: int) -> None:
    if timestamp <= _now():
        raise ApiError("Scheduled delivery time must be in the future.")


def _check_content(content: str) -> str:
    if not content.strip():
        raise ApiError("Message must not be empty")
    messages.check_content_characters(content)
    limit = realm_mod.LIMITS["max_message_length"]
    if len(content) > limit:
        raise ApiError(f"Message too long (limit: {limit} characters)")
    return content


def _channel_target(store: Store, user: Row, to: Any) -> Row:
    if isinstance(to, list) and len(to) == 1:
        to = to[0]
    if not isinstance(to, int) or isinstance(to, bool):
        raise ApiError("Invalid channel ID", var_name="to")
    stream = channels.get_stream(store, to)
    if stream is None:
        raise ApiError(
            f"Channel with ID '{to}' does not exist", code="STREAM_DOES_NOT_EXIST", stream_id=to
        )
    if not channels.can_read(store, user, stream) and not user["is_system_bot"]:
        raise ApiError(f"Not authorized to send to channel '{stream['name']}'")
    return stream


def _direct_targets(store: Store, to: Any) -> list[int]:
    if isinstance(to, int) and not isinstance(to, bool):
        to = [to]
    if not isinstance(to, list) or not to:
        raise ApiError("Message must have recipients")
    out: list[int] = []
    for uid in to:
        if not isinstance(uid, int) or isinstance(uid, bool):
            raise ApiError("Invalid user ID", var_name="to")
        row = users.get_user(store, uid)
        if row is None:
            raise ApiError(f"Invalid user ID {uid}")
        if not row["is_active"]:
            raise ApiError(f"'{row['delivery_email']}' is no longer using Zulip.")
        if uid not in out:
            out.append(uid)
    return out


def _topic(store: Store, stream: Row, topic: str) -> str:
    normalised = messages.normalise_topic(topic)
    messages.check_topic_characters(normalised)
    limit = realm_mod.LIMITS["max_topic_length"]
    if len(normalised) > limit:
        raise ApiError(f"Topic too long (limit: {limit} characters)")
    if (
        normalised == ""
        and channels.effective_topics_policy(store, stream) == "disable_empty_topic"
    ):
        raise ApiError("Sending messages to the general chat is not allowed in this channel.")
    messages.check_topic_allowed(store, stream, normalised)
    return normalised


def _kind(message_type: str) -> str:
    if message_type in CHANNEL_TYPES:
        return "stream"
    if message_type in DIRECT_TYPES:
        return "private"
    raise ApiError("Invalid message type", var_name="type")


# -- scheduled messages -------------------------------------------------------------------------
def create(
    store: Store,
    user: Row,
    *,
    message_type: str,
    to: Any,
    content: str,
    topic: str | None,
    scheduled_delivery_timestamp: int,
) -> int:
    """``POST /scheduled_messages``; returns the scheduled message id."""
    kind = _kind(message_type)
    content = _check_content(content)
    row: dict[str, Any] = {
        "sender_id": user["id"],
        "delivery_type": SEND,
        "type": kind,
        "content": content,
        "scheduled_delivery_timestamp": scheduled_delivery_timestamp,
    }
    if kind == "stream":
        stream = _channel_target(store, user, to)
        if topic is None:
            raise ApiError("Missing topic")
        row["stream_id"] = stream["id"]
        row["topic"] = _topic(store, stream, topic)
    else:
        row["user_ids"] = json.dumps(_direct_targets(store, to))
    _check_time(scheduled_delivery_timestamp)
    with store.atomic():
        new_id = store.insert("scheduled_messages", row)
        created = store.one("SELECT * FROM scheduled_messages WHERE id = ?", [new_id])
        assert created is not None
        _publish(
            store,
            user["id"],
            {"type": "scheduled_messages", "op": "add", "scheduled_messages": [record(created)]},
        )
    return new_id


def _own(store: Store, user: Row, scheduled_id: int, delivery_type: str) -> Row:
    row = store.one(
        "SELECT * FROM scheduled_messages WHERE id = ? AND sender_id = ? AND delivery_type = ?",
        [scheduled_id, user["id"], delivery_type],
    )
    if row is None:
        what = "Scheduled message" if delivery_type == SEND else "Reminder"
        raise not_found(f"{what} does not exist")
    return row


def update(
    store: Store,
    user: Row,
    scheduled_id: int,
    *,
    message_type: str | None = None,
    to: Any = None,
    content: str | None = None,
    topic: str | None = None,
    scheduled_delivery_timestamp: int | None = None,
) -> None:
    """``PATCH /scheduled_messages/{id}`` (spec 4.3)."""
    with store.atomic():
        row = _own(store, user, scheduled_id, SEND)
        if row["delivered"]:
            raise ApiError("Scheduled message was already sent")
        if (
            message_type is None
            and to is None
            and content is None
            and topic is None
            and scheduled_delivery_timestamp is None
        ):
            raise ApiError("Nothing to change")
        if row["failed"] and scheduled_delivery_timestamp is None:
            raise ApiError(
                "Scheduled delivery timestamp must be specified when updating a failed "
                "scheduled message."
            )
        changes: dict[str, Any] = {}
        kind = row["type"]
        if message_type is not None:
            kind = _kind(message_type)
            if to is None:
                raise ApiError("Recipient required when updating type of scheduled message.")
            if kind == "stream" and topic is None:
                raise ApiError("Topic required when updating scheduled message type to channel.")
        if to is not None:
            if kind == "stream":
                stream = _channel_target(store, user, to)
                changes.update({"type": "stream", "stream_id": stream["id"], "user_ids": "[]"})
                if topic is None:
                    changes["topic"] = _topic(store, stream, row["topic"])
            else:
                changes.update(
                    {
                        "type": "private",
                        "user_ids": json.dumps(_direct_targets(store, to)),
                        "stream_id": None,
                        "topic": "",
                    }
                )
        if topic is not None and kind == "stream":
            stream_id = int(changes.get("stream_id") or row["stream_id"])
            target = channels.get_stream(store, stream_id)
            if target is None:
                raise ApiError(
                    f"Channel with ID '{stream_id}' does not exist",
                    code="STREAM_DOES_NOT_EXIST",
                    stream_id=stream_id,
                )
            changes["topic"] = _topic(store, target, topic)
        if content is not None:
            changes["content"] = _check_content(content)
        if scheduled_delivery_timestamp is not None:
            _check_time(scheduled_delivery_timestamp)
            changes["scheduled_delivery_timestamp"] = scheduled_delivery_timestamp
        changes["failed"] = 0
        changes["failure_message"] = None
        sets = ", ".join(f"{k} = ?" for k in changes)
        store.execute(
            f"UPDATE scheduled_messages SET {sets} WHERE id = ?", [*changes.values(), row["id"]]
        )
        fresh = store.one("SELECT * FROM scheduled_messages WHERE id = ?", [row["id"]])
        assert fresh is not None
        _publish(
            store,
            user["id"],
            {"type": "scheduled_messages", "op": "update", "scheduled_message": record(fresh)},
        )


def delete(store: Store, user: Row, scheduled_id: int, delivery_type: str = SEND) -> None:
    with store.atomic():
        row = _own(store, user, scheduled_id, delivery_type)
        store.execute("DELETE FROM scheduled_messages WHERE id = ?", [row["id"]])
        if delivery_type == SEND:
            event = {
                "type": "scheduled_messages",
                "op": "remove",
                "scheduled_message_id": row["id"],
            }
        else:
            event = {"type": "reminders", "op": "remove", "reminder_id": row["id"]}
        _publish(store, user["id"], event)


# -- reminders ----------------------------------------------------------------------------------
def _reminder_content(
    store: Store, user: Row, message: Row, note: str | None, base_url: str
) -> str:
    sender = users.get_user(store, message["sender_id"])
    assert sender is not None
    if message["stream_id"] is not None:
        stream = channels.get_stream(store, message["stream_id"])
        where = f"#narrow/channel/{message['stream_id']}-{stream['name'] if stream else ''}"
        where += f"/topic/{message['topic']}/near/{message['id']}"
    else:
        where = f"#narrow/dm/{user['id']}/near/{message['id']}"
    link = f"{base_url.rstrip('/')}/{where}"
    quoted = message["content"]
    lines = [f"You requested a reminder for the following message: {link}"]
    if note:
        lines.append(f"Note:\n> {note}")
    header = f"@_**{sender['full_name']}|{sender['id']}** [said]({link}):"
    body = f"{header}\n```quote\n{quoted}\n```"
    room = realm_mod.LIMITS["max_message_length"] - len("\n\n".join(lines)) - len(header) - 20
    if len(quoted) > room:
        body = f"{header}\n```quote\n{quoted[: max(0, room - 3)]}...\n```"
    return "\n\n".join([*lines, body])


def create_reminder(
    store: Store,
    user: Row,
    *,
    message_id: int,
    scheduled_delivery_timestamp: int,
    note: str | None = None,
    base_url: str = "",
) -> int:
    """``POST /reminders``: a direct message from the notification bot to the user, later."""
    message = messages.access_message(store, user, message_id)
    if note is not None:
        limit = realm_mod.LIMITS["max_reminder_note_length"]
        if len(note) > limit:
            raise ApiError(f"Maximum reminder note length: {limit} characters")
    _check_time(scheduled_delivery_timestamp)
    with store.atomic():
        new_id = store.insert(
            "scheduled_messages",
            {
                "sender_id": user["id"],
                "delivery_type": REMIND,
                "type": "private",
                "user_ids": json.dumps([user["id"]]),
                "content": _reminder_content(store, user, message, note, base_url),
                "scheduled_delivery_timestamp": scheduled_delivery_timestamp,
                "reminder_target_message_id": message["id"],
                "note": note,
            },
        )
        created = store.one("SELECT * FROM scheduled_messages WHERE id = ?", [new_id])
        assert created is not None
        rec = record(created)
        rec["reminder_id"] = rec.pop("scheduled_message_id")
        _publish(store, user["id"], {"type": "reminders", "op": "add", "reminders": [rec]})
    return new_id


def list_reminders(store: Store, user: Row) -> list[dict[str, Any]]:
    out = []
    for rec in list_scheduled(store, user, REMIND):
        rec["reminder_id"] = rec.pop("scheduled_message_id")
        out.append(rec)
    return out


# -- delivery -----------------------------------------------------------------------------------
def due(store: Store, now: int | None = None) -> list[Row]:
    return store.query(
        "SELECT * FROM scheduled_messages WHERE delivered = 0 AND failed = 0 "
        "AND scheduled_delivery_timestamp <= ? ORDER BY scheduled_delivery_timestamp, id",
        [now if now is not None else _now()],
    )


def deliver(store: Store, row: Row, now: int | None = None) -> int | None:
    """Send one due row; returns the message id, or None when it was marked failed."""
    now = now if now is not None else _now()
    sender = users.get_user(store, row["sender_id"])
    try:
        with store.atomic():
            if sender is None or not sender["is_active"]:
                raise ApiError("The sender is deactivated.")
            if now - int(row["scheduled_delivery_timestamp"]) > LATE_CUTOFF_SECONDS:
                raise ApiError("Message could not be sent at the scheduled time.")
            if row["delivery_type"] == REMIND:
                message_id = messages.send_message(
                    store,
                    users.notification_bot(store),
                    message_type="private",
                    to=json.dumps([sender["id"]]),
                    content=row["content"],
                    client="Internal",
                    read_by_sender=True,
                )
            elif row["type"] == "stream":
                message_id = messages.send_message(
                    store,
                    sender,
                    message_type="stream",
                    to=json.dumps(row["stream_id"]),
                    topic=row["topic"],
                    content=row["content"],
                    client="Scheduled",
                )
            else:
                message_id = messages.send_message(
                    store,
                    sender,
                    message_type="private",
                    to=row["user_ids"],
                    content=row["content"],
                    client="Scheduled",
                )
            store.execute(
                "UPDATE scheduled_messages SET delivered = 1, delivered_message_id = ? WHERE id = ?",
                [message_id, row["id"]],
            )
    except ApiError as exc:
        with store.atomic():
            store.execute(
                "UPDATE scheduled_messages SET failed = 1, failure_message = ? WHERE id = ?",
                [exc.msg, row["id"]],
            )
            fresh = store.one("SELECT * FROM scheduled_messages WHERE id = ?", [row["id"]])
            if fresh is not None and fresh["delivery_type"] == SEND:
                _publish(
                    store,
                    fresh["sender_id"],
                    {
                        "type": "scheduled_messages",
                        "op": "update",
                        "scheduled_message": record(fresh),
                    },
                )
        return None
    if row["delivery_type"] == SEND:
        event = {"type": "scheduled_messages", "op": "remove", "scheduled_message_id": row["id"]}
    else:
        event = {"type": "reminders", "op": "remove", "reminder_id": row["id"]}
    _publish(store, row["sender_id"], event)
    return message_id


def deliver_due(store: Store, now: int | None = None) -> list[int]:
    """Deliver every due row; returns the ids of the messages sent."""
    sent: list[int] = []
    for row in due(store, now):
        message_id = deliver(store, row, now=now)
        if message_id is not None:
            sent.append(message_id)
    return sent
