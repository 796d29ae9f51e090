"""The sentences an analyst reads under each view, computed from the data's own end and period.

Every function takes frames and returns a number or a sentence; none reads the wall clock. "The
end of the data" is the time of the newest message in the frame given (bots' included), or
``end`` when passed: a question such as "who posted for the first time in the last 90 days"
is asked of the 90 days before that moment, not of today and not of the newest first post::

    >>> from chatops.analytics import sentences
    >>> sentences.first_time_posters(messages, days=90)
    12
    >>> sentences.busiest_week(messages)
    'The busiest week began Monday 2026-04-13 with 153 messages, against a median week of 114.'
    >>> sentences.percent(0.0009)
    '0.09%'

Weeks run Monday to Sunday (as in the views' ``freq="W"``) and are named by their first day.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._common import TimeLike, bot_ids, gini, utc
from ._percent import percent
from .schema import validate
from .views import client_label

__all__ = [
    "active_posters",
    "busiest_hour",
    "busiest_week",
    "channel_share",
    "data_end",
    "direct_message_share",
    "first_time_posters",
    "newcomers",
    "participation",
    "percent",
    "reactions",
    "reply_pairs",
    "topics_resolved",
    "weekly_counts",
]


def _humans(messages: pd.DataFrame, users: pd.DataFrame | None) -> pd.DataFrame:
    df = validate(messages, "messages")
    bots = bot_ids(users)
    if not bots:
        return df
    return df[~df["sender_id"].isin(list(bots)).fillna(False).astype(bool)]


def data_end(messages: pd.DataFrame, end: TimeLike | None = None) -> pd.Timestamp:
    """The end of the data: ``end`` when given, else the newest message's time.

    Raises:
        ValueError: no ``end`` and no message to take it from.
    """
    if end is not None:
        return utc(end)
    ts = validate(messages, "messages")["timestamp"]
    if ts.notna().any():
        return pd.Timestamp(ts.max())
    raise ValueError("no messages, so no end of the data: pass end=...")


def first_time_posters(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 90,
    end: TimeLike | None = None,
) -> int:
    """How many people (bots left out when ``users`` is given) sent their first message in the
    last ``days`` days of the data: in ``(end - days, end]``, ``end`` as in :func:`data_end`."""
    if days <= 0:
        raise ValueError(f"days must be positive, got {days!r}")
    stop = data_end(messages, end)
    df = _humans(messages, users)
    first = df.groupby("sender_id")["timestamp"].min()
    return int(((first > stop - pd.Timedelta(days=days)) & (first <= stop)).sum())


def newcomers(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 90,
    end: TimeLike | None = None,
) -> str:
    """``"N people posted for the first time in the last 90 days of the data (to <date>)."``"""
    n = first_time_posters(messages, users=users, days=days, end=end)
    stop = data_end(messages, end)
    who = "person" if n == 1 else "people"
    return (
        f"{n:,} {who} posted for the first time in the last {days} days of the data "
        f"(to {stop:%Y-%m-%d})."
    )


def weekly_counts(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    tz: str = "UTC",
) -> pd.Series:
    """Messages per week (Monday to Sunday in ``tz``), indexed by each week's first day (a
    Monday, as a date); weeks without a message in between count 0."""
    df = _humans(messages, users)
    if df.empty:
        return pd.Series([], dtype="int64", index=pd.Index([], name="week_start"))
    local = df["timestamp"].dt.tz_convert(tz).dt.tz_localize(None)
    weeks = local.dt.to_period("W-SUN")
    counts = weeks.value_counts().sort_index()
    full = pd.period_range(counts.index.min(), counts.index.max(), freq="W-SUN")
    counts = counts.reindex(full, fill_value=0)
    out = pd.Series(
        counts.to_numpy(dtype="int64"),
        index=pd.Index([p.start_time.date() for p in full], name="week_start"),
    )
    return out


def busiest_week(
    messages: pd.DataFrame, *, users: pd.DataFrame | None = None, tz: str = "UTC"
) -> str:
    """The week with most messages, named by its first day (a Monday), against the median."""
    weekly = weekly_counts(messages, users=users, tz=tz)
    if weekly.empty:
        return "No messages, so no busiest week."
    start = weekly.idxmax()
    return (
        f"The busiest week began Monday {start:%Y-%m-%d} with {int(weekly.max()):,} messages, "
        f"against a median week of {float(weekly.median()):,.0f}."
    )


def active_posters(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 28,
    end: TimeLike | None = None,
) -> str:
    """How many people posted in the last ``days`` days of the data, out of all who posted."""
    stop = data_end(messages, end)
    df = _humans(messages, users)
    recent = df[(df["timestamp"] > stop - pd.Timedelta(days=days)) & (df["timestamp"] <= stop)]
    return (
        f"{recent['sender_id'].nunique():,} people posted in the last {days} days of the data "
        f"(to {stop:%Y-%m-%d}), out of {df['sender_id'].nunique():,} who ever posted."
    )


def channel_share(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The busiest channel's share of channel messages, and the quietest channel's count."""
    per = _humans(messages, users)["channel"].dropna().value_counts()
    if per.empty:
        return "No channel messages."
    return (
        f"#{per.index[0]} carries {percent(per.iloc[0] / per.sum())} of channel messages; "
        f"the quietest, #{per.index[-1]}, {int(per.iloc[-1]):,}."
    )


