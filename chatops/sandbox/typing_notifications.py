"""Typing notifications (spec 4.11, and the general ``POST /typing`` endpoint).

Who is composing a message, or editing one, told to the conversation's people while they do:
a direct message's participants, or a channel's subscribers unless it has more than
:data:`MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS`.
"""

from __future__ import annotations

from typing import Any

from . import bounds, channels, messages, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

OPS = ("start", "stop")
#: channel typing events are not sent to channels with more subscribers than this
MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100


def _check_op(op: str) -> None:
    if op not in OPS:
        raise ApiError("Invalid op", var_name="op")


def _person(store: Store, user: Row) -> dict[str, Any]:
    return {"user_id": user["id"], "email": users.api_email(store, user)}


def _active(store: Store, user_ids: list[int]) -> list[int]:
    if not user_ids:
        return []
    marks = ",".join("?" * len(user_ids))
    rows = store.query(f"SELECT id FROM users WHERE is_active = 1 AND id IN ({marks})", user_ids)
    return [int(r["id"]) for r in rows]


def send_typing(
    store: Store,
    user: Row,
    *,
    op: str,
    message_type: str = "direct",
    to: Any = None,
    stream_id: int | None = None,
    topic: str | None = None,
) -> None:
    """``POST /typing``: announce that the user started or stopped composing."""
    _check_op(op)
    if message_type in ("direct", "private"):
        if to is None:
            raise ApiError("Missing 'to' argument", code="REQUEST_VARIABLE_MISSING", var_name="to")
        if isinstance(to, str):
            try:
                to = bounds.loads("to", to)
            except ValueError:
                raise ApiError("Invalid to", var_name="to") from None
        if not isinstance(to, list) or not to:
            raise ApiError("Empty 'to' list")
        people: list[Row] = []
        for ref in to:
            row = (
                users.get_user(store, ref)
                if isinstance(ref, int) and not isinstance(ref, bool)
                else users.user_by_email(store, str(ref))
            )
            if row is None or not row["is_active"]:
                raise ApiError(f"Invalid user ID {ref}")
            people.append(row)
        ids = sorted({p["id"] for p in people} | {user["id"]})
        rows = [r for r in (users.get_user(store, i) for i in ids) if r is not None]
        event = {
            "type": "typing",
            "op": op,
            "message_type": "direct",
            "sender": _person(store, user),
            "recipients": [_person(store, r) for r in rows],
        }
        event_bus(store).publish(event, _active(store, ids))
        return
    if message_type not in ("stream", "channel"):
        raise ApiError("Invalid type", var_name="type")
    if stream_id is None:
        raise ApiError(
            "Missing 'stream_id' argument", code="REQUEST_VARIABLE_MISSING", var_name="stream_id"
        )
    if topic is None:
        raise ApiError(
            "Missing 'topic' argument", code="REQUEST_VARIABLE_MISSING", var_name="topic"
        )
    stream = channels.access_stream(store, user, stream_id)
    subscribers = channels.subscriber_ids(store, stream["id"])
    if len(subscribers) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
        return
    event = {
        "type": "typing",
        "op": op,
        "message_type": "stream",
        "sender": _person(store, user),
        "stream_id": stream["id"],
        "topic": messages.normalise_topic(topic),
    }
    event_bus(store).publish(event, subscribers)


def send_edit_typing(store: Store, user: Row, message_id: int, *, op: str) -> None:
    """``POST /messages/{message_id}/typing``: the user started or stopped editing."""
    _check_op(op)
    message = messages.access_message(store, user, message_id)
    settings = realm_mod.settings(store)
    if not settings["allow_message_editing"]:
        raise ApiError("Your organization has turned off message editing")
    if message["sender_id"] != user["id"]:
        raise ApiError("You don't have permission to edit this message")
    limit = settings["message_content_edit_limit_seconds"]
    if limit is not None and messages.now() - int(message["timestamp"]) > int(limit):
        raise ApiError("The time limit for editing this message has passed")
    event: dict[str, Any] = {
        "type": "typing_edit_message",
        "op": op,
        "sender_id": user["id"],
        "message_id": message["id"],
    }
    if message["stream_id"] is not None:
        event["recipient"] = {
            "type": "channel",
            "channel_id": message["stream_id"],
            "topic": message["topic"],
        }
        targets = channels.subscriber_ids(store, message["stream_id"])
        if len(targets) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
            return
    else:
        key = store.scalar(
            "SELECT user_set FROM recipients WHERE id = ?", [message["recipient_id"]]
        )
        ids = [int(x) for x in str(key or "").split(",") if x]
        event["recipient"] = {"type": "direct", "user_ids": ids}
        targets = _active(store, ids)
    event_bus(store).publish(event, targets)
