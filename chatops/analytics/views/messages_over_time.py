"""V1: :func:`messages_over_time`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .._common import (
    TimeLike,
    check_freq,
    check_tz,
    period_bounds,
    utc,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._figure import empty as _empty
from ..change import Change, change_of
from ..engines import MessagesSource
from ..engines._sql import Kept, in_list, private_channel_ids
from ..localtime import SENDER, with_note
from ..pseudonyms import PseudonymKey
from ._draw import FREQ_WORD, PALETTE, date_axis, naive, zone
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, humans, seen_by, whose_messages


@dataclasses.dataclass
class MessagesOverTime(ViewResult):
    """V1: messages per time bucket and split.

    ``frame`` columns: ``bucket_start``, ``bucket_end`` (aware, in ``tz``), ``split``,
    ``messages``, ``cumulative`` (running total of the split), ``partial`` (the bucket ends after
    ``as_of``, so its count is still growing, as the server's /stats marks it; or it starts
    before ``since``, so the filter left out its beginning).

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
    #: the first moment counted (``since``): a bucket starting before it is partial
    since: pd.Timestamp | None = None

    def change(self) -> Change | None:
        """Messages in the last complete bucket against the bucket before (every split)."""
        if self.frame.empty:
            return None
        per = self.frame.groupby("bucket_start", observed=True).agg(
            messages=("messages", "sum"), partial=("partial", "any")
        )
        word = FREQ_WORD.get(self.freq, self.freq)
        return change_of(per["messages"], per["partial"], "messages", word)


_SPLITS = (None, "is_bot", "recipient_type", "channel", "client")


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
    key: PseudonymKey | str | None,
    exclude_bots: bool,
    since: pd.Timestamp | None = None,
) -> MessagesOverTime:
    """The view from ``counts`` (one row per period that has messages, one column per split);
    a bucket ending after ``cut`` or starting before ``since`` is partial."""
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
                    "partial": (end > cut) | (start < since if since is not None else False),
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    frame["split"] = pd.Categorical(frame["split"], categories=order)
    return MessagesOverTime(
        _finish(frame, anonymize, key),
        coverage,
        freq,
        tz,
        split,
        total,
        bots_excluded=exclude_bots,
        since=since,
    )


_TYPES = ("public channel", "private channel", "channel", "direct message", "group direct message")


def _sql(k: Kept, p: dict[str, Any]) -> MessagesOverTime:
    """The view's counts: one row per local hour or day and split."""
    freq, tz, split = p["freq"], p["tz"], p["split"]
    code = check_freq(freq)
    note = k.on_sender_clocks(p["users"], p["default_tz"]) if tz == SENDER else None
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
            "CASE WHEN stream_id IS NULL THEN (CASE WHEN array_length(list_distinct(dm_recipients)) > 2 "
            f"THEN 'group direct message' ELSE 'direct message' END) ELSE {channel} END"
        )
    else:
        key = f"coalesce({split}, '{'(direct message)' if split == 'channel' else '(none)'}')"
    agg = k.frame(
        f"SELECT date_trunc('{unit}', {k.local(tz)}) AS t, {key} AS split, "
        "count(*) AS n, min(id) AS first FROM k WHERE timestamp IS NOT NULL GROUP BY ALL"
    )
    if agg.empty:
        cols = ["bucket_start", "bucket_end", "split", "messages", "cumulative", "partial"]
        return MessagesOverTime(
            pd.DataFrame({c: [] for c in cols}),
            k.coverage(p["coverage"]),
            freq,
            tz,
            split,
            0,
            bots_excluded=bool(p["exclude_bots"]),
        )
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
        k.coverage(p["coverage"]) if note is None else with_note(k.coverage(p["coverage"]), note),
        p["default_tz"],
        p["anonymize"],
        p["key"],
        bool(p["exclude_bots"]),
        None if p["since"] is None else utc(p["since"]),
    )


# -- the plot -----------------------------------------------------------------------------------


_SPLIT_WORDS = {
    "is_bot": "humans and bots",
    "recipient_type": "by recipient type",
    "channel": "by channel",
    "client": "by client",
}


#: series drawn at most: past them, the splits with most messages and one of "other channels"
TOP_SERIES = 9
#: the colour of the "other" series
OTHER_COLOUR = "#8c8c8c"
#: legend entries past which the legend goes outside the axes
OUTSIDE_FROM = 6


def _partial_label(result: MessagesOverTime, word: str) -> str:
    """The legend entry of the hatched buckets: which they are and why each is partial."""
    f = result.frame
    first = f[f["split"] == f["split"].iloc[0]]
    flags = first["partial"].to_numpy(dtype=bool)
    start = first["bucket_start"].iloc[0]
    which = []
    if flags[0] and result.since is not None and start < result.since:
        since = result.since.tz_convert(start.tz)
        which.append(f"first {word} (counted from {since:%Y-%m-%d %H:%M})")
    if flags[-1] and (len(flags) > 1 or not which):
        which.append(f"last {word} (still counting)")
    return "partial: " + ", ".join(which)