def topics_resolved(topics: pd.DataFrame) -> str:
    """The share of topics resolved and the median messages per topic (a topics frame)."""
    if topics is None or topics.empty:
        return "No topics."
    resolved = topics["resolved"].fillna(False).astype(bool).mean()
    return (
        f"{percent(float(resolved))} of {len(topics):,} topics are resolved; a topic has "
        f"{float(topics['messages'].median()):,.0f} messages at the median."
    )


def participation(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The most active tenth of posters' share of messages, and the Gini coefficient."""
    counts = _humans(messages, users)["sender_id"].value_counts()
    if counts.empty:
        return "No posters."
    top = counts.iloc[: max(1, len(counts) // 10)].sum() / counts.sum()
    return (
        f"The most active tenth of posters wrote {percent(float(top))} of messages "
        f"(Gini {gini(counts.to_numpy()):.2f})."
    )


def busiest_hour(
    messages: pd.DataFrame, *, users: pd.DataFrame | None = None, tz: str = "UTC"
) -> str:
    """The weekday and hour (in ``tz``) with most messages."""
    df = _humans(messages, users)
    if df.empty:
        return "No messages, so no busiest hour."
    local = df["timestamp"].dt.tz_convert(tz)
    busiest: Any = df.groupby([local.dt.day_name(), local.dt.hour]).size().idxmax()
    day, hour = busiest
    return f"The busiest hour of the week is {day} {int(hour):02d}:00 {tz}."


def reactions(
    messages: pd.DataFrame, reactions: pd.DataFrame, *, users: pd.DataFrame | None = None
) -> str:
    """The share of messages with a reaction, and the most used emoji."""
    df = _humans(messages, users)
    if df.empty:
        return "No messages."
    emoji = reactions["emoji_name"].value_counts() if len(reactions) else pd.Series([], dtype=int)
    reacted = (df["reaction_count"].fillna(0) > 0).mean() if "reaction_count" in df.columns else 0.0
    top = f":{emoji.index[0]}:" if len(emoji) else "none"
    return f"{percent(float(reacted))} of messages got a reaction; the most used emoji is {top}."


def direct_message_share(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The share of direct messages and the most used client's share.

    Clients by the names the client-mix plot shows (``website`` is the Web app; every API
    client is "API").
    """
    df = _humans(messages, users)
    if df.empty:
        return "No messages."
    clients = df["client"].astype("string").fillna("").map(client_label).value_counts()
    dms = float((df["type"] == "private").mean())
    return (
        f"{percent(dms)} of messages are direct messages; the most used client, "
        f"{clients.index[0]}, sends {percent(float(clients.iloc[0] / clients.sum()))} of all."
    )


def reply_pairs(result: Any) -> str:
    """How many pairs of people the reply graph of an interaction-graph result links."""
    pairs = result.graph.number_of_edges() if result.graph is not None else 0
    return (
        f"The reply graph links {pairs:,} pairs of people who answered each other in a topic, "
        f"in {result.communities:,} communities."
    )
