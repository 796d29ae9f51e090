"""What a dataset sync reads of the organization besides messages: the channels the account
reads (and those it cannot, with the reason), and the tables of users, channels,
subscriptions and user groups."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..._client import AsyncClient
from ..._exceptions import ApiError
from ...types import QueueRegistration
from . import _files
from ._slots import Slots
from .records import channels_frame, user_groups_frame, users_frame

__all__ = ["read_channels", "write_tables"]


async def read_channels(
    c: AsyncClient, registered: QueueRegistration
) -> tuple[dict[str, dict[str, Any]], dict[str, Any], list[Any], dict[int, list[int]]]:
    """The narrows the account reads, the coverage they give, the channel list, and the
    subscribers of every channel ``registered`` (a registration that fetched the
    subscriptions with their subscribers) tells; the others are asked one by one."""
    mine = {int(s["stream_id"]) for s in registered.subscriptions or ()}
    subscribers = {
        int(s["stream_id"]): [int(u) for u in s["subscribers"]]
        for block in (
            registered.subscriptions,
            registered.unsubscribed,
            registered.never_subscribed,
        )
        for s in block or ()
        if s.get("subscribers") is not None
    }
    try:  # archived channels too: their messages stay readable
        channels = await c.channels.list(
            include_all=True, exclude_archived=False, include_default=True
        )
    except ApiError:
        channels = await c.channels.list(exclude_archived=False, include_default=True)
    readable: dict[str, dict[str, Any]] = {}
    hidden: list[dict[str, Any]] = []
    for ch in channels:
        if ch.stream_id in mine or not ch.invite_only:
            readable[f"channel-{ch.stream_id}"] = {
                "kind": "channel",
                "stream_id": ch.stream_id,
                "name": ch.name,
                "archived": bool(ch.is_archived),
                "first_message_id": ch.first_message_id or 0,
            }
        else:
            hidden.append(
                {
                    "stream_id": ch.stream_id,
                    "name": ch.name,
                    "archived": bool(ch.is_archived),
                    "reason": "private, not a member",
                }
            )
    readable["dm"] = {"kind": "dm", "name": "direct messages", "first_message_id": 0}
    coverage = {
        "as_of": int(time.time()),
        "channels_readable": sorted(
            (
                {"stream_id": v["stream_id"], "name": v["name"], "archived": v["archived"]}
                for v in readable.values()
                if v["kind"] == "channel"
            ),
            key=lambda d: d["stream_id"],
        ),
        "channels_not_readable": sorted(hidden, key=lambda d: d["stream_id"]),
    }
    return readable, coverage, channels, subscribers


#: the refusals of ``require_member_or_admin``
_NOT_FOR_GUESTS_OR_BOTS = (
    "Not allowed for guest users",
    "This endpoint does not accept bot requests.",
)


async def _user_groups(c: AsyncClient) -> list[dict[str, Any]]:
    """The active groups' ids, names, members and direct subgroups.

    ``GET /user_groups`` is for members and administrators (the real server's
    ``require_member_or_admin``); a guest or a bot, refused there, reads the same records from
    the initial state (``realm_user_groups``), which every account receives.
    """
    try:
        listed = await c.user_groups.list()
    except ApiError as exc:
        if exc.msg not in _NOT_FOR_GUESTS_OR_BOTS:
            raise
        state = await c.server.register(
            fetch_event_types=["realm_user_groups"], event_types=["realm_user_groups"]
        )
        return [dict(g) for g in state["realm_user_groups"] if not g.get("deactivated")]
    return [
        {
            "id": g.id,
            "name": g.name,
            "members": g.members,
            "direct_subgroup_ids": g.direct_subgroup_ids,
        }
        for g in listed
    ]


async def write_tables(
    c: AsyncClient,
    cache: Path,
    users: list[dict[str, Any]],
    readable: Mapping[str, Any],
    channels: list[Any],
    subscribers: Mapping[int, list[int]],
    sem: Slots,
) -> None:
    """The organization's tables (``users``: :func:`accounts`; channels, subscriptions,
    groups), written."""

    async def members(sid: int) -> list[tuple[int, int]]:
        if sid in subscribers:
            return [(sid, u) for u in subscribers[sid]]
        async with sem:
            try:
                return [(sid, u) for u in await c.channels.members(sid)]
            except ApiError:
                return []

    pairs = [
        p
        for chunk in await asyncio.gather(
            *(members(v["stream_id"]) for v in readable.values() if v["kind"] == "channel")
        )
        for p in chunk
    ]
    groups = await _user_groups(c)
    tables = {
        "users": users_frame(users),
        "channels": channels_frame(channels),
        "subscriptions": pd.DataFrame(pairs, columns=["stream_id", "user_id"], dtype="Int64"),
        "user_groups": user_groups_frame(
            {g["id"]: g["name"] for g in groups},
            {g["id"]: g["members"] for g in groups},
            {g["id"]: g["direct_subgroup_ids"] for g in groups},
        ),
    }
    folder = _files.private_dir(cache / "tables")
    for name, df in tables.items():
        _files.write_parquet(
            pa.Table.from_pandas(df, preserve_index=False), folder / f"{name}.parquet"
        )
