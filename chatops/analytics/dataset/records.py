"""API records -> the analytics frames of :mod:`chatops.analytics.schema`.

For an organization small enough to hold in memory (or a test) the frames come straight from
the client; the incremental dataset produces the same frames from its cache::

    >>> with chatops.Client.from_zuliprc("~/.zuliprc") as client:
    ...     frames = AnalyticsFrames.from_records(
    ...         client.messages.iter_history(page_size=5000, apply_markdown=False),
    ...         users=client.users.list(), channels=client.channels.list(include_all=True))

Messages take one road into frames whatever they come as: the ``GET /messages`` page decoder
of the dataset (:mod:`._pages`, Arrow's JSON reader into columns) and :mod:`._tables`. A
:class:`~chatops.resources.messages.PagedHistory` (what ``iter_history`` returns) hands it its
raw pages, so no record per message is made, and they are read in threads while the next page
is fetched; ``Message`` records and API dicts are validated and written as pages first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..._base_client import NotGiven
from ...resources.messages import PagedHistory
from ...types import ROLE_NAMES, QueueRegistration, role_name
from ..schema import COLUMNS, RESOLVED_PREFIX, empty, validate
from ._pages import MESSAGE_SCHEMA, Page, _Message, decode_page, page_table, records_table
from ._tables import (
    dm_recipients_from_table,
    edits_from_table,
    frames_from_table,
    messages_from_table,
    reactions_from_table,
)

__all__ = [
    "AnalyticsFrames",
    "channels_frame",
    "dm_recipients_frame",
    "edit_kind",
    "edits_frame",
    "messages_frame",
    "messages_table",
    "reactions_frame",
    "registered_accounts",
    "subscriptions_frame",
    "user_groups_frame",
    "users_frame",
]

#: Records converted to the page decoder's structs at a time.
_CHUNK = 5000
#: threads reading pages into tables (Arrow reads without the GIL)
_READERS = max(2, min(4, os.cpu_count() or 2))


def _get(record: Any, name: str, default: Any = None) -> Any:
    if isinstance(record, Mapping):
        return record.get(name, default)
    return getattr(record, name, default)


def _structs(records: list[Any]) -> list[_Message]:
    """``Message`` records or API message dicts as the page decoder's structs."""
    try:
        if records and all(isinstance(r, Mapping) for r in records):
            return msgspec.convert(records, list[_Message])
        return msgspec.convert(records, list[_Message], from_attributes=True)
    except msgspec.ValidationError as exc:
        raise ValueError(f"not a message record: {exc}") from exc


def _history_tables(history: PagedHistory, content: bool) -> list[pa.Table]:
    """The pages of ``history`` as tables, oldest first: each page is read by Arrow in a worker
    thread (no GIL) while this one fetches the next."""
    # the empty topic by its display name, as the dataset stores it
    empty_topic = history.allow_empty_topic_name
    read: list[Page] = []  # the page the walk decoded last (only it: a page holds its body)

    def decode(body: bytes) -> Page:
        read[:] = [decode_page(body)]
        return read[0]

    with ThreadPoolExecutor(max_workers=_READERS, thread_name_prefix="chatops-pages") as pool:
        try:
            futures = [
                # ``batch`` is the new messages of the page just decoded
                pool.submit(page_table, read[0], batch, content=content)
                for batch in history.pages(
                    decode,
                    allow_empty_topic_name=False
                    if isinstance(empty_topic, NotGiven)
                    else empty_topic,
                )
            ]
            tables = [f.result() for f in futures]
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    # pages come in travel order
    return tables[::-1] if history.direction == "older" else tables


