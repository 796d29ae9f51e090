"""V4: :func:`topic_lifecycle`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from .._common import (
    TimeLike,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._figure import empty as _empty
from .._percent import percent
from ..change import Change, change_of
from ..engines import MessagesSource
from ..engines._sql import RESOLVED_SQL, Kept, sql_text, topic_name_sql
from ..pseudonyms import PseudonymKey
from ._draw import PALETTE
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, seen_by, whose_messages


@dataclasses.dataclass
class TopicLifecycle(ViewResult):
    """V4: one row per topic, with first reply and resolution.

    ``frame`` columns: ``stream_id``, ``channel``, ``topic`` (without the resolved prefix),
    ``started_at``, ``last_at``, ``duration_hours``, ``messages``, ``participants``,
    ``starter_id``, ``first_reply_at``, ``hours_to_first_reply`` (first message by someone other
    than the starter), ``within_sla`` (replied within ``first_reply_sla_hours``; False when
    unanswered past it; NA while the clock still runs), ``resolved`` (the name carries
    ``"✔ "`` now), ``resolved_at`` and ``hours_to_resolve`` (the first resolve edit in ``edits``;
    without one, a resolved name counts as resolved at the last message, ``resolved_source``
    says which), ``moved`` (a message was moved), ``renamed`` (the topic was renamed).
    ``survival``: Kaplan-Meier share of topics still unresolved ``hours`` after their start,
    unresolved topics censored at ``as_of``.

    Example::

        >>> r = topic_lifecycle(messages, edits=edits, first_reply_sla_hours=4)
        >>> r.frame.sort_values("hours_to_first_reply").tail()
    """

    view = "topic_lifecycle"
    survival: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    first_reply_sla_hours: float = 24.0
    topics: int = 0
    replied_pct: float = math.nan
    sla_met_pct: float = math.nan
    median_hours_to_first_reply: float = math.nan
    resolved_pct: float = math.nan
    median_hours_to_resolve: float = math.nan

    def change(self) -> Change | None:
        """Topics started in the last complete week (Monday to Sunday, UTC) against the week
        before; the week of the newest topic is taken as not over."""
        if self.frame.empty:
            return None
        started = pd.DatetimeIndex(self.frame["started_at"]).tz_convert("UTC").tz_localize(None)
        weeks = pd.Series(1, index=started.to_period("W")).groupby(level=0).sum()
        full = pd.period_range(weeks.index.min(), weeks.index.max(), freq="W")
        weeks = weeks.reindex(full, fill_value=0)
        starts = full.start_time.tz_localize("UTC")
        values = pd.Series(weeks.to_numpy(), index=starts)
        partial = pd.Series(full == full.max(), index=starts)
        return change_of(values, partial, "topics started", "week")


def _hours(delta: pd.Series) -> pd.Series:
    hours: pd.Series = delta.dt.total_seconds() / 3600.0
    return hours


def _kaplan_meier(durations: np.ndarray, events: np.ndarray) -> pd.DataFrame:
    order = np.lexsort((~events, durations))
    d, e = durations[order], events[order]
    at_risk = len(d)
    share = 1.0
    hours, shares = [0.0], [1.0]
    i = 0
    while i < len(d):
        t = d[i]
        j = i
        deaths = 0
        while j < len(d) and d[j] == t:
            deaths += int(e[j])
            j += 1
        if deaths:
            share *= 1.0 - deaths / at_risk
            hours.append(float(t))
            shares.append(share)
        at_risk -= j - i
        i = j
    return pd.DataFrame({"hours": hours, "unresolved_share": shares})


def _result(
    frame: pd.DataFrame,
    end: pd.Timestamp,
    first_reply_sla_hours: float,
    coverage: str | None,
    anonymize: bool,
    key: PseudonymKey | str | None,
) -> TopicLifecycle:
    """The view from one row per topic, in (stream_id, topic) order: ``stream_id``, ``channel``,
    ``topic``, ``started_at``, ``last_at``, ``messages``, ``participants``, ``starter_id``,
    ``resolved``, ``first_reply_at``, ``resolved_at`` (the first resolve edit), ``moved``,
    ``renamed``."""
    source = pd.Series(pd.NA, index=frame.index, dtype="string")
    source[frame["resolved_at"].notna()] = "edit"
    by_name = frame["resolved_at"].isna() & frame["resolved"]
    frame.loc[by_name, "resolved_at"] = frame.loc[by_name, "last_at"]
    source[by_name] = "name"
    frame["resolved_source"] = source
    frame = frame.reset_index(drop=True)
    for c in ("started_at", "last_at", "first_reply_at", "resolved_at"):
        frame[c] = pd.to_datetime(frame[c], utc=True)
    frame["duration_hours"] = _hours(frame["last_at"] - frame["started_at"])
    frame["hours_to_first_reply"] = _hours(frame["first_reply_at"] - frame["started_at"])
    frame["hours_to_resolve"] = _hours(frame["resolved_at"] - frame["started_at"])
    age = _hours(end - frame["started_at"])
    sla = first_reply_sla_hours
    within = pd.Series(pd.NA, index=frame.index, dtype="boolean")
    replied = frame["hours_to_first_reply"].notna()
    within[replied] = frame.loc[replied, "hours_to_first_reply"] <= sla
    within[~replied & (age > sla)] = False
    frame["within_sla"] = within
    frame["resolved_source"] = frame["resolved_source"].astype("string")
    frame["starter_id"] = frame["starter_id"].astype("Int64")
    frame["stream_id"] = frame["stream_id"].astype("Int64")
    cols = [
        "stream_id",
        "channel",
        "topic",
        "started_at",
        "last_at",
        "duration_hours",
        "messages",
        "participants",
        "starter_id",
        "first_reply_at",
        "hours_to_first_reply",
        "within_sla",
        "resolved",
        "resolved_at",
        "hours_to_resolve",
        "resolved_source",
        "moved",
        "renamed",
    ]
    frame = frame[cols]
    done = frame["hours_to_resolve"].notna().to_numpy()
    durations = np.where(
        done,
        frame["hours_to_resolve"].fillna(0).to_numpy(dtype=float),
        np.maximum(age.fillna(0).to_numpy(dtype=float), 0.0),
    )
    survival = _kaplan_meier(durations, done)

    def median(s: pd.Series) -> float:
        return float(s.median()) if s.notna().any() else math.nan

    decided = frame["within_sla"].dropna()
    n = len(frame)
    return TopicLifecycle(
        _finish(frame, anonymize, key),
        coverage,
        survival,
        float(sla),
        n,
        100.0 * float(replied.mean()) if n else math.nan,
        100.0 * float(decided.astype(bool).mean()) if len(decided) else math.nan,
        median(frame["hours_to_first_reply"]),
        100.0 * float(frame["resolved"].mean()) if n else math.nan,
        median(frame["hours_to_resolve"]),
    )


#: the most memory the participants' bitmaps may take (one bit per sender id per topic)
BITMAP_BYTES = 64 * 1024**2


def _participants_sql(topics: int, low: Any, high: Any) -> str:
    """The SQL of a topic's distinct senders: the bits set in a bitmap over the sender ids
    ``low`` to ``high`` when the ``topics`` bitmaps fit in :data:`BITMAP_BYTES`, else
    ``count(DISTINCT)``.

    Both are exact. ``count(DISTINCT)`` keeps every (topic, sender) pair in a hash table that
    grows with the history (1.8 million pairs at 10 million synthetic messages, 7.6 million at
    100 million); the bitmaps' size is fixed by the topics and the range of the sender ids.
    """
    if low is None or topics * ((int(high) - int(low)) // 8 + 1) > BITMAP_BYTES:
        return "count(DISTINCT sender_id)"
    return (
        f"coalesce(bit_count(bitstring_agg(sender_id, {int(low)}, {int(high)}) "
        "FILTER (sender_id IS NOT NULL)), 0)"
    )


def _topics(k: Kept, only: str) -> pd.DataFrame:
    """One row per topic from DuckDB, through two small temporary tables dropped after."""
    try:
        # each topic numbered first (one row per topic name as written, with its senders' lowest
        # and highest ids), as a table: DuckDB then knows how small it is and joins the messages
        # to it, never the other way round
        k.execute(
            "CREATE OR REPLACE TEMP TABLE tl_d AS SELECT stream_id, topic, "
            f"{topic_name_sql()} AS name, "
            f"dense_rank() OVER (ORDER BY stream_id, {topic_name_sql()}) "
            "AS tid, low, high FROM (SELECT stream_id, topic, min(sender_id) AS low, "
            "max(sender_id) AS high FROM k "
            f"WHERE stream_id IS NOT NULL AND topic IS NOT NULL AND {only} GROUP BY ALL)"
        )
        topics, low, high = k.execute("SELECT count(*), min(low), max(high) FROM tl_d")[0]
        # (timestamp, id) as one number: the messages' order, cheap to compare
        o = "epoch_us(k.timestamp)::HUGEINT * 10000000000000 + k.id"
        km = (
            f"(SELECT d.tid, k.timestamp, k.sender_id, k.channel, {o} AS o, "
            f"starts_with(k.topic, {RESOLVED_SQL}) AS resolved, "
            "k.last_moved_timestamp IS NOT NULL AS is_moved, k.edits "
            f"FROM k JOIN tl_d d ON k.stream_id = d.stream_id AND k.topic = d.topic WHERE {only})"
        )
        # then passes over the messages, each keeping one row per topic: its counts and starter,
        # its first reply (the first message of a sender other than the starter), its edits (from
        # the messages that have any). Nothing per message is held, sorted or joined but the small
        # tables of topics.
        k.execute(
            "CREATE OR REPLACE TEMP TABLE tl_t AS SELECT tid, "
            "arg_max(channel, o) FILTER (channel IS NOT NULL) AS channel, "
            "min(timestamp) AS started_at, max(timestamp) AS last_at, count(*) AS messages, "
            f"{_participants_sql(int(topics), low, high)} AS participants, "
            "arg_min(sender_id, o) FILTER (sender_id IS NOT NULL) AS starter_id, "
            "arg_max(resolved, o) AS resolved, bool_or(is_moved) AS moved_msg "
            f"FROM {km} GROUP BY tid"
        )
        frame = k.frame(
            "WITH e AS (SELECT tid, min(x.timestamp) FILTER (x.kind = 'resolve') AS resolved_at, "
            "  bool_or(x.kind IN ('move_topic', 'move_channel')) AS moved_edit, "
            "  bool_or(x.kind = 'move_topic') AS renamed "
            f"  FROM (SELECT tid, unnest(edits) AS x FROM {km} WHERE array_length(edits) > 0) "
            "  GROUP BY tid), "
            "r AS (SELECT km.tid, min(km.timestamp) AS first_reply_at "
            f"  FROM {km} km JOIN tl_t t ON km.tid = t.tid WHERE km.sender_id <> t.starter_id "
            "  GROUP BY km.tid), "
            "n AS (SELECT DISTINCT tid, stream_id, name FROM tl_d) "
            "SELECT n.stream_id, t.channel, n.name AS topic, t.started_at, t.last_at, t.messages, "
            "  t.participants, t.starter_id, t.resolved, r.first_reply_at, e.resolved_at, "
            "  coalesce(t.moved_msg, FALSE) OR coalesce(e.moved_edit, FALSE) AS moved, "
            "  coalesce(e.renamed, FALSE) AS renamed "
            "FROM tl_t t JOIN n ON n.tid = t.tid LEFT JOIN r ON r.tid = t.tid "
            "LEFT JOIN e ON e.tid = t.tid ORDER BY n.stream_id, n.name"
        )
        return frame
    finally:
        k.execute("DROP TABLE IF EXISTS tl_t")
        k.execute("DROP TABLE IF EXISTS tl_d")


def _sql(k: Kept, p: dict[str, Any]) -> TopicLifecycle:
    """The view's SQL: one row per topic (its messages, replies, edits)."""
    only = "TRUE"
    if p["channel_names"] is not None:
        wanted = sorted({str(c) for c in p["channel_names"]})
        only = f"channel IN ({', '.join(map(sql_text, wanted))})" if wanted else "FALSE"
    frame = _topics(k, only)
    frame["stream_id"] = frame["stream_id"].astype("int64")
    frame["starter_id"] = frame["starter_id"].astype("Int64")
    # a count of messages is Int64, as a count of Int64 ids is in pandas
    frame["messages"] = frame["messages"].astype("Int64")
    for c in ("resolved", "moved", "renamed"):
        frame[c] = frame[c].astype(bool)
    end = k.end(p["as_of"], p["until"])
    return _result(
        frame, end, p["first_reply_sla_hours"], k.coverage(p["coverage"]), p["anonymize"], p["key"]
    )


