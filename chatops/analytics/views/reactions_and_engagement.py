"""V8: :func:`reactions_and_engagement` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from .._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
    bot_ids,
    check_freq,
    check_tz,
    coverage_of,
    default_as_of,
    local_periods,
    parse_period,
    period_bounds,
    prepare_messages,
)
from .._duck import MessagesSource, messages_only, run_engine
from ..schema import validate
from ._shared import _finish, _window_mask


@dataclasses.dataclass
class ReactionsAndEngagement(ViewResult):
    """V8: emoji reactions: top emoji, reactions per message over time, who reacts to whom.

    ``frame`` (top emoji) columns: ``emoji_name``, ``reactions``, ``messages`` (distinct
    messages), ``reactors`` (distinct users). ``over_time``: ``bucket_start``, ``messages``,
    ``reactions``, ``reactions_per_message``. ``most_reacted``: ``message_id``, ``channel``,
    ``topic``, ``sender_id``, ``reactions``, ``top_emoji``. ``network``: ``reactor_id``,
    ``author_id``, ``reactions``.

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
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
    engine: str = "pandas",
) -> ReactionsAndEngagement:
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
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(reactions_and_engagement, locals())
    messages = messages_only(messages)
    check_freq(freq)
    check_tz(tz)
    td = parse_period(period)
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    if td is not None:
        end = default_as_of(df, until, as_of)
        df = df[_window_mask(df["timestamp"], end - td, end)]
    if reactions is None:
        raise ValueError("reactions_and_engagement needs the reactions frame (reactions=...)")
    r = validate(reactions, "reactions")
    r = r[r["message_id"].isin(df["id"].tolist()).fillna(False).astype(bool)]
    if exclude_bots:
        r = r[~r["user_id"].isin(list(bot_ids(users))).fillna(False).astype(bool)]
    r = r.assign(emoji_name=r["emoji_name"].astype("string"))
    top = (
        r.groupby("emoji_name")
        .agg(
            reactions=("message_id", "size"),
            messages=("message_id", "nunique"),
            reactors=("user_id", "nunique"),
        )
        .reset_index()
        .sort_values(["reactions", "emoji_name"], ascending=[False, True], kind="stable")
    )
    per_msg = r.groupby("message_id").size()
    if len(df):
        periods = local_periods(df["timestamp"], freq, tz)
        ordinals = pd.PeriodIndex(periods).asi8
        msg_bucket = pd.Series(ordinals, index=df["id"].astype("int64").to_numpy())
        full = pd.period_range(periods.min(), periods.max(), freq=periods.dt.freq)
        m_counts = pd.Series(ordinals).value_counts().reindex(full.asi8, fill_value=0)
        r_counts = (
            msg_bucket.reindex(r["message_id"].astype("int64").to_numpy())
            .value_counts()
            .reindex(full.asi8, fill_value=0)
        )
        start, _ = period_bounds(pd.PeriodIndex(full), tz)
        over = pd.DataFrame(
            {
                "bucket_start": start,
                "messages": m_counts.to_numpy().astype("int64"),
                "reactions": r_counts.to_numpy().astype("int64"),
            }
        )
        over["reactions_per_message"] = np.where(
            over["messages"] > 0, over["reactions"] / over["messages"].clip(lower=1), np.nan
        )
    else:
        over = pd.DataFrame(
            {c: [] for c in ["bucket_start", "messages", "reactions", "reactions_per_message"]}
        )
    info = df.set_index(df["id"].astype("int64"))
    pairs = r.groupby(["message_id", "emoji_name"]).size().rename("n").reset_index()
    pairs = pairs.sort_values(["message_id", "n", "emoji_name"], ascending=[True, False, True])
    top_emoji = pairs.drop_duplicates("message_id").set_index("message_id")["emoji_name"]
    most = per_msg.rename("reactions").reset_index()
    most["message_id"] = most["message_id"].astype("int64")
    most["channel"] = most["message_id"].map(info["channel"].astype("string"))
    most["topic"] = most["message_id"].map(info["topic"].astype("string"))
    most["sender_id"] = most["message_id"].map(info["sender_id"]).astype("Int64")
    most["top_emoji"] = most["message_id"].map(top_emoji).astype("string")
    most = most.sort_values(["reactions", "message_id"], ascending=[False, True], kind="stable")
    most = most[["message_id", "channel", "topic", "sender_id", "reactions", "top_emoji"]]
    net = pd.DataFrame(
        {
            "reactor_id": r["user_id"].astype("Int64").to_numpy(),
            "author_id": r["message_id"]
            .astype("int64")
            .map(info["sender_id"])
            .astype("Int64")
            .to_numpy(),
        }
    )
    network = (
        net.groupby(["reactor_id", "author_id"])
        .size()
        .rename("reactions")
        .reset_index()
        .sort_values(["reactions", "reactor_id", "author_id"], ascending=[False, True, True])
    )
    n = len(df)
    return ReactionsAndEngagement(
        _finish(top, anonymize, salt),
        coverage_of(coverage, df),
        _finish(over, anonymize, salt),
        _finish(most, anonymize, salt),
        _finish(network, anonymize, salt),
        len(r),
        len(r) / n if n else math.nan,
        len(per_msg) / n if n else math.nan,
        top_n,
    )
