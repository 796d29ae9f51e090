"""V9: :func:`client_and_dm_mix`: its result, its SQL (its one computation), its plot and its sentence.

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
from ..coverage import EXPORT_HINT
from ..engines import MessagesSource
from ..engines._sql import Kept
from ..pseudonyms import PseudonymKey
from ._draw import PALETTE, date_axis, naive
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import (
    CLIENT_LABELS,
    _finish,
    dm_caveat,
    humans,
    needs_columns,
    seen_by,
    whose_messages,
)


@dataclasses.dataclass
class ClientAndDmMix(ViewResult):
    """V9: which clients people send from, and how much happens in direct messages.

    ``frame`` columns: ``label`` (:data:`CLIENT_LABELS`; webhook clients become ``Webhooks``),
    ``clients`` (the raw client names, ``;``-joined), ``messages``, ``share``. ``over_time``:
    ``bucket_start``, ``channel_messages``, ``dm_messages``, ``group_dm_messages`` (direct
    messages to more than two people, when ``dm_recipients`` is given), ``dm_share`` (all direct
    messages / all messages). ``dm_share``: over the whole window, of the messages in the
    dataset: from a sync (``viewpoint`` is the account's email) the direct messages are only the
    account's own, from an organization export (``the organization export``) everyone's.

    Example::

        >>> r = client_and_dm_mix(messages, freq="M")
        >>> r.frame; r.dm_share
    """

    view = "client_and_dm_mix"
    over_time: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    dm_share: float = math.nan
    top_client: str | None = None

    def change(self) -> Change | None:
        """Direct messages in the last complete bucket against the one before; the bucket of
        the newest message is taken as not over."""
        return change_of_buckets(self.over_time, "dm_messages", "direct messages")


def client_label(client: str) -> str:
    """The display name of a sending client (``website`` -> ``Web app``)."""
    if client in CLIENT_LABELS:
        return CLIENT_LABELS[client]
    if client.lower().endswith("webhook") or client.startswith("Zulip") and "Webhook" in client:
        return "Webhooks"
    return client or "(unknown)"


def _result(
    clients: pd.DataFrame,
    by_period: pd.DataFrame | None,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    key: PseudonymKey | str | None,
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
        _finish(frame, anonymize, key),
        coverage,
        over,
        dms / total if total else math.nan,
        str(frame["label"].iloc[0]) if len(frame) else None,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ClientAndDmMix:
    """The view's counts: one row per client, one per local day (or hour)."""
    code = check_freq(p["freq"])
    tz = check_tz(p["tz"])
    td = parse_period(p["period"])
    k.window(td, p["as_of"], p["until"])
    clients = k.frame("SELECT coalesce(client, '') AS client, count(*) AS n FROM k GROUP BY ALL")
    days = k.frame(
        f"SELECT date_trunc('{'hour' if code == 'h' else 'day'}', {k.local(tz)}) AS t, "
        "count(*) FILTER (stream_id IS NOT NULL) AS ch, count(*) FILTER (stream_id IS NULL) AS dm, "
        "count(*) FILTER (stream_id IS NULL AND array_length(list_distinct(dm_recipients)) > 2) AS gdm "
        "FROM k WHERE timestamp IS NOT NULL GROUP BY ALL"
    )
    by_period = None
    if len(days):
        days["p"] = pd.to_datetime(days["t"]).dt.to_period(code)
        by_period = days.groupby("p")[["ch", "dm", "gdm"]].sum()
    return _result(clients, by_period, tz, k.coverage(p["coverage"]), p["anonymize"], p["key"])


# -- the plot -----------------------------------------------------------------------------------


def plot_client_and_dm_mix(result: ClientAndDmMix, ax: Axes | None = None) -> Figure:
    """V9: messages by client; beside it, the direct-message share over time.

    Args:
        result: a :func:`~chatops.analytics.views.client_and_dm_mix` result.
        ax: axes for the client mix alone; default a new figure with both panels.
    """
    fig, axes = _axes(ax, 2 if ax is None else 1, size=(10.0, 4.0))
    mix = axes[0]
    data = result.frame.iloc[::-1]
    mix.set_title("Messages by client")
    mix.set_xlabel("messages")
    tidy(mix)
    counts(mix.xaxis)
    if len(data):
        bars = mix.barh(
            [str(x) for x in data["label"]],
            data["messages"].to_numpy(dtype=float),
            color=PALETTE[2],
        )
        mix.bar_label(bars, labels=[percent(s) for s in data["share"]], padding=3, fontsize=8)
        mix.margins(x=0.15)
    else:
        _empty(mix)
    if len(axes) > 1:
        dm = axes[1]
        o = result.over_time
        share = "" if np.isnan(result.dm_share) else f" (overall {percent(result.dm_share)})"
        caveat = dm_caveat(result.viewpoint)
        if caveat is not None:
            dm.set_title(f"Direct-message share{share}\nonly {result.viewpoint}'s own", fontsize=10)
        elif result.viewpoint is not None:
            dm.set_title(f"Direct-message share{share}, organization export")
        else:
            dm.set_title(f"Direct-message share{share}")
        dm.set_xlabel("time")
        dm.set_ylabel("direct messages (% of all)")
        tidy(dm)
        if len(o):
            dm.plot(
                naive(o["bucket_start"]),
                o["dm_share"] * 100,
                color=PALETTE[3],
                marker="o",
                markersize=3,
                label="direct messages",
            )
            dm.set_ylim(0, max(5.0, float(np.nanmax(o["dm_share"].to_numpy(dtype=float))) * 110))
            dm.legend(loc="upper left", fontsize=8, frameon=False)
            date_axis(dm)
        else:
            _empty(dm)
    caveat = dm_caveat(result.viewpoint) if len(axes) > 1 else None
    note = "; ".join(n for n in (result.coverage, caveat) if n) or None
    return finish(fig, note)


# -- the sentence -------------------------------------------------------------------------------


def direct_message_share(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The share of direct messages and the most used client's share, saying whose they are.

    Clients by the names the client-mix plot shows (``website`` is the Web app; every API
    client is "API"). When ``messages`` come from a sync (``messages.attrs`` say so), the
    direct messages are the synced account's own: the sentence says so, and points to an
    organization export for the organization's share.

    Example::

        >>> direct_message_share(ds.frames().messages)
        '0.1% of the messages iago@zulip.com sees are direct messages, all of them its own ...'
    """
    df = humans(messages, users)
    if df.empty:
        return "No messages."
    clients = df["client"].astype("string").fillna("").map(client_label).value_counts()
    dms = percent(float((df["type"] == "private").mean()))
    top = percent(float(clients.iloc[0] / clients.sum()))
    whose = whose_messages(messages)
    if dm_caveat(whose) is not None:
        return (
            f"{dms} of the messages {whose} sees are direct messages, all of them its own "
            f"(an account sees no one else's; for the organization's share import "
            f"{EXPORT_HINT}); the most used client, {clients.index[0]}, sends {top} of all."
        )
    where = "of the organization's messages" if whose is not None else "of messages"
    return (
        f"{dms} {where} are direct messages{seen_by(whose)}; the most used client, "
        f"{clients.index[0]}, sends {top} of all."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=9,
    title="Clients and DMs",
    result=ClientAndDmMix,
    plot=plot_client_and_dm_mix,
    sentence=direct_message_share,
    sql=_sql,
)
def client_and_dm_mix(
    messages: MessagesSource,
    *,
    dm_recipients: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    freq: str = "W",
    tz: str = "UTC",
    period: str | pd.Timedelta | None = None,
    as_of: TimeLike | None = None,
    **options: Unpack[ViewOptions],
) -> None:
    """V9: the client mix, and the direct-message share over time ("work hidden in DMs").

    Args:
        messages: the messages frame (needs ``client``).
        dm_recipients: tells group direct messages from 1:1 ones.
        users: the users frame (for ``exclude_bots``).
        freq: the bucket of ``over_time`` (``D``, ``W``, ``M``).
        tz: the time zone whose calendar makes the buckets.
        period: only the period ending at ``as_of``; None for all.
        as_of: the end of ``period``; default ``until``, else the last message's time.
    """
    needs_columns(messages, "client")
    check_freq(freq)
    check_tz(tz)
    parse_period(period)
