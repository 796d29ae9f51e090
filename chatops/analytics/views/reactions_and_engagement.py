"""V8: :func:`reactions_and_engagement`: its result, its SQL (its one computation), its plot and its sentence.

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
    check_freq,
    check_tz,
    parse_period,
    period_bounds,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._figure import empty as _empty
from .._percent import percent
from ..change import Change, change_of_buckets
from ..engines import MessagesSource
from ..engines._sql import Kept, in_list
from ._draw import PALETTE, date_axis, naive
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, humans, seen_by, whose_messages

#: how many of the most reacted messages the result lists by default: a list of every reacted
#: message grows with the history (twenty million rows on 100 million messages)
MOST_REACTED = 1000


def _check_limit(limit: Any) -> None:
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit <= 0
    ):
        raise ValueError(
            f"most_reacted_limit must be a positive whole number or None (every reacted "
            f"message), got {limit!r}"
        )


@dataclasses.dataclass
class ReactionsAndEngagement(ViewResult):
    """V8: emoji reactions: top emoji, reactions per message over time, who reacts to whom.

    ``frame`` (top emoji) columns: ``emoji_name``, ``reactions``, ``messages`` (distinct
    messages), ``reactors`` (distinct users). ``over_time``: ``bucket_start``, ``messages``,
    ``reactions``, ``reactions_per_message``. ``most_reacted``: ``message_id``, ``channel``,
    ``topic``, ``sender_id``, ``reactions``, ``top_emoji``: the ``most_reacted_limit`` messages
    with the most reactions (ties by id); ``reacted_messages`` counts them all. ``network``:
    ``reactor_id``, ``author_id``, ``reactions``.

    Example::

        >>> r = reactions_and_engagement(messages, reactions, freq="W")
        >>> r.frame.head(5); r.reactions_per_message
    """

    view = "reactions_and_engagement"
    over_time: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    most_reacted: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    network: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    reactions: int = 0
    reactions_per_message: float = math.nan
    reacted_message_share: float = math.nan
    top_n: int = 10
    reacted_messages: int = 0
    most_reacted_limit: int | None = MOST_REACTED

    def change(self) -> Change | None:
        """Reactions in the last complete bucket against the one before; the bucket of the
        newest message is taken as not over."""
        return change_of_buckets(self.over_time, "reactions", "reactions")


def _over_time(
    m_counts: pd.Series | None, r_counts: pd.Series | None, freq: Any, tz: str
) -> pd.DataFrame:
    """``over_time`` from the messages and reactions per period ordinal."""
    if m_counts is None or r_counts is None or not len(m_counts):
        return pd.DataFrame(
            {c: [] for c in ["bucket_start", "messages", "reactions", "reactions_per_message"]}
        )
    lo, hi = int(m_counts.index.min()), int(m_counts.index.max())
    full = pd.period_range(pd.Period(ordinal=lo, freq=freq), pd.Period(ordinal=hi, freq=freq))
    start, _ = period_bounds(pd.PeriodIndex(full), tz)
    over = pd.DataFrame(
        {
            "bucket_start": start,
            "messages": m_counts.reindex(full.asi8, fill_value=0).to_numpy().astype("int64"),
            "reactions": r_counts.reindex(full.asi8, fill_value=0).to_numpy().astype("int64"),
        }
    )
    over["reactions_per_message"] = np.where(
        over["messages"] > 0, over["reactions"] / over["messages"].clip(lower=1), np.nan
    )
    return over


#: the most people whose reactor-author pairs are counted in a fixed table: DuckDB's perfect
#: hash aggregate takes 11 bits and a null bit for each of the two numbers of a person
DENSE_PEOPLE = 2047


def _network(k: Kept, users: pd.DataFrame | None) -> pd.DataFrame:
    """Reactions per reactor and author, from the kept reactions of ``kl``.

    The people of ``users`` are numbered first, 0 to n - 1. Up to :data:`DENSE_PEOPLE`
    people, the pairs of numbers are counted in DuckDB's perfect hash aggregate: a table with a
    cell for every pair, whose size is fixed by the people however long the history. Past
    that, without ``users``, or when a reactor or an author is not among them, the pairs of ids
    are counted in a hash table, which grows with the pairs that occur (1.3 million at 10
    million synthetic messages, 3.8 million at 100 million).
    """
    order = "ORDER BY reactions DESC, reactor_id, author_id"
    pairs = "(SELECT sender_id, unnest(kept).user_id AS user_id FROM kl WHERE array_length(kept) > 0) p "
    ids: list[int] = (
        []
        if users is None or "user_id" not in users
        else sorted({int(i) for i in users["user_id"].dropna()})
    )
    people = ", ".join(map(str, ids[: DENSE_PEOPLE + 1]))
    with k.numbered("kp", f"SELECT unnest([{people}]::BIGINT[]) AS id"):
        if 0 < len(ids) <= DENSE_PEOPLE:
            dense = k.frame(
                "SELECT r.id AS reactor_id, a.id AS author_id, n AS reactions FROM ("
                f"SELECT pr.ix AS ri, pa.ix AS ai, count(*) AS n FROM {pairs}"
                "LEFT JOIN kp pr ON pr.id = p.user_id LEFT JOIN kp pa ON pa.id = p.sender_id "
                "WHERE p.user_id IS NOT NULL AND p.sender_id IS NOT NULL GROUP BY ALL) g "
                f"LEFT JOIN kp r ON r.ix = g.ri LEFT JOIN kp a ON a.ix = g.ai {order}"
            )
            if dense["reactor_id"].notna().all() and dense["author_id"].notna().all():
                return dense
        return k.frame(
            "SELECT user_id AS reactor_id, sender_id AS author_id, count(*) AS reactions "
            f"FROM {pairs} WHERE user_id IS NOT NULL AND sender_id IS NOT NULL GROUP BY ALL {order}"
        )


def _sql(k: Kept, p: dict[str, Any]) -> ReactionsAndEngagement:
    """The view's SQL: a row per emoji, reacted message, reactor and author."""
    code = check_freq(p["freq"])
    tz = check_tz(p["tz"])
    top_n, limit = p["top_n"], p["most_reacted_limit"]
    k.window(parse_period(p["period"]), p["as_of"], p["until"])
    keep = f"NOT {in_list('r.user_id', k.bots)}" if p["exclude_bots"] else "TRUE"
    kept = f"list_filter(reactions, lambda r: {keep})" if p["exclude_bots"] else "reactions"
    day = f"date_trunc('{'hour' if code == 'h' else 'day'}', {k.local(tz)})"
    # each reacted message's kept reactions as a list (no row per reaction), and those
    # reactions one per row only inside the counts below
    k.execute(
        "CREATE OR REPLACE TEMP VIEW kl AS SELECT id AS message_id, channel, topic, sender_id, "
        f"{day} AS t, {kept} AS kept FROM k WHERE array_length(reactions) > 0"
    )
    k.execute(
        "CREATE OR REPLACE TEMP VIEW kr AS SELECT sender_id, r.user_id AS user_id, "
        "r.emoji_name AS emoji_name, t, "
        "list_position(list_transform(kept, lambda x: x.emoji_name), r.emoji_name) = pos AS first, "
        "pos = 1 AS lead "
        "FROM (SELECT sender_id, t, kept, unnest(kept) AS r, "
        "generate_subscripts(kept, 1) AS pos FROM kl WHERE array_length(kept) > 0)"
    )
    # one pass over the reactions: per emoji and reactor (gid 3), per day (14), all (15); an
    # emoji's messages are the reacted messages holding it (its first reaction there counts),
    # and the reacted messages are counted by their first
    k.execute(
        "CREATE OR REPLACE TEMP TABLE kg AS SELECT grouping(emoji_name, user_id, t) "
        "AS gid, emoji_name, user_id, t, count(*) AS n, count(*) FILTER (first) AS m, "
        "count(*) FILTER (lead) AS l FROM kr "
        "GROUP BY GROUPING SETS ((emoji_name, user_id), (t), ())"
    )
    top = k.frame(
        "SELECT emoji_name, sum(n)::BIGINT AS reactions, sum(m)::BIGINT AS messages, "
        "count(user_id) AS reactors FROM kg WHERE gid = 1 AND emoji_name IS NOT NULL "
        "GROUP BY ALL ORDER BY reactions DESC, emoji_name"
    )
    # the most reacted emoji of a message: the most reactions, then the first name
    names = "list_transform(kept, lambda x: x.emoji_name)"
    top_emoji = (
        f"list_sort(list_transform(list_distinct({names}), lambda e: "
        f"{{'n': -array_length(list_filter({names}, lambda y: y = e)), 'e': e}}))[1].e"
    )
    # the first ``limit`` by a top-n pass (no sort of every reacted message), then their emoji
    most = k.frame(
        "SELECT message_id, channel, topic, sender_id, reactions, "
        f"CASE WHEN reactions = 1 THEN kept[1].emoji_name ELSE {top_emoji} END AS top_emoji "
        "FROM (SELECT message_id, channel, topic, sender_id, array_length(kept) AS reactions, kept "
        "FROM kl WHERE array_length(kept) > 0 ORDER BY reactions DESC, message_id"
        f"{'' if limit is None else f' LIMIT {int(limit)}'}) ORDER BY reactions DESC, message_id"
    )
    most["message_id"] = most["message_id"].astype("int64")
    most["sender_id"] = most["sender_id"].astype("Int64")
    network = _network(k, p["users"])
    # the result's dtypes: counts as Int64, as a count of Int64 ids is in pandas
    top["reactions"] = top["reactions"].astype("Int64")
    # messages per day from their times alone; kept reactions per day from the pass above
    per_day = k.frame(
        f"SELECT d.t, d.m, coalesce(g.n, 0) AS r FROM (SELECT {day} AS t, count(*) AS m FROM k "
        "WHERE timestamp IS NOT NULL GROUP BY ALL) d "
        "LEFT JOIN (SELECT t, n FROM kg WHERE gid = 6 AND t IS NOT NULL) g ON g.t = d.t"
    )
    total, reacted = (
        int(v) for v in (k.execute("SELECT n, l FROM kg WHERE gid = 7") or [(0, 0)])[0]
    )
    k.execute("DROP TABLE kg")
    n = int(k.scalar("SELECT count(*) FROM k"))
    if len(per_day):
        ordinals = pd.PeriodIndex(pd.to_datetime(per_day["t"]).dt.to_period(code)).asi8
        m_counts = pd.Series(per_day["m"].to_numpy(), index=ordinals).groupby(level=0).sum()
        r_counts = pd.Series(per_day["r"].to_numpy(), index=ordinals).groupby(level=0).sum()
        over = _over_time(m_counts, r_counts[r_counts > 0], code, tz)
    else:
        over = _over_time(None, None, None, tz)
    anonymize, key = p["anonymize"], p["key"]
    return ReactionsAndEngagement(
        _finish(top, anonymize, key),
        k.coverage(p["coverage"]),
        _finish(over, anonymize, key),
        _finish(most, anonymize, key),
        _finish(network, anonymize, key),
        total,
        total / n if n else math.nan,
        reacted / n if n else math.nan,
        top_n,
        reacted,
        limit,
    )


