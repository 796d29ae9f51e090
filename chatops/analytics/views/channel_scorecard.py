"""V3: :func:`channel_scorecard`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._common import (
    TimeLike,
    parse_period,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._figure import empty as _empty
from .._percent import percent
from ..engines import MessagesSource
from ..engines._sql import RESOLVED_SQL, Kept, literal_time, topic_name_sql
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import PALETTE
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, _window_mask, humans, seen_by, whose_messages


@dataclasses.dataclass
class ChannelScorecard(ViewResult):
    """V3: one row per channel over the ``period`` ending at ``as_of``.

    ``frame`` columns: ``stream_id``, ``channel``, ``messages``, ``previous_messages`` (the
    period before), ``change_pct`` (NaN when the period before had none), ``posters``,
    ``subscribers``, ``participation_pct`` (posters / subscribers), ``topics_created`` (first
    message in the period), ``active_topics``, ``median_topic_length`` (messages per active
    topic, in the period), ``resolved_pct`` (active topics resolved), ``last_activity``, ``rank``.
    ``hhi``: the Herfindahl-Hirschman index of the channels' message shares in the period (0 to
    1; 1 = all in one channel; ``1/n`` = evenly over n channels); NaN with fewer than two
    channels listed (a concentration needs several).

    Example::

        >>> r = channel_scorecard(messages, channels=channels, period="30D")
        >>> r.frame.head(10); r.hhi
    """

    view = "channel_scorecard"
    hhi: float = math.nan
    previous_hhi: float = math.nan
    period_start: pd.Timestamp | None = None
    as_of: pd.Timestamp | None = None
    top_n: int = 10


def _result(
    topics: pd.DataFrame,
    posters: pd.Series,
    names: dict[int, str],
    channels: pd.DataFrame | None,
    subscriptions: pd.DataFrame | None,
    compare_previous: bool,
    start: pd.Timestamp,
    end: pd.Timestamp,
    td: pd.Timedelta,
    coverage: str | None,
    top_n: int,
    anonymize: bool,
    key: PseudonymKey | str | None,
) -> ChannelScorecard:
    """The view from one row per topic (``stream_id``, ``topic_name``, ``first``, ``last``,
    ``size`` and ``resolved`` in the period, ``previous``: messages in the period before)."""
    subs_count: dict[int, int] = {}
    if channels is not None:
        c = validate(channels, "channels")
        names.update({int(s): str(n) for s, n in zip(c["stream_id"], c["name"], strict=True)})
        subs_count = {
            int(s): int(n)
            for s, n in zip(c["stream_id"], c["subscriber_count"], strict=True)
            if not pd.isna(n)
        }
    if subscriptions is not None:
        s = validate(subscriptions, "subscriptions")
        subs_count = {
            int(str(k)): int(v) for k, v in s.groupby("stream_id")["user_id"].nunique().items()
        }
    ids = sorted(names)
    created = topics[_window_mask(topics["first"], start, end)].groupby("stream_id").size()
    active = topics[topics["size"] > 0]
    per_topic = active.groupby("stream_id").agg(
        active_topics=("size", "size"),
        median_topic_length=("size", "median"),
        resolved_share=("resolved", "mean"),
    )
    msgs = active.groupby("stream_id")["size"].sum()
    before = topics[topics["previous"] > 0]
    prev_msgs = before.groupby("stream_id")["previous"].sum()
    last = topics.groupby("stream_id")["last"].max()
    index = pd.Index(ids, name="stream_id")
    n = msgs.reindex(index, fill_value=0).astype("int64")
    p = prev_msgs.reindex(index, fill_value=0).astype("int64")
    poster_n = posters.reindex(index, fill_value=0).astype("int64")
    subs = pd.Series(
        [subs_count.get(i, 0 if subscriptions is not None else None) for i in ids],
        index=index,
        dtype="Int64",
    )
    pt = per_topic.reindex(index)
    frame = pd.DataFrame(
        {
            "stream_id": ids,
            "channel": [names[i] for i in ids],
            "messages": n.to_numpy(),
            "previous_messages": p.to_numpy(),
            "change_pct": np.where(p > 0, 100.0 * (n - p) / p.clip(lower=1), np.nan),
            "posters": poster_n.to_numpy(),
            "subscribers": subs.to_numpy(),
            "participation_pct": (100.0 * poster_n / subs.where(subs > 0))
            .astype("Float64")
            .to_numpy(dtype=float, na_value=np.nan),
            "topics_created": created.reindex(index, fill_value=0).astype("int64").to_numpy(),
            "active_topics": pt["active_topics"].fillna(0).astype("int64").to_numpy(),
            "median_topic_length": pt["median_topic_length"].astype(float).to_numpy(),
            "resolved_pct": 100.0 * pt["resolved_share"].astype(float).to_numpy(),
            "last_activity": last.reindex(index).to_numpy(),
        }
    )
    if not compare_previous:
        frame["previous_messages"] = pd.NA
        frame["change_pct"] = math.nan
    frame = frame.sort_values(["messages", "channel"], ascending=[False, True], kind="stable")
    frame["rank"] = np.arange(1, len(frame) + 1)
    for col in ("stream_id", "previous_messages", "subscribers"):
        frame[col] = frame[col].astype("Int64")
    frame["last_activity"] = pd.to_datetime(frame["last_activity"], utc=True)

    def hhi(counts: pd.Series) -> float:
        total = counts.sum()
        several = len(ids) > 1  # one channel's share of itself says nothing
        return float(((counts / total) ** 2).sum()) if total and several else math.nan

    return ChannelScorecard(
        _finish(frame, anonymize, key),
        coverage,
        hhi(msgs),
        hhi(prev_msgs) if compare_previous else math.nan,
        start,
        end,
        top_n,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ChannelScorecard:
    """The view's counts: one row per topic, one per channel."""
    td = parse_period(p["period"])
    assert td is not None
    end = k.end(p["as_of"], p["until"])
    start = end - td
    lo, mid, hi = (literal_time(t) for t in (start - td, start, end))
    cur = f"(timestamp > {mid} AND timestamp <= {hi})"
    ch = (
        f"SELECT *, {topic_name_sql()} AS topic_name, starts_with(topic, {RESOLVED_SQL}) AS resolved "
        f"FROM k WHERE stream_id IS NOT NULL AND topic IS NOT NULL AND timestamp <= {hi}"
    )
    topics = k.frame(
        "SELECT stream_id, topic_name, min(timestamp) AS first, max(timestamp) AS last, "
        f"count(*) FILTER ({cur}) AS size, coalesce(bool_or(resolved AND {cur}), FALSE) AS resolved, "
        f"count(*) FILTER (timestamp > {lo} AND timestamp <= {mid}) AS previous "
        f"FROM ({ch}) GROUP BY ALL ORDER BY stream_id, topic_name"
    )
    per_channel = k.frame(
        f"SELECT stream_id, count(DISTINCT sender_id) FILTER ({cur}) AS posters, "
        f"arg_max(channel, id) AS channel FROM ({ch}) GROUP BY ALL"
    )
    posters = pd.Series(
        per_channel["posters"].to_numpy(), index=per_channel["stream_id"].to_numpy()
    )
    posters = posters[posters > 0].sort_index()
    pairs = zip(per_channel["stream_id"], per_channel["channel"], strict=True)
    names = {int(s): str(n) for s, n in pairs}
    topics["first"] = pd.to_datetime(topics["first"], utc=True)
    topics["last"] = pd.to_datetime(topics["last"], utc=True)
    return _result(
        topics,
        posters,
        names,
        p["channels"],
        p["subscriptions"],
        p["compare_previous"],
        start,
        end,
        td,
        k.coverage(p["coverage"]),
        p["top_n"],
        p["anonymize"],
        p["key"],
    )