# -- the plot -----------------------------------------------------------------------------------


def plot_topic_lifecycle(result: TopicLifecycle, ax: Axes | None = None) -> Figure:
    """V4: survival curve of unresolved topics; beside it, time to first reply against the SLA.

    Args:
        result: a :func:`~chatops.analytics.views.topic_lifecycle` result.
        ax: axes for the survival curve alone; default a new figure with both panels.
    """
    fig, axes = _axes(ax, 2 if ax is None else 1, size=(10.0, 4.0))
    surv = axes[0]
    s = result.survival
    # past three days, hours are hard to read: the curve is drawn in days
    in_days = len(s) > 0 and float(s["hours"].max()) > 72
    unit = "days" if in_days else "hours"
    surv.set_title(f"Topics still unresolved ({result.topics:,} topics)")
    surv.set_xlabel(f"{unit} since the topic started")
    surv.set_ylabel("share unresolved (%)")
    tidy(surv)
    if len(s):
        surv.step(
            s["hours"] / (24.0 if in_days else 1.0),
            s["unresolved_share"] * 100,
            where="post",
            color=PALETTE[0],
            label="Kaplan-Meier estimate",
        )
        surv.set_ylim(0, 102)
        surv.set_xlim(left=0)
        surv.legend(loc="upper right", fontsize=8, frameon=False)
    else:
        _empty(surv, "no topics")
    if len(axes) > 1:
        _first_reply_histogram(axes[1], result)
    return finish(fig, result.coverage)


