"""V1: :func:`messages_over_time` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
from typing import Any

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
    period_bounds,
    prepare_messages,
    utc,
)
from .._duck import MessagesSource, messages_only, run_engine
from .._duck_sql import Kept, in_list, private_channel_ids
from ..localtime import SENDER, sender_local_times, sender_zone_note, with_note
from ..schema import validate
from ._shared import _finish


@dataclasses.dataclass
class MessagesOverTime(ViewResult):
    """V1: messages per time bucket and split.

    ``frame`` columns: ``bucket_start``, ``bucket_end`` (aware, in ``tz``), ``split``,
    ``messages``, ``cumulative`` (running total of the split), ``partial`` (the bucket ends after
    ``as_of``, so its count is still growing, as the server's /stats marks it).

    Example::

        >>> r = messages_over_time(messages, users=users, freq="W", split="is_bot")
        >>> r.frame.pivot(index="bucket_start", columns="split", values="messages")
    """

    view = "messages_over_time"
    freq: str = "D"
    tz: str = "UTC"
    split: str | None = "is_bot"
    total: int = 0
    #: the bots' messages were left out (``exclude_bots``), rather than there being none
    bots_excluded: bool = False


_SPLITS = (None, "is_bot", "recipient_type", "channel", "client")


def _recipient_types(
    df: pd.DataFrame, channels: pd.DataFrame | None, dm_recipients: pd.DataFrame | None
) -> pd.Series:
    private: set[int] = set()
    if channels is not None and "invite_only" in channels.columns:
        c = validate(channels, "channels")
        private = {int(s) for s in c.loc[c["invite_only"].fillna(False).astype(bool), "stream_id"]}
    group: set[int] = set()
    if dm_recipients is not None:
        d = validate(dm_recipients, "dm_recipients")
        sizes = d.groupby("message_id")["user_id"].nunique()
        group = {int(i) for i in sizes[sizes > 2].index}
    dm = df["stream_id"].isna().to_numpy()
    in_group = df["id"].isin(list(group)).fillna(False).to_numpy(dtype=bool)
    in_private = df["stream_id"].isin(list(private)).fillna(False).to_numpy(dtype=bool)
    channel = (
        "channel" if channels is None else np.where(in_private, "private channel", "public channel")
    )
    out = np.where(dm, np.where(in_group, "group direct message", "direct message"), channel)
    return pd.Series(out, index=df.index, dtype="string")


def messages_over_time(
    messages: MessagesSource,
    *,
    users: pd.DataFrame | None = None,
    channels: pd.DataFrame | None = None,
    dm_recipients: pd.DataFrame | None = None,
    freq: str = "D",
    tz: str = "UTC",
    split: str | None = "is_bot",
    as_of: TimeLike | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
    default_tz: str = "UTC",
    engine: str = "pandas",
) -> MessagesOverTime:
    """V1: messages per ``freq`` bucket in time zone ``tz``, split, empty buckets included.

    Args:
        messages: the messages frame.
        users: the users frame (needed by ``split="is_bot"`` and ``exclude_bots``).
        channels: the channels frame (tells public from private channels for
            ``split="recipient_type"``; without it channel messages are ``channel``).
        dm_recipients: tells group direct messages (more than two people) from 1:1 ones.
        freq: ``h`` hour, ``D`` day, ``W`` week (Monday to Sunday), ``M`` month.
        tz: the time zone whose calendar makes the buckets.
        split: ``is_bot`` (human/bot), ``recipient_type`` (public channel, private channel,
            direct message, group direct message), ``channel``, ``client`` or None (``all``).
        as_of: the time the data was taken; a bucket ending after it is ``partial``. Default
            ``until``, else now.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
        default_tz: with ``tz="sender"`` (a message counts on its sender's own calendar, from
            ``users``), the zone of people who have none, and the zone the bucket bounds are
            given in; the note under the figure says how many have none.
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(messages_over_time, locals(), _sql)
    messages = messages_only(messages)
    check_freq(freq)
    if tz != SENDER:
        check_tz(tz)
    if split not in _SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {', '.join(map(str, _SPLITS))}")
    if split == "is_bot" and users is None:
        raise ValueError("split='is_bot' needs the users frame (users=...)")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    if split is None:
        keys = pd.Series("all", index=df.index, dtype="string")
        order = ["all"]
    elif split == "is_bot":
        bots = bot_ids(users)
        keys = pd.Series(
            np.where(df["sender_id"].isin(list(bots)).fillna(False), "bot", "human"),
            index=df.index,
            dtype="string",
        )
        order = ["human", "bot"]
    elif split == "recipient_type":
        keys = _recipient_types(df, channels, dm_recipients)
        order = [
            k
            for k in (
                "public channel",
                "private channel",
                "channel",
                "direct message",
                "group direct message",
            )
            if k in set(keys)
        ]
    else:
        keys = (
            df[split]
            .astype("string")
            .fillna("(direct message)" if split == "channel" else "(none)")
        )
        order = list(keys.value_counts().index)
    cols = ["bucket_start", "bucket_end", "split", "messages", "cumulative", "partial"]
    if df.empty:
        frame = pd.DataFrame({c: [] for c in cols})
        return MessagesOverTime(
            frame, coverage_of(coverage, df), freq, tz, split, 0, bots_excluded=exclude_bots
        )
    note = None
    if tz == SENDER:
        local, missing, senders = sender_local_times(
            df["timestamp"], df["sender_id"], users, default_tz
        )
        periods = local.dt.to_period(check_freq(freq))
        note = sender_zone_note(missing, senders, default_tz)
    else:
        periods = local_periods(df["timestamp"], freq, tz)
    counts = (
        pd.DataFrame({"period": periods, "split": keys})
        .groupby(["period", "split"], observed=True)
        .size()
        .unstack("split", fill_value=0)
    )
    cut = (
        pd.Timestamp.now(tz="UTC")
        if as_of is None and until is None
        else default_as_of(df, until, as_of)
    )
    cov = coverage_of(coverage, df)
    return _result(
        counts,
        order,
        cut,
        freq,
        tz,
        split,
        len(df),
        cov if note is None else with_note(cov, note),
        default_tz,
        anonymize,
        salt,
        exclude_bots,
    )


def _result(
    counts: pd.DataFrame,
    order: list[str],
    cut: pd.Timestamp,
    freq: str,
    tz: str,
    split: str | None,
    total: int,
    coverage: str | None,
    default_tz: str,
    anonymize: bool,
    salt: str,
    exclude_bots: bool,
) -> MessagesOverTime:
    """The view from ``counts`` (one row per period that has messages, one column per split)."""
    periods = pd.PeriodIndex(counts.index)
    full = pd.period_range(periods.min(), periods.max(), freq=periods.freq)
    counts = counts.reindex(index=full, columns=order, fill_value=0)
    start, end = period_bounds(pd.PeriodIndex(counts.index), default_tz if tz == SENDER else tz)
    rows = []
    for name in order:
        col = counts[name].astype("int64").to_numpy()
        rows.append(
            pd.DataFrame(
                {
                    "bucket_start": start,
                    "bucket_end": end,
                    "split": name,
                    "messages": col,
                    "cumulative": np.cumsum(col),
                    "partial": end > cut,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    frame["split"] = pd.Categorical(frame["split"], categories=order)
    return MessagesOverTime(
        _finish(frame, anonymize, salt),
        coverage,
        freq,
        tz,
        split,
        total,
        bots_excluded=exclude_bots,
    )


_TYPES = ("public channel", "private channel", "channel", "direct message", "group direct message")


def _sql(k: Kept, p: dict[str, Any]) -> MessagesOverTime | None:
    """The duckdb engine's counts: one row per local hour or day and split."""
    freq, tz, split = p["freq"], p["tz"], p["split"]
    if tz == SENDER or split not in _SPLITS or p["dm_recipients"] is not None:
        return None
    code = check_freq(freq)
    check_tz(tz)
    if split == "is_bot" and p["users"] is None:
        return None
    unit = "hour" if code == "h" else "day"
    if split is None:
        key = "'all'"
    elif split == "is_bot":
        key = f"CASE WHEN {in_list('sender_id', k.bots)} THEN 'bot' ELSE 'human' END"
    elif split == "recipient_type":
        channels = p["channels"]
        if channels is None:
            channel = "'channel'"
        else:
            private = private_channel_ids(channels)
            channel = (
                f"CASE WHEN {in_list('stream_id', private)} "
                "THEN 'private channel' ELSE 'public channel' END"
            )
        key = (
            "CASE WHEN stream_id IS NULL THEN (CASE WHEN len(list_distinct(dm_recipients)) > 2 "
            f"THEN 'group direct message' ELSE 'direct message' END) ELSE {channel} END"
        )
    else:
        key = f"coalesce({split}, '{'(direct message)' if split == 'channel' else '(none)'}')"
    agg = k.frame(
        f"SELECT date_trunc('{unit}', {k.local(tz)}) AS t, {key} AS split, "
        "count(*) AS n, min(id) AS first FROM k WHERE timestamp IS NOT NULL GROUP BY ALL"
    )
    if agg.empty:
        return None
    if split in (None, "is_bot"):
        order = ["all"] if split is None else ["human", "bot"]
    elif split == "recipient_type":
        order = [t for t in _TYPES if t in set(agg["split"])]
    else:
        tally = agg.groupby("split").agg(n=("n", "sum"), first=("first", "min"))
        tally["neg"] = -tally["n"]
        order = list(tally.sort_values(["neg", "first"], kind="stable").index)
    agg["period"] = pd.to_datetime(agg["t"]).dt.to_period(code)
    counts = agg.groupby(["period", "split"])["n"].sum().unstack("split", fill_value=0)
    until, as_of = p["until"], p["as_of"]
    cut = (
        pd.Timestamp.now(tz="UTC")
        if as_of is None and until is None
        else utc(as_of if as_of is not None else until)
    )
    total = int(agg["n"].sum())
    return _result(
        counts,
        order,
        cut,
        freq,
        tz,
        split,
        total,
        k.coverage(p["coverage"]),
        p["default_tz"],
        p["anonymize"],
        p["salt"],
        bool(p["exclude_bots"]),
    )