# -- the plot -----------------------------------------------------------------------------------


def plot_channel_scorecard(result: ChannelScorecard, ax: Axes | None = None) -> Figure:
    """V3: leaderboard of the ``top_n`` busiest channels, this period against the one before.

    Args:
        result: a :func:`~chatops.analytics.views.channel_scorecard` result.
        ax: axes to draw into; default a new figure sized to the number of channels.
    """
    data = result.frame.head(result.top_n).iloc[::-1]
    fig, (ax,) = _axes(ax, size=(8.0, max(2.6, 0.42 * len(data) + 1.4)))
    days = None
    if result.as_of is not None and result.period_start is not None:
        days = (result.as_of - result.period_start) / pd.Timedelta(days=1)
    span = f"last {days:g} days" if days is not None else "period"
    hhi = "" if np.isnan(result.hhi) else f" (HHI {result.hhi:.2f})"
    if len(result.frame) == 1:
        hhi = " (HHI: needs several channels)"
    ax.set_title(f"Top {len(data)} channels by messages, {span}{hhi}")
    ax.set_xlabel("messages")
    tidy(ax)
    counts(ax.xaxis)
    if data.empty:
        _empty(ax, "no channels")
        return finish(fig, result.coverage)
    y = np.arange(len(data))
    has_prev = data["previous_messages"].notna().any()
    h = 0.4 if has_prev else 0.7
    bars = ax.barh(
        y + (h / 2 if has_prev else 0),
        data["messages"].to_numpy(dtype=float),
        height=h,
        color=PALETTE[0],
        label=span,
    )
    if has_prev:
        ax.barh(
            y - h / 2,
            data["previous_messages"].fillna(0).to_numpy(dtype=float),
            height=h,
            color="#b8c7e0",
            label="period before",
        )
        ax.legend(loc="lower right", fontsize=8, frameon=False)
    labels = []
    for n, ch in zip(data["change_pct"], data["messages"], strict=True):
        labels.append(f"{ch:,}" + ("" if pd.isna(n) else f"  ({n:+.0f}%)"))
    ax.bar_label(bars, labels=labels, padding=3, fontsize=8)
    ax.set_yticks(y, [str(c) for c in data["channel"]])
    ax.margins(x=0.18)
    return finish(fig, result.coverage)


