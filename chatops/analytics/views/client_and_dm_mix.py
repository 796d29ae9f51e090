"""V9: :func:`client_and_dm_mix` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from .._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
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
from .._duck_sql import Kept
from ..schema import validate
from ._shared import CLIENT_LABELS, _finish, _window_mask


@dataclasses.dataclass
class ClientAndDmMix(ViewResult):
    """V9: which clients people send from, and how much happens in direct messages.

    ``frame`` columns: ``label`` (:data:`CLIENT_LABELS`; webhook clients become ``Webhooks``),
    ``clients`` (the raw client names, ``;``-joined), ``messages``, ``share``. ``over_time``:
    ``bucket_start``, ``channel_messages``, ``dm_messages``, ``group_dm_messages`` (direct
    messages to more than two people, when ``dm_recipients`` is given), ``dm_share`` (all direct
    messages / all messages). ``dm_share``: over the whole window.

    Example::

        >>> r = client_and_dm_mix(messages, freq="M")
        >>> r.frame; r.dm_share
    """

    view = "client_and_dm_mix"
    over_time: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    dm_share: float = math.nan
    top_client: str | None = None


def client_label(client: str) -> str:
    """The display name of a sending client (``website`` -> ``Web app``)."""
    if client in CLIENT_LABELS:
        return CLIENT_LABELS[client]
    if client.lower().endswith("webhook") or client.startswith("Zulip") and "Webhook" in client:
        return "Webhooks"
    return client or "(unknown)"


def client_and_dm_mix(
    messages: MessagesSource,
    *,
    dm_recipients: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    freq: str = "W",
    tz: str = "UTC",
    period: str | pd.Timedelta | None = None,
    as_of: TimeLike | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
    engine: str = "pandas",
) -> ClientAndDmMix:
    """V9: the client mix, and the direct-message share over time ("work hidden in DMs").

    Args:
        messages: the messages frame (needs ``client``).
        dm_recipients: tells group direct messages from 1:1 ones.
        users: the users frame (for ``exclude_bots``).
        freq: the bucket of ``over_time`` (``D``, ``W``, ``M``).
        tz: the time zone whose calendar makes the buckets.
        period: only the period ending at ``as_of``; None for all.
        as_of: the end of ``period``; default ``until``, else the last message's time.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(client_and_dm_mix, locals(), _sql)
    messages = messages_only(messages)
    check_freq(freq)
    check_tz(tz)
    td = parse_period(period)
    df = prepare_messages(
        messages,
        users=users,
        since=since,
        until=until,
        exclude_bots=exclude_bots,
        require=("client",),
    )
    if td is not None:
        end = default_as_of(df, until, as_of)
        df = df[_window_mask(df["timestamp"], end - td, end)]
    raw = df["client"].astype("string").fillna("")
    clients = raw.value_counts().rename_axis("client").rename("n").reset_index()
    is_dm = df["stream_id"].isna()
    group: set[int] = set()
    if dm_recipients is not None:
        d = validate(dm_recipients, "dm_recipients")
        n = d.groupby("message_id")["user_id"].nunique()
        group = {int(i) for i in n[n > 2].index}
    is_group = is_dm & df["id"].isin(list(group)).fillna(False).astype(bool)
    by_period = None
    if len(df):
        by_period = (
            pd.DataFrame(
                {
                    "p": local_periods(df["timestamp"], freq, tz),
                    "ch": ~is_dm,
                    "dm": is_dm,
                    "gdm": is_group,
                }
            )
            .groupby("p")[["ch", "dm", "gdm"]]
            .sum()
        )
    return _result(clients, by_period, tz, coverage_of(coverage, df), anonymize, salt)


def _result(
    clients: pd.DataFrame,
    by_period: pd.DataFrame | None,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    salt: str,
) -> ClientAndDmMix:
    """The view from the count per raw client and the ``ch``/``dm``/``gdm`` counts per period."""
    labels = clients["client"].map(client_label)
    mix = pd.DataFrame({"label": labels, "client": clients["client"], "n": clients["n"]})
    frame = (
        mix.groupby("label")
        .agg(messages=("n", "sum"), clients=("client", lambda s: ";".join(sorted(set(s)))))
        .reset_index()
    )
    frame["messages"] = frame["messages"].astype("int64")
    frame = frame.sort_values(["messages", "label"], ascending=[False, True], kind="stable")
    total = int(frame["messages"].sum())
    frame["share"] = frame["messages"] / total if total else 0.0
    frame = frame[["label", "clients", "messages", "share"]]
    if by_period is not None and len(by_period):
        periods = pd.PeriodIndex(by_period.index)
        full = pd.period_range(periods.min(), periods.max(), freq=periods.freq)
        g = by_period.reindex(full, fill_value=0)
        start, _ = period_bounds(pd.PeriodIndex(full), tz)
        over = pd.DataFrame(
            {
                "bucket_start": start,
                "channel_messages": g["ch"].to_numpy().astype("int64"),
                "dm_messages": g["dm"].to_numpy().astype("int64"),
                "group_dm_messages": g["gdm"].to_numpy().astype("int64"),
            }
        )
        alls = over["channel_messages"] + over["dm_messages"]
        over["dm_share"] = np.where(alls > 0, over["dm_messages"] / alls.clip(lower=1), np.nan)
    else:
        over = pd.DataFrame(
            {
                c: []
                for c in [
                    "bucket_start",
                    "channel_messages",
                    "dm_messages",
                    "group_dm_messages",
                    "dm_share",
                ]
            }
        )
    dms = int(by_period["dm"].sum()) if by_period is not None else 0
    return ClientAndDmMix(
        _finish(frame, anonymize, salt),
        coverage,
        over,
        dms / total if total else math.nan,
        str(frame["label"].iloc[0]) if len(frame) else None,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ClientAndDmMix | None:
    """The duckdb engine's counts: one row per client, one per local day (or hour)."""
    if p["dm_recipients"] is not None:
        return None
    code = check_freq(p["freq"])
    tz = check_tz(p["tz"])
    td = parse_period(p["period"])
    k.window(td, p["as_of"], p["until"])
    clients = k.frame("SELECT coalesce(client, '') AS client, count(*) AS n FROM k GROUP BY ALL")
    days = k.frame(
        f"SELECT date_trunc('{'hour' if code == 'h' else 'day'}', {k.local(tz)}) AS t, "
        "count(*) FILTER (stream_id IS NOT NULL) AS ch, count(*) FILTER (stream_id IS NULL) AS dm, "
        "count(*) FILTER (stream_id IS NULL AND len(list_distinct(dm_recipients)) > 2) AS gdm "
        "FROM k WHERE timestamp IS NOT NULL GROUP BY ALL"
    )
    by_period = None
    if len(days):
        days["p"] = pd.to_datetime(days["t"]).dt.to_period(code)
        by_period = days.groupby("p")[["ch", "dm", "gdm"]].sum()
    return _result(clients, by_period, tz, k.coverage(p["coverage"]), p["anonymize"], p["salt"])
