"""The frames the analytics views take: column lists with dtypes, and :func:`validate`.

Every frame is a plain ``pandas.DataFrame`` with the columns below. The dataset produces exactly
these; a hand-built frame needs only the *required* columns of its kind (the others are added as
missing values by :func:`validate`)::

    >>> messages = validate(pd.DataFrame({"id": [1], "timestamp": [0], ...}), "messages")
    >>> messages["timestamp"].dt.tz
    UTC

Conventions: datetimes are UTC, ``datetime64[ns, UTC]`` (``users.date_joined`` and
``channels.date_created``: ``datetime64[us, UTC]``, as the API's records give them); integers
in a datetime column are read as Unix seconds;
ids are nullable ``Int64``; channel, topic, sender, client and kinds are categoricals.

Kinds and their columns (required ones marked ``*``):

``messages``
    one row per message, in id order: ``id*``, ``timestamp*``, ``type*`` (``stream`` or
    ``private``), ``stream_id*``, ``channel*``, ``topic*``, ``sender_id*``, ``sender`` (the
    sender's full name when fetched), ``sender_email``, ``client``, ``content_length``,
    ``is_edited``, ``is_moved``, ``reaction_count``, ``recipient_id``, ``last_edit_timestamp``,
    ``last_moved_timestamp`` (and ``content`` when asked for). ``channel``/``topic``/``stream_id``
    are missing for direct messages; ``topic`` is the current name (a resolved topic starts with
    ``"✔ "``).
``dm_recipients``
    long, one row per recipient of a direct message (sender included): ``message_id*``,
    ``user_id*``.
``reactions``
    long, one row per reaction: ``message_id*``, ``user_id*``, ``emoji_name*``, ``emoji_code``,
    ``reaction_type``.
``edits``
    long, one row per edit or move of a message: ``message_id*``, ``timestamp*``, ``user_id``,
    ``kind*`` (one of :data:`EDIT_KINDS`), ``prev_topic``, ``topic``, ``prev_stream_id``,
    ``stream_id``.
``users``
    one row per user or bot: ``user_id*``, ``is_bot*``, ``full_name``, ``email``, ``role``,
    ``role_name`` (ordered: owner < administrator < moderator < member < guest), ``is_active``,
    ``bot_type``, ``bot_owner_id``, ``is_system_bot``, ``date_joined``, ``timezone``.
``channels``
    one row per channel: ``stream_id*``, ``name*``, ``description``, ``invite_only``,
    ``is_web_public``, ``is_archived``, ``is_default``, ``subscriber_count``,
    ``stream_weekly_traffic``, ``date_created``, ``creator_id``, ``first_message_id``,
    ``folder_id``.
``subscriptions``
    ``stream_id*``, ``user_id*``: who is subscribed to which channel.
``presence``
    ``user_id*``, ``timestamp*``: when a user was seen active (optional input of the views).
``user_groups``
    ``name*``, ``user_id*``, ``direct``: the members of each user group, subgroups' members
    included (``direct`` False for those; :mod:`chatops.analytics.groups`).
``topics``
    one row per channel topic: ``stream_id*``, ``channel*``, ``topic*``, ``messages``,
    ``senders``, ``first_message_id``, ``last_message_id``, ``first_timestamp``,
    ``last_timestamp``, ``resolved``.
``topic_links``
    long, one row per link the server found in a topic name: ``message_id*``, ``text``,
    ``url*``.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

__all__ = [
    "COLUMNS",
    "EDIT_KINDS",
    "REQUIRED",
    "RESOLVED_PREFIX",
    "empty",
    "validate",
]

#: The prefix the server puts before a resolved topic's name.
RESOLVED_PREFIX = "✔ "

#: The kinds of rows in the ``edits`` frame.
EDIT_KINDS = ("edit", "move_topic", "move_channel", "resolve", "unresolve")

UTC = "datetime64[ns, UTC]"
#: the dates of the organization's records (when a user joined, a channel was made), in the
#: microseconds both the API frames (:mod:`chatops.analytics.dataset.records`) and the
#: dataset's tables hold
UTC_US = "datetime64[us, UTC]"

_MESSAGE_DTYPES = {
    "id": "Int64",
    "timestamp": UTC,
    "type": "category",
    "stream_id": "Int64",
    "channel": "category",
    "topic": "category",
    "sender_id": "Int64",
    "sender": "category",
    "sender_email": "category",
    "client": "category",
    "content_length": "Int64",
    "is_edited": "boolean",
    "is_moved": "boolean",
    "reaction_count": "Int64",
}

_USER_DTYPES = {
    "user_id": "Int64",
    "full_name": "string",
    "email": "string",
    "role": "Int64",
    "role_name": "category",
    "is_active": "boolean",
    "is_bot": "boolean",
    "bot_type": "Int64",
    "bot_owner_id": "Int64",
    "is_system_bot": "boolean",
    "date_joined": UTC_US,
    "timezone": "category",
}

_CHANNEL_DTYPES = {
    "stream_id": "Int64",
    "name": "string",
    "description": "string",
    "invite_only": "boolean",
    "is_web_public": "boolean",
    "is_archived": "boolean",
    "is_default": "boolean",
    "subscriber_count": "Int64",
    "stream_weekly_traffic": "Int64",
    "date_created": UTC_US,
    "creator_id": "Int64",
    "first_message_id": "Int64",
    "folder_id": "Int64",
}

#: Column name -> dtype, per kind of frame, in column order.
COLUMNS: dict[str, dict[str, str]] = {
    "messages": _MESSAGE_DTYPES
    | {"recipient_id": "Int64", "last_edit_timestamp": UTC, "last_moved_timestamp": UTC},
    "dm_recipients": {"message_id": "Int64", "user_id": "Int64"},
    "reactions": {
        "message_id": "Int64",
        "user_id": "Int64",
        "emoji_name": "category",
        "emoji_code": "category",
        "reaction_type": "category",
    },
    "edits": {
        "message_id": "Int64",
        "timestamp": UTC,
        "user_id": "Int64",
        "kind": "category",
        "prev_topic": "string",
        "topic": "string",
        "prev_stream_id": "Int64",
        "stream_id": "Int64",
    },
    "users": _USER_DTYPES,
    "channels": _CHANNEL_DTYPES,
    "subscriptions": {"stream_id": "Int64", "user_id": "Int64"},
    "presence": {"user_id": "Int64", "timestamp": UTC},
    "user_groups": {"name": "category", "user_id": "Int64", "direct": "boolean"},
    "topics": {
        "stream_id": "Int64",
        "channel": "category",
        "topic": "category",
        "messages": "Int64",
        "senders": "Int64",
        "first_message_id": "Int64",
        "last_message_id": "Int64",
        "first_timestamp": UTC,
        "last_timestamp": UTC,
        "resolved": "boolean",
    },
    "topic_links": {"message_id": "Int64", "text": "string", "url": "string"},
}

#: The columns a frame of each kind must have; the others are optional.
REQUIRED: dict[str, tuple[str, ...]] = {
    "messages": ("id", "timestamp", "type", "stream_id", "channel", "topic", "sender_id"),
    "dm_recipients": ("message_id", "user_id"),
    "reactions": ("message_id", "user_id", "emoji_name"),
    "edits": ("message_id", "timestamp", "kind"),
    "users": ("user_id", "is_bot"),
    "channels": ("stream_id", "name"),
    "subscriptions": ("stream_id", "user_id"),
    "presence": ("user_id", "timestamp"),
    "user_groups": ("name", "user_id"),
    "topics": ("stream_id", "channel", "topic"),
    "topic_links": ("message_id", "url"),
}


def _kind_columns(kind: str) -> dict[str, str]:
    if kind not in COLUMNS:
        raise ValueError(f"unknown frame kind {kind!r}; choose one of {', '.join(COLUMNS)}")
    return COLUMNS[kind]


def _as_dtype(series: pd.Series, dtype: str) -> pd.Series:
    if dtype in (UTC, UTC_US):
        if pd.api.types.is_datetime64_any_dtype(series.dtype):
            ts = pd.to_datetime(series)
            ts = ts.dt.tz_localize("UTC") if ts.dt.tz is None else ts.dt.tz_convert("UTC")
        elif pd.api.types.is_numeric_dtype(series.dtype):
            ts = pd.to_datetime(series.astype("Int64"), unit="s", utc=True)
        else:
            ts = pd.to_datetime(series, utc=True, format="ISO8601")
        # the documented unit, whatever the input's
        return ts.astype(pd.DatetimeTZDtype(unit="us" if dtype == UTC_US else "ns", tz="UTC"))
    if str(series.dtype) == dtype:
        return series
    if dtype == "category":
        return series.astype("object").where(series.notna(), None).astype("category")
    return series.astype(dtype)  # type: ignore[call-overload,no-any-return]


def empty(kind: str) -> pd.DataFrame:
    """An empty frame of ``kind`` with every column and its dtype.

    Args:
        kind: one of the keys of :data:`COLUMNS`.
    """
    cols = _kind_columns(kind)
    return pd.DataFrame(
        {name: _as_dtype(pd.Series([], dtype="object"), dt) for name, dt in cols.items()}
    )


def validate(
    frame: pd.DataFrame, kind: str, *, require: Iterable[str] = (), name: str | None = None
) -> pd.DataFrame:
    """Check that ``frame`` is a frame of ``kind``; return it with the documented dtypes.

    Args:
        frame: the frame to check (not modified).
        kind: one of the keys of :data:`COLUMNS`.
        require: columns needed beyond :data:`REQUIRED` (a view that reads ``client``).
        name: how to call the frame in the error; default ``kind``.

    Raises ValueError naming the missing columns. Optional columns that are absent are added as
    missing values; present columns are converted to their documented dtype (integers in a
    datetime column are Unix seconds).
    """
    cols = _kind_columns(kind)
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{name or kind}: expected a pandas DataFrame, got {type(frame).__name__}")
    needed = list(dict.fromkeys([*REQUIRED[kind], *require]))
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name or kind} frame is missing column(s) {', '.join(missing)} "
            f"(required: {', '.join(needed)})"
        )
    out = {}
    n = len(frame)
    for col, dtype in cols.items():
        if col in frame.columns:
            try:
                out[col] = _as_dtype(frame[col], dtype).reset_index(drop=True)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name or kind}: column {col!r} is not {dtype}: {exc}") from exc
        else:
            out[col] = _as_dtype(pd.Series([None] * n, dtype="object"), dtype)
    extra = [c for c in frame.columns if c not in cols]
    result = pd.DataFrame(out, copy=False)
    for c in extra:
        result[c] = frame[c].reset_index(drop=True)
    result.attrs.update(frame.attrs)
    return result