#: readable marks of a log time axis, in hours
_DURATION_TICKS = (
    (1 / 60, "1 min"),
    (10 / 60, "10 min"),
    (1.0, "1 h"),
    (6.0, "6 h"),
    (24.0, "1 day"),
    (168.0, "1 week"),
    (720.0, "30 days"),
    (8760.0, "1 year"),
)
#: the shortest time to first reply drawn: a reply within a minute is drawn at one minute
_LEAST_HOURS = 1 / 60


def _first_reply_histogram(hist: Axes, result: TopicLifecycle) -> None:
    """Time to first reply on a log axis (a minute to the slowest reply), with the SLA line."""
    sla = result.first_reply_sla_hours
    hist.set_title("Time to first reply")
    hist.set_xlabel("time to first reply (log scale)")
    hist.set_ylabel("topics")
    tidy(hist)
    counts(hist.yaxis)
    hours = result.frame["hours_to_first_reply"].dropna().to_numpy(dtype=float)
    if not len(hours):
        _empty(hist, "no replies")
        return
    drawn = np.clip(hours, _LEAST_HOURS, None)
    low = min(float(drawn.min()), sla) / 1.2
    high = max(float(drawn.max()), sla) * 1.2
    hist.hist(drawn, bins=list(np.geomspace(low, high, 25)), color=PALETTE[1], label="topics")
    hist.set_xscale("log")
    hist.set_xlim(low, high)
    marks = [(h, t) for h, t in _DURATION_TICKS if low <= h <= high]
    hist.set_xticks([h for h, _ in marks], [t for _, t in marks])
    hist.xaxis.set_minor_locator(NullLocator())
    hist.axvline(sla, color="#c44e52", linestyle="--", label=f"SLA {sla:g} h")
    hist.set_ylim(0, hist.get_ylim()[1] * 1.35)  # headroom: the legend never covers a bar
    met = (
        "" if np.isnan(result.sla_met_pct) else f"; {percent(result.sla_met_pct / 100)} within SLA"
    )
    hist.legend(
        loc="upper right",
        fontsize=8,
        frameon=True,  # opaque, so the SLA line passes behind it, not through its words
        facecolor="white",
        edgecolor="none",
        framealpha=1.0,
        title=f"{len(hours):,} replied{met}",
        title_fontsize=8,
    )


