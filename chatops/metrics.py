"""Pure analytics: DataFrame in, DataFrame out, no I/O.

The inputs are the frames of :mod:`chatops.frames`::

    >>> users = users_frame(client.users.list())
    >>> accounts_by_role(users)
                   active_humans  active_bots  deactivated  total
    role_name
    owner                      1            0            0      1
    ...
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import pandas as pd

__all__ = ["accounts_by_role", "messages_over_time", "messages_per_channel"]

TimeLike = datetime | pd.Timestamp | str


def _utc(value: TimeLike) -> pd.Timestamp:
    ts = pd.Timestamp(value)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def _window(df: pd.DataFrame, since: TimeLike | None, until: TimeLike | None) -> pd.DataFrame:
    mask = pd.Series(True, index=df.index)
    if since is not None:
        mask &= df["timestamp"] >= _utc(since)
    if until is not None:
        mask &= df["timestamp"] < _utc(until)
    return df[mask]


def accounts_by_role(users_df: pd.DataFrame) -> pd.DataFrame:
    """Accounts per organization role: active humans, active bots, deactivated, total.

    Args:
        users_df: a :func:`chatops.frames.users_frame`.

    One row per role (owner first, guest last), every known role present even when empty; a
    final ``total`` row sums the columns.
    """
    roles = users_df["role_name"].astype("category")
    active = users_df["is_active"].fillna(False).astype(bool)
    bot = users_df["is_bot"].fillna(False).astype(bool)
    parts: dict[str, Any] = {
        "active_humans": active & ~bot,
        "active_bots": active & bot,
        "deactivated": ~active,
    }
    counts = pd.DataFrame({k: v.astype("int64") for k, v in parts.items()})
    counts["role_name"] = roles
    table = counts.groupby("role_name", observed=False, sort=True).sum()
    table["total"] = table.sum(axis=1)
    table.index = pd.Index([str(i) for i in table.index], name="role")
    table.loc["total"] = table.sum(axis=0)
    return table.astype("int64")


def messages_per_channel(
    messages_df: pd.DataFrame,
    *,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    channels: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Channel messages per channel in ``[since, until)``, busiest first.

    Args:
        messages_df: a :func:`chatops.frames.messages_frame`; direct messages are ignored.
        since, until: the window (UTC when naive); open-ended when None.
        channels: channel names to list even when they had no messages (count 0).

    Columns: ``messages``, ``senders`` (distinct), ``topics`` (distinct), ``last_message``
    (UTC datetime, NaT when none), ``share`` (of all channel messages in the window). Ties are
    broken by channel name so the order is stable.
    """
    df = _window(messages_df, since, until)
    df = df[df["channel"].notna()]
    names = df["channel"].astype("string")
    grouped = df.assign(channel=names).groupby("channel", sort=True)
    table = pd.DataFrame(
        {
            "messages": grouped["id"].count(),
            "senders": grouped["sender_id"].nunique(),
            "topics": grouped["topic"].nunique(),
            "last_message": grouped["timestamp"].max(),
        }
    )
    if channels is not None:
        wanted = [str(c) for c in channels]
        extra = [c for c in wanted if c not in table.index]
        table = table.reindex(list(table.index) + extra)
    table[["messages", "senders", "topics"]] = (
        table[["messages", "senders", "topics"]].fillna(0).astype("int64")
    )
    table["last_message"] = pd.to_datetime(table["last_message"], utc=True)
    total = int(table["messages"].sum())
    table["share"] = table["messages"] / total if total else 0.0
    table.index = pd.Index([str(i) for i in table.index], name="channel")
    table = table.assign(_name=table.index).sort_values(
        ["messages", "_name"], ascending=[False, True], kind="stable"
    )
    return table.drop(columns="_name")


def messages_over_time(
    messages_df: pd.DataFrame, freq: str = "D", *, by: str | None = None
) -> pd.DataFrame:
    """Messages per time bucket (UTC), empty buckets included.

    Args:
        messages_df: a :func:`chatops.frames.messages_frame`.
        freq: a pandas frequency: ``"D"`` day, ``"W"`` week, ``"MS"`` month, ``"h"`` hour.
        by: a column to split by (``"channel"``, ``"client"``, ``"type"``); one column per value.

    Indexed by bucket start; one ``messages`` column when ``by`` is None.
    """
    if messages_df.empty:
        index = pd.DatetimeIndex([], tz="UTC", name="timestamp")
        return pd.DataFrame({"messages": pd.Series([], dtype="int64")}, index=index)
    ts = messages_df.set_index("timestamp")
    if by is None:
        counts = ts["id"].resample(freq).count().rename("messages").to_frame()
    else:
        keys = ts[by].astype("string").fillna("(none)")
        counts = (
            ts.assign(_key=keys)
            .groupby([pd.Grouper(freq=freq), "_key"])["id"]
            .count()
            .unstack("_key", fill_value=0)
            .asfreq(freq, fill_value=0)
        )
        counts.columns = pd.Index([str(c) for c in counts.columns], name=by)
    counts.index.name = "timestamp"
    return counts.astype("int64")
