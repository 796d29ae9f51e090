"""The audits' metrics: DataFrame in, DataFrame out, no I/O; and the figure of one of them.

The inputs are the frames of :mod:`chatops.analytics.schema`::

    >>> users = users_frame(client.users.list())
    >>> accounts_by_role(users)
                   active_humans  active_bots  deactivated  total
    role_name
    owner                      1            0            0      1
    ...
    >>> fig = plot_messages_per_channel(messages_per_channel(messages, since="2024-01-01"))
    >>> fig.savefig("channels.png")

Figures are built with ``matplotlib.figure.Figure`` (no pyplot state), so they work under the
Agg backend, in threads and in notebooks alike; in Jupyter, a returned figure displays inline.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = [
    "accounts_by_role",
    "messages_per_channel",
    "messages_per_period",
    "plot_messages_per_channel",
]

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
        users_df: a :func:`chatops.analytics.users_frame`.

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
        messages_df: a :func:`chatops.analytics.messages_frame`; direct messages are ignored.
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


def messages_per_period(
    messages_df: pd.DataFrame, freq: str = "D", *, by: str | None = None
) -> pd.DataFrame:
    """Messages per time bucket (UTC), empty buckets included.

    Args:
        messages_df: a :func:`chatops.analytics.messages_frame`.
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


def plot_messages_per_channel(
    df: pd.DataFrame, ax: Axes | None = None, *, top: int | None = 25, title: str | None = None
) -> Figure:
    """Horizontal bars of messages per channel, busiest at the top.

    Args:
        df: a :func:`messages_per_channel` table (index channel, ``messages``).
        ax: axes to draw into; default a new figure sized to the number of channels.
        top: draw only the busiest ``top`` channels (None: all).
        title: the axes title; default "Messages per channel".
    """
    data = df["messages"].sort_values(ascending=False, kind="stable")
    if top is not None:
        data = data.head(top)
    if ax is None:
        fig = Figure(figsize=(7.0, max(2.0, 0.35 * len(data) + 1.0)), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = _figure_of(ax)
    labels = [str(i) for i in data.index][::-1]
    values = [int(v) for v in data.to_numpy()][::-1]
    bars = ax.barh(labels, values, color="#4c72b0")
    ax.bar_label(bars, padding=3, fontsize=8)
    ax.set_xlabel("messages")
    ax.set_title(title or "Messages per channel")
    ax.spines[["top", "right"]].set_visible(False)
    if not values:
        ax.text(0.5, 0.5, "no messages", ha="center", va="center", transform=ax.transAxes)
    return fig


def _figure_of(ax: Axes) -> Figure:
    fig: Any = ax.get_figure(root=True)
    assert isinstance(fig, Figure)
    return fig