# -- the sentence -------------------------------------------------------------------------------


def channel_share(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The busiest channel's share of channel messages, and the quietest channel's count."""
    per = humans(messages, users)["channel"].dropna().value_counts()
    if per.empty:
        return "No channel messages."
    return (
        f"#{per.index[0]} carries {percent(per.iloc[0] / per.sum())} of channel messages; "
        f"the quietest, #{per.index[-1]}, {int(per.iloc[-1]):,}"
        f"{seen_by(whose_messages(messages))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=3,
    title="Channel scorecard",
    result=ChannelScorecard,
    plot=plot_channel_scorecard,
    sentence=channel_share,
    sql=_sql,
)
def channel_scorecard(
    messages: MessagesSource,
    *,
    channels: pd.DataFrame | None = None,
    subscriptions: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    period: str | pd.Timedelta = "30D",
    compare_previous: bool = True,
    as_of: TimeLike | None = None,
    top_n: int = 10,
    **options: Unpack[ViewOptions],
) -> None:
    """V3: per-channel activity in ``(as_of - period, as_of]``, with the change on the period before.

    Args:
        messages: the messages frame.
        channels: the channels frame: lists channels with no messages too, and gives
            ``subscriber_count`` when ``subscriptions`` is absent.
        subscriptions: the subscriptions frame (subscribers per channel).
        users: the users frame (for ``exclude_bots``).
        period: the length of the period (``"30D"``, ``"7D"``).
        compare_previous: compute ``previous_messages`` and ``change_pct``.
        as_of: the end of the period; default ``until``, else the last message's time.
        top_n: how many channels the plot's leaderboard shows.
    """
    parse_period(period)
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
