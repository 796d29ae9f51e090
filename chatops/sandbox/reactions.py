"""Emoji reactions: adding (companion) and removing (spec 4.9)."""

from __future__ import annotations

from . import emoji_data, users
from .bus import Event, event_bus
from .errors import ApiError
from .messages import access_message, message_audience
from .store import Row, Store


def add_reaction(
    store: Store,
    user: Row,
    message_id: int,
    *,
    emoji_name: str,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
) -> None:
    access_message(store, user, message_id)
    if reaction_type is not None and reaction_type not in emoji_data.REACTION_TYPES:
        raise ApiError("Invalid emoji type.")
    if emoji_code is None:
        emoji_code, derived = emoji_data.resolve_name(store, emoji_name)
        reaction_type = reaction_type or derived
    elif reaction_type is None:
        reaction_type = emoji_data.resolve_name(store, emoji_name)[1]
    reaction_type = emoji_data.normalise_type(reaction_type)
    if store.one(
        "SELECT 1 FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ? "
        "AND reaction_type = ?",
        [message_id, user["id"], emoji_code, reaction_type],
    ):
        raise ApiError("Reaction already exists.", code="REACTION_ALREADY_EXISTS")
    existing = store.one(
        "SELECT emoji_name FROM reactions WHERE message_id = ? AND emoji_code = ? "
        "AND reaction_type = ? LIMIT 1",
        [message_id, emoji_code, reaction_type],
    )
    if existing is not None:
        emoji_name = existing["emoji_name"]  # join the reaction someone already made
    else:
        emoji_data.check_emoji(store, emoji_name, emoji_code, reaction_type)
    with store.atomic():
        store.insert(
            "reactions",
            {
                "message_id": message_id,
                "user_id": user["id"],
                "emoji_name": emoji_name,
                "emoji_code": emoji_code,
                "reaction_type": reaction_type,
            },
        )
        publish_reaction(
            store,
            "add",
            user,
            message_id,
            emoji_name=emoji_name,
            emoji_code=emoji_code,
            reaction_type=reaction_type,
        )


def remove_reaction(
    store: Store,
    user: Row,
    message_id: int,
    *,
    emoji_name: str | None = None,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
) -> None:
    access_message(store, user, message_id)
    if emoji_name is None and emoji_code is None:
        raise ApiError(
            "At least one of the following arguments must be present: emoji_name, emoji_code"
        )
    if reaction_type is not None and reaction_type not in emoji_data.REACTION_TYPES:
        raise ApiError("Invalid emoji type.")
    if emoji_code is None:
        assert emoji_name is not None
        emoji_code, derived = emoji_data.resolve_name(store, emoji_name)
        reaction_type = reaction_type or derived
    else:
        reaction_type = reaction_type or emoji_data.UNICODE
        if reaction_type == emoji_data.UNICODE and emoji_code not in emoji_data.tables()[1]:
            raise ApiError("Invalid emoji code.")
    reaction_type = emoji_data.normalise_type(reaction_type)
    stored_name = store.scalar(
        "SELECT emoji_name FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ? "
        "AND reaction_type = ?",
        [message_id, user["id"], emoji_code, reaction_type],
    )
    with store.atomic():
        cur = store.execute(
            "DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ? "
            "AND reaction_type = ?",
            [message_id, user["id"], emoji_code, reaction_type],
        )
        if cur.rowcount == 0:
            raise ApiError("Reaction doesn't exist.", code="REACTION_DOES_NOT_EXIST")
        publish_reaction(
            store,
            "remove",
            user,
            message_id,
            emoji_name=emoji_name or stored_name,
            emoji_code=emoji_code,
            reaction_type=reaction_type,
        )


def publish_reaction(
    store: Store,
    op: str,
    user: Row,
    message_id: int,
    *,
    emoji_name: str,
    emoji_code: str,
    reaction_type: str,
) -> None:
    """A ``reaction`` event (``op`` add or remove) for everyone who has the message."""
    event: Event = {
        "type": "reaction",
        "op": op,
        "user_id": user["id"],
        "user": {
            "user_id": user["id"],
            "email": users.api_email(store, user),
            "full_name": user["full_name"],
        },
        "message_id": message_id,
        "emoji_name": emoji_name,
        "emoji_code": emoji_code,
        "reaction_type": reaction_type,
    }
    event_bus(store).publish(event, message_audience(store, [message_id]))