# -- the sentence -------------------------------------------------------------------------------


def topics_resolved(topics: pd.DataFrame) -> str:
    """The share of topics resolved and the median messages per topic (a topics frame)."""
    if topics is None or topics.empty:
        return "No topics."
    resolved = topics["resolved"].fillna(False).astype(bool).mean()
    return (
        f"{percent(float(resolved))} of {len(topics):,} topics are resolved; a topic has "
        f"{float(topics['messages'].median()):,.0f} messages at the median"
        f"{seen_by(whose_messages(topics))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=4,
    title="Topic lifecycle",
    result=TopicLifecycle,
    plot=plot_topic_lifecycle,
    sentence=topics_resolved,
    sql=_sql,
)
def topic_lifecycle(
    messages: MessagesSource,
    *,
    edits: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    channel_names: Iterable[str] | None = None,
    first_reply_sla_hours: float = 24.0,
    as_of: TimeLike | None = None,
    **options: Unpack[ViewOptions],
) -> None:
    """V4: each topic's life: start, end, participants, time to first reply, time to resolve.

    Args:
        messages: the messages frame (channel messages are used).
        edits: the edits frame: resolve times, moves and renames.
        users: the users frame (for ``exclude_bots``).
        channel_names: only these channels (default all).
        first_reply_sla_hours: the reply target for ``within_sla`` (positive).
        as_of: the time unresolved topics are censored at; default ``until``, else the last
            message's time.
    """
    if not first_reply_sla_hours > 0:
        raise ValueError(f"first_reply_sla_hours must be positive, got {first_reply_sla_hours}")