def plot_messages_over_time(result: MessagesOverTime, ax: Axes | None = None) -> Figure:
    """V1: stacked bars per bucket and split, cumulative total on a second axis, partial bucket hatched.

    Args:
        result: a :func:`~chatops.analytics.views.messages_over_time` result.
        ax: axes to draw into; default a new figure.
    """
    own = ax is None
    fig, (ax,) = _axes(ax)
    df = result.frame
    word = FREQ_WORD.get(result.freq, result.freq)
    categories = list(df["split"].cat.categories) if len(df) else []
    # only what is drawn: a split with no message in any bucket (bots left out) is not a series
    totals = df.groupby("split", observed=False)["messages"].sum() if len(df) else None
    splits = [c for c in categories if totals is not None and totals[c] > 0] or categories[:1]
    split = _SPLIT_WORDS.get(result.split or "", f"by {result.split}") if result.split else ""
    if len(splits) < 2:
        split = f"{splits[0]}s only" if result.split == "is_bot" and splits else ""
        if split == "humans only" and not result.bots_excluded:
            split = "no bot messages"  # bots were kept; none of them posted
    ax.set_title(f"Messages sent per {word}" + (f", {split}" if split else ""))
    ax.set_xlabel(f"{word} ({zone(result.tz)})")
    ax.set_ylabel(f"messages per {word}")
    tidy(ax)
    counts(ax.yaxis)
    if df.empty:
        _empty(ax)
        return finish(fig, result.coverage)
    first = df["split"] == categories[0]
    starts = naive(df.loc[first, "bucket_start"])
    ends = naive(df.loc[first, "bucket_end"])
    width = (ends - starts) * 0.85
    partial = df.loc[first, "partial"].to_numpy()
    bottom = np.zeros(len(starts))
    for name, values, colour in _series(df, categories, splits, result.split):
        bars = ax.bar(
            starts, values, width=width, bottom=bottom, align="edge", color=colour, label=name
        )
        for bar, part in zip(bars, partial, strict=True):
            if part:
                bar.set_hatch("///")
                bar.set_alpha(0.55)
        bottom += values
    total = df.groupby("bucket_end", observed=True)["messages"].sum().cumsum()
    twin = ax.twinx()
    twin.plot(
        naive(total.index), total.to_numpy(), color="#222222", linewidth=1.5, label="cumulative"
    )
    twin.set_ylabel("cumulative messages")
    counts(twin.yaxis)
    # headroom above the tallest bar and the line so the legend never covers them
    ax.set_ylim(0, max(float(bottom.max()), 1.0) * 1.35)
    twin.set_ylim(0, max(float(total.max()), 1.0) * 1.35)
    twin.spines[["top"]].set_visible(False)
    handles, labels = ax.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    handles, labels = handles + h2, labels + l2
    if partial.any():
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="///"))
        labels.append(_partial_label(result, word))
    if len(handles) <= OUTSIDE_FROM:
        ax.legend(handles, labels, loc="upper left", fontsize=8, frameon=False, ncols=2)
    elif own:
        # many series: a legend of its own right of the axes (the layout keeps room for it)
        fig.set_size_inches(10.0, fig.get_figheight())
        fig.legend(handles, labels, loc="outside right upper", fontsize=8, frameon=False)
    else:
        ax.legend(
            handles, labels, loc="upper left", bbox_to_anchor=(1.12, 1.0), fontsize=8, frameon=False
        )
    date_axis(ax)
    return finish(fig, result.coverage)


def _series(
    df: pd.DataFrame, categories: list[Any], splits: list[Any], split: str | None
) -> list[tuple[str, np.ndarray, str]]:
    """Each series drawn: its label, its count per bucket and its colour. Past
    :data:`TOP_SERIES` splits, the ones with most messages and one series of all the others."""

    def values(names: list[Any]) -> np.ndarray:
        # the frame has a row for every split and bucket, in the same bucket order
        rows = [df.loc[df["split"] == n, "messages"].to_numpy(dtype=float) for n in names]
        out: np.ndarray = np.sum(rows, axis=0)
        return out

    if len(splits) <= TOP_SERIES:
        return [(str(n), values([n]), PALETTE[categories.index(n) % len(PALETTE)]) for n in splits]
    totals = df.groupby("split", observed=False)["messages"].sum()
    ranked = sorted(splits, key=lambda n: (-int(totals[n]), str(n)))
    top, rest = ranked[:TOP_SERIES], ranked[TOP_SERIES:]
    colours = [c for c in PALETTE if c != OTHER_COLOUR]
    noun = {"channel": "channels", "client": "clients"}.get(split or "", "series")
    return [(str(n), values([n]), colours[i % len(colours)]) for i, n in enumerate(top)] + [
        (f"{len(rest)} other {noun}", values(rest), OTHER_COLOUR)
    ]


# -- the sentence -------------------------------------------------------------------------------


def weekly_counts(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    tz: str = "UTC",
) -> pd.Series:
    """Messages per week (Monday to Sunday in ``tz``), indexed by each week's first day (a
    Monday, as a date); weeks without a message in between count 0."""
    df = humans(messages, users)
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
        f"against a median week of {float(weekly.median()):,.0f}"
        f"{seen_by(whose_messages(messages))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=1,
    title="Messages over time",
    result=MessagesOverTime,
    plot=plot_messages_over_time,
    sentence=busiest_week,
    sql=_sql,
)
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
    default_tz: str = "UTC",
    **options: Unpack[ViewOptions],
) -> None:
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
        default_tz: with ``tz="sender"`` (a message counts on its sender's own calendar, from
            ``users``), the zone of people who have none, and the zone the bucket bounds are
            given in; the note under the figure says how many have none.
    """
    check_freq(freq)
    check_tz(default_tz if tz == SENDER else tz)
    if split not in _SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {', '.join(map(str, _SPLITS))}")
    if split == "is_bot" and users is None:
        raise ValueError("split='is_bot' needs the users frame (users=...)")