# -- the plot -----------------------------------------------------------------------------------


def plot_reactions_and_engagement(result: ReactionsAndEngagement, ax: Axes | None = None) -> Figure:
    """V8: top emoji bars; beside them, reactions per message over time.

    Args:
        result: a :func:`~chatops.analytics.views.reactions_and_engagement` result.
        ax: axes for the top emoji alone; default a new figure with both panels.
    """
    fig, axes = _axes(ax, 2 if ax is None else 1, size=(10.0, 4.2))
    top = axes[0]
    data = result.frame.head(result.top_n).iloc[::-1]
    top.set_title(f"Top {len(data)} emoji ({result.reactions:,} reactions)")
    top.set_xlabel("reactions")
    tidy(top)
    counts(top.xaxis)
    if len(data):
        bars = top.barh(
            [str(e) for e in data["emoji_name"]],
            data["reactions"].to_numpy(dtype=float),
            color=PALETTE[1],
        )
        top.bar_label(bars, fmt="{:,.0f}", padding=3, fontsize=8)
        top.margins(x=0.12)
    else:
        _empty(top, "no reactions")
    if len(axes) > 1:
        line = axes[1]
        o = result.over_time
        line.set_title("Reactions per message")
        line.set_xlabel("time")
        line.set_ylabel("reactions per message")
        tidy(line)
        if len(o):
            line.plot(
                naive(o["bucket_start"]),
                o["reactions_per_message"],
                color=PALETTE[1],
                marker="o",
                markersize=3,
                label="reactions / message",
            )
            if not np.isnan(result.reactions_per_message):
                line.axhline(
                    result.reactions_per_message,
                    color="#999999",
                    linestyle=":",
                    label=f"overall {result.reactions_per_message:.2f}",
                )
            line.set_ylim(bottom=0)
            line.legend(loc="upper left", fontsize=8, frameon=False)
            date_axis(line)
        else:
            _empty(line)
    return finish(fig, result.coverage)


