"""API records -> typed pandas DataFrames.

Records may be the client's msgspec Structs (:class:`chatops.types.Message`, ``User``, ``Channel``)
or plain dicts shaped like the API's JSON. Frames are built column by column in one pass over the
records (never ``DataFrame(list_of_dicts)``), with the dtypes analysts want::

    >>> df = messages_frame(client.messages.iter_history(narrow=[{"operator": "channel",
    ...                                                             "operand": "general"}]))
    >>> df["timestamp"].dt.tz
    UTC

Dtypes: UTC datetimes; categoricals for channel, topic, sender, client and message type;
nullable ``Int64`` for ids that may be missing (``stream_id`` of a direct message); nullable
``boolean`` where the server may not say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

__all__ = [
    "CHANNEL_COLUMNS",
    "MESSAGE_COLUMNS",
    "ROLE_NAMES",
    "USER_COLUMNS",
    "channels_frame",
    "messages_frame",
    "role_name",
    "users_frame",
]

#: Organization roles (spec section 2) by their integer value.
ROLE_NAMES: dict[int, str] = {
    100: "owner",
    200: "administrator",
    300: "moderator",
    400: "member",
    600: "guest",
}

MESSAGE_COLUMNS = (
    "id",
    "timestamp",
    "type",
    "stream_id",
    "channel",
    "topic",
    "sender_id",
    "sender",
    "sender_email",
    "client",
    "content_length",
    "is_edited",
    "is_moved",
    "reaction_count",
)
USER_COLUMNS = (
    "user_id",
    "full_name",
    "email",
    "role",
    "role_name",
    "is_active",
    "is_bot",
    "bot_type",
    "bot_owner_id",
    "is_system_bot",
    "date_joined",
    "timezone",
)
CHANNEL_COLUMNS = (
    "stream_id",
    "name",
    "description",
    "invite_only",
    "is_web_public",
    "is_archived",
    "is_default",
    "subscriber_count",
    "stream_weekly_traffic",
    "date_created",
    "creator_id",
    "first_message_id",
    "folder_id",
)


def role_name(role: int | None) -> str:
    """The name of an organization role value (``400`` -> ``"member"``)."""
    if role is None:
        return "unknown"
    return ROLE_NAMES.get(int(role), f"role {role}")


def _getter(record: Any) -> Callable[[str, Any], Any]:
    if isinstance(record, Mapping):
        return record.get
    return lambda name, default: getattr(record, name, default)


def _category(values: list[Any]) -> pd.Series:
    return pd.Series(values, dtype="object").astype("category")


def _int(values: list[Any]) -> pd.Series:
    return pd.Series(values, dtype="Int64")


def _bool(values: list[Any]) -> pd.Series:
    return pd.Series(values, dtype="boolean")


def _utc_seconds(values: list[Any]) -> pd.Series:
    return pd.to_datetime(pd.Series(values, dtype="Int64"), unit="s", utc=True)


def messages_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """One row per message, columns :data:`MESSAGE_COLUMNS`.

    Args:
        messages: ``Message`` Structs or API message dicts, in any order (the frame keeps it).

    ``channel`` and ``topic`` are missing (NA) for direct messages; ``sender`` is the sender's
    full name at the time of fetching.
    """
    cols: dict[str, list[Any]] = {name: [] for name in MESSAGE_COLUMNS}
    for m in messages:
        get = _getter(m)
        recipient = get("display_recipient", None)
        is_channel = isinstance(recipient, str)
        cols["id"].append(get("id", None))
        cols["timestamp"].append(get("timestamp", None))
        cols["type"].append(get("type", None))
        cols["stream_id"].append(get("stream_id", None) if is_channel else None)
        cols["channel"].append(recipient if is_channel else None)
        topic = get("subject", None)
        if topic is None:
            topic = get("topic", None)
        cols["topic"].append(topic if is_channel else None)
        cols["sender_id"].append(get("sender_id", None))
        cols["sender"].append(get("sender_full_name", None))
        cols["sender_email"].append(get("sender_email", None))
        cols["client"].append(get("client", None))
        content = get("content", None)
        cols["content_length"].append(len(content) if content is not None else None)
        cols["is_edited"].append(get("last_edit_timestamp", None) is not None)
        cols["is_moved"].append(get("last_moved_timestamp", None) is not None)
        reactions = get("reactions", None)
        cols["reaction_count"].append(len(reactions) if reactions is not None else 0)
    return pd.DataFrame(
        {
            "id": _int(cols["id"]),
            "timestamp": _utc_seconds(cols["timestamp"]),
            "type": _category(cols["type"]),
            "stream_id": _int(cols["stream_id"]),
            "channel": _category(cols["channel"]),
            "topic": _category(cols["topic"]),
            "sender_id": _int(cols["sender_id"]),
            "sender": _category(cols["sender"]),
            "sender_email": _category(cols["sender_email"]),
            "client": _category(cols["client"]),
            "content_length": _int(cols["content_length"]),
            "is_edited": _bool(cols["is_edited"]),
            "is_moved": _bool(cols["is_moved"]),
            "reaction_count": _int(cols["reaction_count"]),
        },
        columns=list(MESSAGE_COLUMNS),
    )


def users_frame(users: Iterable[Any]) -> pd.DataFrame:
    """One row per user or bot, columns :data:`USER_COLUMNS`.

    Args:
        users: ``User`` Structs or API user dicts.

    ``role_name`` is an ordered categorical (owner < administrator < ... < guest);
    ``date_joined`` is a UTC datetime.
    """
    cols: dict[str, list[Any]] = {name: [] for name in USER_COLUMNS}
    for u in users:
        get = _getter(u)
        role = get("role", None)
        cols["user_id"].append(get("user_id", None))
        cols["full_name"].append(get("full_name", None))
        cols["email"].append(get("email", None))
        cols["role"].append(role)
        cols["role_name"].append(role_name(role))
        cols["is_active"].append(get("is_active", True))
        cols["is_bot"].append(get("is_bot", False))
        cols["bot_type"].append(get("bot_type", None))
        cols["bot_owner_id"].append(get("bot_owner_id", None))
        cols["is_system_bot"].append(get("is_system_bot", False))  # sent for system bots only
        cols["date_joined"].append(get("date_joined", None) or None)
        cols["timezone"].append(get("timezone", None))
    order = list(ROLE_NAMES.values())
    order += sorted({r for r in cols["role_name"] if r not in order})
    return pd.DataFrame(
        {
            "user_id": _int(cols["user_id"]),
            "full_name": pd.Series(cols["full_name"], dtype="string"),
            "email": pd.Series(cols["email"], dtype="string"),
            "role": _int(cols["role"]),
            "role_name": pd.Categorical(cols["role_name"], categories=order, ordered=True),
            "is_active": _bool(cols["is_active"]),
            "is_bot": _bool(cols["is_bot"]),
            "bot_type": _int(cols["bot_type"]),
            "bot_owner_id": _int(cols["bot_owner_id"]),
            "is_system_bot": _bool(cols["is_system_bot"]),
            "date_joined": pd.to_datetime(
                pd.Series(cols["date_joined"], dtype="object"), utc=True, format="ISO8601"
            ),
            "timezone": _category(cols["timezone"]),
        },
        columns=list(USER_COLUMNS),
    )


def channels_frame(channels: Iterable[Any]) -> pd.DataFrame:
    """One row per channel, columns :data:`CHANNEL_COLUMNS`.

    Args:
        channels: ``Channel`` Structs or API channel dicts (``GET /streams``).
    """
    cols: dict[str, list[Any]] = {name: [] for name in CHANNEL_COLUMNS}
    for c in channels:
        get = _getter(c)
        for name in CHANNEL_COLUMNS:
            cols[name].append(get(name, None))
    return pd.DataFrame(
        {
            "stream_id": _int(cols["stream_id"]),
            "name": pd.Series(cols["name"], dtype="string"),
            "description": pd.Series(cols["description"], dtype="string"),
            "invite_only": _bool(cols["invite_only"]),
            "is_web_public": _bool(cols["is_web_public"]),
            "is_archived": _bool(cols["is_archived"]),
            "is_default": _bool(cols["is_default"]),
            "subscriber_count": _int(cols["subscriber_count"]),
            "stream_weekly_traffic": _int(cols["stream_weekly_traffic"]),
            "date_created": _utc_seconds(cols["date_created"]),
            "creator_id": _int(cols["creator_id"]),
            "first_message_id": _int(cols["first_message_id"]),
            "folder_id": _int(cols["folder_id"]),
        },
        columns=list(CHANNEL_COLUMNS),
    )
