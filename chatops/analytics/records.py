"""API records -> the analytics frames of :mod:`chatops.analytics.schema`.

For a small organization (or a test) the frames can be built straight from the client; the
incremental dataset produces the same frames from its cache::

    >>> msgs = list(client.messages.iter_history(page_size=5000))
    >>> frames = AnalyticsFrames.from_records(
    ...     msgs, users=client.users.list(), channels=client.channels.list(),
    ...     subscriptions={c.stream_id: client.channels.members(c.stream_id) for c in chans})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .. import frames as base_frames
from .schema import RESOLVED_PREFIX, empty, validate

__all__ = [
    "AnalyticsFrames",
    "dm_recipients_frame",
    "edit_kind",
    "edits_frame",
    "messages_frame",
    "reactions_frame",
    "subscriptions_frame",
]


def _get(record: Any, name: str, default: Any = None) -> Any:
    if isinstance(record, Mapping):
        return record.get(name, default)
    return getattr(record, name, default)


def messages_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``messages`` frame: :func:`chatops.frames.messages_frame` plus the analytics columns.

    Args:
        messages: ``Message`` Structs or API message dicts.
    """
    records = list(messages)
    df = base_frames.messages_frame(records)
    df["recipient_id"] = pd.Series([_get(m, "recipient_id") for m in records], dtype="Int64")
    for col in ("last_edit_timestamp", "last_moved_timestamp"):
        df[col] = pd.Series([_get(m, col) for m in records], dtype="Int64")
    return validate(df, "messages")


def reactions_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``reactions`` frame: one row per reaction of each message.

    Args:
        messages: ``Message`` Structs or API message dicts (their ``reactions``).
    """
    rows: dict[str, list[Any]] = {
        k: [] for k in ("message_id", "user_id", "emoji_name", "emoji_code", "reaction_type")
    }
    for m in messages:
        for r in _get(m, "reactions", None) or []:
            rows["message_id"].append(_get(m, "id"))
            user = _get(r, "user_id")
            if user is None:  # servers before feature level 2 nest the user
                user = _get(_get(r, "user", {}) or {}, "id")
            rows["user_id"].append(user)
            rows["emoji_name"].append(_get(r, "emoji_name"))
            rows["emoji_code"].append(_get(r, "emoji_code"))
            rows["reaction_type"].append(_get(r, "reaction_type", "unicode_emoji"))
    return validate(pd.DataFrame(rows), "reactions")


def edit_kind(entry: Any) -> str:
    """What an ``edit_history`` entry did: edit, move_topic, move_channel, resolve or unresolve.

    Args:
        entry: an ``EditHistoryEntry`` or its dict. A move to another channel wins over a topic
            change, which wins over a content edit.
    """
    if _get(entry, "prev_stream") is not None:
        return "move_channel"
    prev = _get(entry, "prev_topic") or _get(entry, "prev_subject")
    if prev is not None:
        topic = _get(entry, "topic") or ""
        if topic.startswith(RESOLVED_PREFIX) and not prev.startswith(RESOLVED_PREFIX):
            return "resolve"
        if prev.startswith(RESOLVED_PREFIX) and not topic.startswith(RESOLVED_PREFIX):
            return "unresolve"
        return "move_topic"
    return "edit"


def edits_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``edits`` frame: one row per entry of each message's ``edit_history``.

    Args:
        messages: ``Message`` Structs or API message dicts fetched with their edit history.
    """
    keys = ("message_id", "timestamp", "user_id", "kind", "prev_topic", "topic")
    rows: dict[str, list[Any]] = {k: [] for k in (*keys, "prev_stream_id", "stream_id")}
    for m in messages:
        for e in _get(m, "edit_history", None) or []:
            rows["message_id"].append(_get(m, "id"))
            rows["timestamp"].append(_get(e, "timestamp"))
            rows["user_id"].append(_get(e, "user_id"))
            rows["kind"].append(edit_kind(e))
            rows["prev_topic"].append(_get(e, "prev_topic") or _get(e, "prev_subject"))
            rows["topic"].append(_get(e, "topic"))
            rows["prev_stream_id"].append(_get(e, "prev_stream"))
            rows["stream_id"].append(_get(e, "stream"))
    df = pd.DataFrame(rows)
    df["timestamp"] = df["timestamp"].astype("Int64")
    return validate(df, "edits")


def dm_recipients_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``dm_recipients`` frame: one row per recipient of each direct message.

    Args:
        messages: ``Message`` Structs or API message dicts.
    """
    ids: list[Any] = []
    users: list[Any] = []
    for m in messages:
        recipient = _get(m, "display_recipient")
        if isinstance(recipient, list):
            for r in recipient:
                ids.append(_get(m, "id"))
                users.append(_get(r, "id"))
    return validate(pd.DataFrame({"message_id": ids, "user_id": users}), "dm_recipients")


def subscriptions_frame(members: Mapping[int, Iterable[int]]) -> pd.DataFrame:
    """The ``subscriptions`` frame from ``{stream_id: [user_id, ...]}``.

    Args:
        members: the subscribers of each channel (``client.channels.members(stream_id)``).
    """
    pairs = [(int(s), int(u)) for s, us in members.items() for u in us]
    return validate(
        pd.DataFrame(pairs, columns=["stream_id", "user_id"], dtype="Int64"), "subscriptions"
    )


@dataclass
class AnalyticsFrames:
    """The frames of one organization, as the views take them.

    Example::

        >>> f = AnalyticsFrames.from_records(msgs, users=users, channels=chans)
        >>> views.messages_over_time(f.messages, users=f.users, freq="W")
    """

    messages: pd.DataFrame
    users: pd.DataFrame | None = None
    channels: pd.DataFrame | None = None
    subscriptions: pd.DataFrame | None = None
    reactions: pd.DataFrame = field(default_factory=lambda: empty("reactions"))
    edits: pd.DataFrame = field(default_factory=lambda: empty("edits"))
    dm_recipients: pd.DataFrame = field(default_factory=lambda: empty("dm_recipients"))
    topics: pd.DataFrame | None = None
    topic_links: pd.DataFrame | None = None
    user_groups: pd.DataFrame | None = None

    @classmethod
    def from_records(
        cls,
        messages: Iterable[Any],
        *,
        users: Iterable[Any] | None = None,
        channels: Iterable[Any] | None = None,
        subscriptions: Mapping[int, Iterable[int]] | None = None,
    ) -> AnalyticsFrames:
        """Build every frame from API records.

        Args:
            messages: ``Message`` Structs or dicts (with ``edit_history`` for the edits frame).
            users: ``User`` records (``client.users.list()``).
            channels: ``Channel`` records (``client.channels.list()``).
            subscriptions: ``{stream_id: [user_id, ...]}``.
        """
        records = list(messages)
        return cls(
            messages=messages_frame(records),
            users=base_frames.users_frame(users) if users is not None else None,
            channels=base_frames.channels_frame(channels) if channels is not None else None,
            subscriptions=subscriptions_frame(subscriptions) if subscriptions is not None else None,
            reactions=reactions_frame(records),
            edits=edits_frame(records),
            dm_recipients=dm_recipients_frame(records),
        )