def messages_table(messages: Iterable[Any], *, content: bool = False) -> pa.Table:
    """Messages as one Arrow table of the dataset's message schema, sorted by id.

    The columns are those of ``MESSAGE_SCHEMA`` (``content`` only if asked), as
    ``Dataset.table`` gives them without ``narrow``.

    Args:
        messages: what ``client.messages.iter_history(...)`` returns (its raw pages are decoded
            straight into columns), or ``Message`` records, or API message dicts.
        content: keep the message text in a ``content`` column.

    Raises ValueError naming the field when a record is not a message.
    """
    tables: list[pa.Table] = []
    if isinstance(messages, PagedHistory) and not messages.started:
        tables = _history_tables(messages, content)
    else:
        it = iter(messages)
        while chunk := [m for _, m in zip(range(_CHUNK), it, strict=False)]:
            tables.append(records_table(_structs(chunk), content=content))
    if not tables:
        table = MESSAGE_SCHEMA.empty_table()
    else:
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        ids = table["id"].to_numpy()
        if len(ids) > 1 and not bool((ids[1:] > ids[:-1]).all()):
            table = table.take(pc.sort_indices(table["id"]))
    return table if content else table.drop_columns(["content"])


def messages_frame(messages: Iterable[Any], *, content: bool = False) -> pd.DataFrame:
    """The ``messages`` frame (see :mod:`.schema`), one row per message in id order.

    Args:
        messages: ``client.messages.iter_history(...)``, ``Message`` records or API dicts.
        content: add the message text as a ``content`` column.
    """
    return messages_from_table(messages_table(messages, content=content))


def reactions_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``reactions`` frame: one row per reaction of each message.

    Args:
        messages: ``client.messages.iter_history(...)``, ``Message`` records or API dicts.
    """
    return reactions_from_table(messages_table(messages))


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
        messages: ``Message`` records or API dicts fetched with their edit history.
    """
    return edits_from_table(messages_table(messages))


def dm_recipients_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """The ``dm_recipients`` frame: one row per recipient of each direct message.

    Args:
        messages: ``client.messages.iter_history(...)``, ``Message`` records or API dicts.
    """
    return dm_recipients_from_table(messages_table(messages))


def subscriptions_frame(members: Mapping[int, Iterable[int]]) -> pd.DataFrame:
    """The ``subscriptions`` frame from ``{stream_id: [user_id, ...]}``.

    Args:
        members: the subscribers of each channel (``client.channels.members(stream_id)``).
    """
    pairs = [(int(s), int(u)) for s, us in members.items() for u in us]
    return validate(
        pd.DataFrame(pairs, columns=["stream_id", "user_id"], dtype="Int64"), "subscriptions"
    )


def _getter(record: Any) -> Any:
    if isinstance(record, Mapping):
        return record.get
    return lambda name, default: getattr(record, name, default)


def _category(values: list[Any]) -> pd.Series:
    return pd.Series(values, dtype="object").astype("category")


def _utc_seconds(values: list[Any]) -> pd.Series:
    return pd.to_datetime(pd.Series(values, dtype="Int64"), unit="s", utc=True)


def registered_accounts(registered: QueueRegistration) -> list[dict[str, Any]]:
    """Every account a registration that fetched ``realm_user`` lists: active, deactivated,
    and the system bots (Notification Bot and the others), which belong to no organization
    and which ``GET /users`` leaves out, though they post in it. A system bot is a bot.

    Example::

        >>> reg = client.events.register(fetch_event_types=["realm_user"])
        >>> AnalyticsFrames.from_records(history, users=registered_accounts(reg))
    """
    people = [*(registered.realm_users or ()), *(registered.realm_non_active_users or ())]
    seen = {int(u["user_id"]) for u in people}
    bots = [
        {**u, "is_bot": True, "is_system_bot": True}
        for u in registered.cross_realm_bots or ()
        if int(u["user_id"]) not in seen
    ]
    return sorted([*people, *bots], key=lambda u: int(u["user_id"]))