# -- the sentence -------------------------------------------------------------------------------


def reactions(
    messages: pd.DataFrame, reactions: pd.DataFrame, *, users: pd.DataFrame | None = None
) -> str:
    """The share of messages with a reaction, and the most used emoji."""
    df = humans(messages, users)
    if df.empty:
        return "No messages."
    emoji = reactions["emoji_name"].value_counts() if len(reactions) else pd.Series([], dtype=int)
    reacted = (df["reaction_count"].fillna(0) > 0).mean() if "reaction_count" in df.columns else 0.0
    top = f":{emoji.index[0]}:" if len(emoji) else "none"
    return (
        f"{percent(float(reacted))} of messages got a reaction{seen_by(whose_messages(messages))}; "
        f"the most used emoji is {top}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=8,
    title="Reactions",
    result=ReactionsAndEngagement,
    plot=plot_reactions_and_engagement,
    sentence=reactions,
    sql=_sql,
)
def reactions_and_engagement(
    messages: MessagesSource,
    reactions: pd.DataFrame | None = None,
    *,
    users: pd.DataFrame | None = None,
    freq: str = "W",
    tz: str = "UTC",
    period: str | pd.Timedelta | None = None,
    as_of: TimeLike | None = None,
    top_n: int = 10,
    most_reacted_limit: int | None = MOST_REACTED,
    **options: Unpack[ViewOptions],
) -> None:
    """V8: how people react: top emoji, reactions per message, most-reacted messages.

    Args:
        messages: the messages frame (reactions count on these messages only).
        reactions: the reactions frame.
        users: the users frame (for ``exclude_bots``, which also drops bots' reactions).
        freq: the bucket of ``over_time`` (``D``, ``W``, ``M``).
        tz: the time zone whose calendar makes the buckets.
        period: only the period ending at ``as_of``; None for all.
        as_of: the end of ``period``; default ``until``, else the last message's time.
        top_n: how many emoji and messages to list first (the plot shows these).
        most_reacted_limit: how many of the most reacted messages ``most_reacted`` lists;
            None lists every reacted message (a list that grows with the history).
    """
    check_freq(freq)
    check_tz(tz)
    parse_period(period)
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
    _check_limit(most_reacted_limit)
    if reactions is None and isinstance(messages, pd.DataFrame):
        raise ValueError("reactions_and_engagement needs the reactions frame (reactions=...)")
