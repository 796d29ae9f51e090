"""Deleting a message: ``DELETE /messages/{id}``.

Who may: anyone in the organization's or the channel's ``can_delete_any_message_group``; or
the sender (or the owner of the sending bot), when ``can_delete_own_message_group`` lets them
and the organization's delete time limit has not passed. Everyone who had the message, and the
channel's subscribers, hear of it in a ``delete_message`` event.
"""

from __future__ import annotations

from . import channels, users
from . import realm as realm_mod
from .bus import Event, EventQueue, event_bus
from .errors import ApiError
from .messages import access_message, message_audience, now
from .store import Row, Store

__all__ = ["delete_message", "publish_deletion"]


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
        publish_deletion(store, user, message)
        store.execute("DELETE FROM reactions WHERE message_id = ?", [message_id])
        store.execute("DELETE FROM message_flags WHERE message_id = ?", [message_id])
        store.execute("DELETE FROM attachment_messages WHERE message_id = ?", [message_id])
        store.execute("DELETE FROM messages WHERE id = ?", [message_id])


def publish_deletion(store: Store, actor: Row, message: Row) -> None:
    """A ``delete_message`` event for everyone who had ``message``, as the real server sends it.

    Clients registered with the ``bulk_message_deletion`` capability get ``message_ids`` (a
    list); the others get one event per message with ``message_id``. A channel message's event
    names its channel and its topic (lowercased, as the server groups deletions by topic); a
    direct message's says ``"message_type": "private"``. Called before the rows are deleted,
    inside the deleting transaction, so the event is delivered only if the deletion commits.
    """
    message_id = int(message["id"])
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
    receivers = {*message_audience(store, [message_id]), *subscribers, int(actor["id"])}

    def make(queue: EventQueue) -> Event:
        if queue.client_capabilities.get("bulk_message_deletion"):
            return base | {"message_ids": [message_id]}
        return base | {"message_id": message_id}

    event_bus(store).publish_each(receivers, "delete_message", make)