def users_frame(users: Iterable[Any]) -> pd.DataFrame:
    """The ``users`` frame: one row per user or bot.

    Args:
        users: ``User`` records (``client.users.list()``) or API user dicts.

    ``role_name`` is an ordered categorical (owner < administrator < ... < guest);
    ``date_joined`` is a UTC datetime.
    """
    names = tuple(COLUMNS["users"])
    cols: dict[str, list[Any]] = {name: [] for name in names}
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
            "user_id": pd.Series(cols["user_id"], dtype="Int64"),
            "full_name": pd.Series(cols["full_name"], dtype="string"),
            "email": pd.Series(cols["email"], dtype="string"),
            "role": pd.Series(cols["role"], dtype="Int64"),
            "role_name": pd.Categorical(cols["role_name"], categories=order, ordered=True),
            "is_active": pd.Series(cols["is_active"], dtype="boolean"),
            "is_bot": pd.Series(cols["is_bot"], dtype="boolean"),
            "bot_type": pd.Series(cols["bot_type"], dtype="Int64"),
            "bot_owner_id": pd.Series(cols["bot_owner_id"], dtype="Int64"),
            "is_system_bot": pd.Series(cols["is_system_bot"], dtype="boolean"),
            "date_joined": pd.to_datetime(
                pd.Series(cols["date_joined"], dtype="object"), utc=True, format="ISO8601"
            ),
            "timezone": _category(cols["timezone"]),
        },
        columns=list(names),
    )


def user_groups_frame(
    names: Mapping[int, str],
    members: Mapping[int, Iterable[int]],
    subgroups: Mapping[int, Iterable[int]],
) -> pd.DataFrame:
    """The ``user_groups`` frame: ``name``, ``user_id``, ``direct`` (a member of the group
    itself; False: through a subgroup), one row per group and person.

    Args:
        names: the groups to list, by id (a subgroup not named here still lends its members).
        members: each group's direct members, by group id.
        subgroups: each group's direct subgroups, by group id.
    """
    rows: list[tuple[str, int, bool]] = []
    for gid, name in sorted(names.items(), key=lambda kv: (kv[1], kv[0])):
        direct = {int(u) for u in members.get(gid, ())}
        seen, stack, everyone = {gid}, list(subgroups.get(gid, ())), set(direct)
        while stack:  # every subgroup below, each once (a cycle ends here too)
            sub = int(stack.pop())
            if sub in seen:
                continue
            seen.add(sub)
            everyone.update(int(u) for u in members.get(sub, ()))
            stack.extend(subgroups.get(sub, ()))
        rows.extend((name, u, u in direct) for u in sorted(everyone))
    frame = pd.DataFrame(rows, columns=["name", "user_id", "direct"])
    return frame.astype({"user_id": "Int64", "direct": "boolean"})


def channels_frame(channels: Iterable[Any]) -> pd.DataFrame:
    """The ``channels`` frame: one row per channel.

    Args:
        channels: ``Channel`` records (``client.channels.list()``) or API channel dicts.
    """
    dtypes = COLUMNS["channels"]
    cols: dict[str, list[Any]] = {name: [] for name in dtypes}
    for c in channels:
        get = _getter(c)
        for name in dtypes:
            cols[name].append(get(name, None))
    return pd.DataFrame(
        {
            name: _utc_seconds(values)
            if name == "date_created"
            else pd.Series(values, dtype=dtypes[name])
            for name, values in cols.items()
        },
        columns=list(dtypes),
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
        """Build every frame from API records, the messages through the dataset's page decoder.

        Args:
            messages: ``client.messages.iter_history(...)`` itself (its raw pages are decoded
                into columns, no record per message), or ``Message`` records or API dicts (with
                ``edit_history`` for the edits frame). The frames are in message id order.
            users: ``User`` records (``client.users.list()``, which leaves out the system
                bots that post: :func:`registered_accounts` has them too).
            channels: ``Channel`` records (``client.channels.list()``).
            subscriptions: ``{stream_id: [user_id, ...]}``.
        """
        return cls(
            **frames_from_table(messages_table(messages)),
            users=users_frame(users) if users is not None else None,
            channels=channels_frame(channels) if channels is not None else None,
            subscriptions=subscriptions_frame(subscriptions) if subscriptions is not None else None,
        )
