"""One matplotlib figure per analytics view (V1-V10).

Figures are built with ``matplotlib.figure.Figure`` (no pyplot state), so they work under the
Agg backend, in threads and in notebooks alike. Each function takes a view's result and an
optional ``ax``: with ``ax`` it draws the view's main panel there; without, it makes a figure with
the main panel and, where the view has one, a second panel::

    >>> fig = plot_messages_over_time(messages_over_time(messages, users=users, freq="W"))
    >>> fig.savefig("v1.png")

The result objects call these from their ``plot(ax=None)`` method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import NullLocator

from ._figure import ReportFigure, counts, finish, new_figure, tidy
from ._figure import axes as _axes
from ._figure import empty as _empty
from ._figure import figure_of as _figure_of
from ._graph_plot import plot_interaction_graph
from ._percent import percent

if TYPE_CHECKING:
    from .views import (
        ActiveUsers,
        ActivityHeatmap,
        ChannelScorecard,
        ClientAndDmMix,
        MessagesOverTime,
        NewcomerCohorts,
        ParticipationDistribution,
        ReactionsAndEngagement,
        TopicLifecycle,
    )

__all__ = [
    "ReportFigure",
    "plot_active_users",
    "plot_activity_heatmap",
    "plot_channel_scorecard",
    "plot_client_and_dm_mix",
    "plot_interaction_graph",
    "plot_messages_over_time",
    "plot_newcomer_cohorts",
    "plot_participation_distribution",
    "plot_reactions_and_engagement",
    "plot_topic_lifecycle",
]

PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
_FREQ_WORD = {"h": "hour", "D": "day", "W": "week", "M": "month"}
_SPLIT_WORDS = {
    "is_bot": "humans and bots",
    "recipient_type": "by recipient type",
    "channel": "by channel",
    "client": "by client",
}


def _zone(tz: str) -> str:
    """How a figure names a view's time zone (``sender``: each sender's own)."""
    return "each sender's own time zone" if tz == "sender" else tz


def _date_axis(ax: Axes) -> None:
    locator = mdates.AutoDateLocator(minticks=3, maxticks=8)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]


def _naive(ts: Any) -> Any:
    """Local wall-clock datetimes for matplotlib (it would draw aware ones in UTC)."""
    idx = pd.DatetimeIndex(ts)
    return idx.tz_localize(None) if idx.tz is not None else idx


# -- V1 ----------------------------------------------------------------------------------------


def plot_messages_over_time(result: MessagesOverTime, ax: Axes | None = None) -> Figure:
    """V1: stacked bars per bucket and split, cumulative total on a second axis, partial bucket hatched.

    Args:
        result: a :func:`~chatops.analytics.views.messages_over_time` result.
        ax: axes to draw into; default a new figure.
    """
    fig, (ax,) = _axes(ax)
    df = result.frame
    word = _FREQ_WORD.get(result.freq, result.freq)
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
    ax.set_xlabel(f"{word} ({_zone(result.tz)})")
    ax.set_ylabel(f"messages per {word}")
    tidy(ax)
    counts(ax.yaxis)
    if df.empty:
        _empty(ax)
        return finish(fig, result.coverage)
    first = df["split"] == categories[0]
    starts = _naive(df.loc[first, "bucket_start"])
    ends = _naive(df.loc[first, "bucket_end"])
    width = (ends - starts) * 0.85
    partial = df.loc[first, "partial"].to_numpy()
    bottom = np.zeros(len(starts))
    for name in splits:
        i = categories.index(name)
        values = df.loc[df["split"] == name, "messages"].to_numpy(dtype=float)
        bars = ax.bar(
            starts,
            values,
            width=width,
            bottom=bottom,
            align="edge",
            color=PALETTE[i % len(PALETTE)],
            label=str(name),
        )
        for bar, part in zip(bars, partial, strict=True):
            if part:
                bar.set_hatch("///")
                bar.set_alpha(0.55)
        bottom += values
    total = df.groupby("bucket_end", observed=True)["messages"].sum().cumsum()
    twin = ax.twinx()
    twin.plot(
        _naive(total.index), total.to_numpy(), color="#222222", linewidth=1.5, label="cumulative"
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
        labels.append("partial (still counting)")
    ax.legend(handles, labels, loc="upper left", fontsize=8, frameon=False, ncols=2)
    _date_axis(ax)
    return finish(fig, result.coverage)


# -- V2 ----------------------------------------------------------------------------------------


def plot_active_users(result: ActiveUsers, ax: Axes | None = None) -> Figure:
    """V2: one line per trailing window; below it, stickiness (DAU/MAU).

    Args:
        result: an :func:`~chatops.analytics.views.active_users` result.
        ax: axes for the active-user lines alone; default a new figure with both panels.
    """
    stick_ax: Axes | None = None
    fig: Figure
    if ax is None:
        fig = new_figure((8.0, 5.2))
        ax, stick_ax = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    else:
        fig = _figure_of(ax)
    what = "sent a message" if result.definition == "sent" else "sent a message or were seen"
    ax.set_title(f"Active users (people who {what} in the trailing window)")
    ax.set_ylabel("active users")
    tidy(ax)
    counts(ax.yaxis)
    df = result.frame
    if df.empty:
        _empty(ax)
        return finish(fig, result.coverage)
    for i, (w, part) in enumerate(df.groupby("window", sort=True)):
        label = str(part["label"].iloc[0])
        ax.plot(
            _naive(part["date"]),
            part["active_users"],
            color=PALETTE[i % len(PALETTE)],
            label=f"{label} ({w}-day window)" if label != f"{w}-day" else label,
            linewidth=1.4,
        )
    ax.set_ylim(0, max(float(df["active_users"].max()), 1.0) * 1.3)
    ax.legend(loc="upper left", fontsize=8, frameon=False, ncols=len(result.windows))
    if stick_ax is None:
        ax.set_xlabel("day")
    else:
        st = result.stickiness
        stick_ax.plot(
            _naive(st["date"]),
            st["stickiness"] * 100,
            color="#444444",
            linewidth=1.0,
            label="DAU/MAU",
        )
        mean = (
            "" if np.isnan(result.mean_stickiness) else f" (mean {percent(result.mean_stickiness)})"
        )
        stick_ax.set_title(f"Stickiness: daily / 28-day active users{mean}", fontsize=9)
        stick_ax.set_ylabel("DAU/MAU (%)")
        stick_ax.set_ylim(0, 100)
        stick_ax.set_xlabel("day")
        tidy(stick_ax)
    _date_axis(ax)
    return finish(fig, result.coverage)


# -- V3 ----------------------------------------------------------------------------------------


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


# -- V4 ----------------------------------------------------------------------------------------


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


# -- V5 ----------------------------------------------------------------------------------------


def plot_participation_distribution(
    result: ParticipationDistribution, ax: Axes | None = None
) -> Figure:
    """V5: Lorenz curve with the line of equality; beside it, the top senders.

    Args:
        result: a :func:`~chatops.analytics.views.participation_distribution` result.
        ax: axes for the Lorenz curve alone; default a new figure with both panels.
    """
    fig, axes = _axes(ax, 2 if ax is None else 1, size=(10.0, 4.2))
    lor = axes[0]
    g = "n/a" if np.isnan(result.gini) else f"{result.gini:.2f}"
    lor.set_title(f"Participation: Lorenz curve (Gini {g})")
    lor.set_xlabel("share of people, fewest messages first (%)")
    lor.set_ylabel("share of messages (%)")
    tidy(lor)
    lz = result.lorenz
    lor.plot([0, 100], [0, 100], color="#999999", linestyle=":", label="everyone equal")
    lor.plot(
        lz["population_share"] * 100,
        lz["message_share"] * 100,
        color=PALETTE[0],
        linewidth=1.8,
        label="observed",
    )
    lor.fill_between(
        lz["population_share"] * 100,
        lz["message_share"] * 100,
        lz["population_share"] * 100,
        color=PALETTE[0],
        alpha=0.12,
    )
    lor.set_xlim(0, 100)
    lor.set_ylim(0, 100)
    note = "" if np.isnan(result.lurker_share) else f"; lurkers {percent(result.lurker_share)}"
    lor.legend(
        loc="upper left",
        fontsize=8,
        frameon=False,
        title=f"{result.posters:,} posters{note}",
        title_fontsize=8,
    )
    if len(axes) > 1:
        top = axes[1]
        data = result.frame[result.frame["messages"] > 0].head(result.top_n).iloc[::-1]
        top.set_title(f"Top {len(data)} senders")
        top.set_xlabel("messages")
        tidy(top)
        counts(top.xaxis)
        if "name" in data.columns:
            who = [
                str(n) if not pd.isna(n) else str(u)
                for n, u in zip(data["name"], data["user_id"], strict=True)
            ]
        else:
            who = [str(u) for u in data["user_id"]]
        bars = top.barh(who, data["messages"].to_numpy(dtype=float), color=PALETTE[0])
        top.bar_label(bars, labels=[percent(s) for s in data["share"]], padding=3, fontsize=8)
        top.margins(x=0.15)
    return finish(fig, result.coverage)


# -- V6 ----------------------------------------------------------------------------------------


def plot_activity_heatmap(result: ActivityHeatmap, ax: Axes | None = None) -> Figure:
    """V6: weekday x hour heatmap of messages (all groups together), with a colour bar.

    Args:
        result: an :func:`~chatops.analytics.views.activity_heatmap` result.
        ax: axes to draw into; default a new figure.
    """
    fig, (ax,) = _axes(ax, size=(10.0, 3.8))
    grid = (
        result.frame.groupby(["weekday", "hour"])["messages"]
        .sum()
        .unstack("hour")
        .reindex(index=range(7), columns=range(24), fill_value=0)
        .fillna(0)
    )
    image = ax.imshow(
        grid.to_numpy(dtype=float), aspect="auto", cmap="Blues", interpolation="nearest"
    )
    busiest = ""
    if result.busiest_weekday is not None:
        busiest = f"; busiest {result.busiest_weekday} {result.busiest_hour:02d}:00"
    ax.set_title(f"When messages are sent ({_zone(result.tz)}){busiest}")
    ax.set_xlabel(f"hour of day ({_zone(result.tz)})")
    ax.set_ylabel("weekday")
    ax.set_xticks(range(0, 24, 2), [f"{h:02d}" for h in range(0, 24, 2)])
    ax.set_yticks(range(7), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    bar = fig.colorbar(image, ax=ax, pad=0.01)
    bar.set_label("messages")
    counts(bar.ax.yaxis)
    return finish(fig, result.coverage)


# -- V7 ----------------------------------------------------------------------------------------


def plot_newcomer_cohorts(result: NewcomerCohorts, ax: Axes | None = None) -> Figure:
    """V7: retention matrix (cohort x periods since first post); beside it, messages by tenure.

    Args:
        result: a :func:`~chatops.analytics.views.newcomer_cohorts` result.
        ax: axes for the retention matrix alone; default a new figure with both panels.
    """
    fig, axes = _axes(
        ax, 2 if ax is None else 1, size=(12.0, 4.6), ratios=(1.25, 1.0) if ax is None else None
    )
    word = _FREQ_WORD.get(result.cohort_freq, result.cohort_freq)
    ret = axes[0]
    ret.set_title(f"Newcomer retention by {word} of first post")
    ret.set_xlabel(f"{word}s since first post")
    ret.set_ylabel(f"cohort ({word} of first post)")
    df = result.frame
    if df.empty:
        _empty(ret)
    else:
        matrix = df.pivot(index="cohort", columns="offset", values="retention").reindex(
            # offsets past the end of the data are never observed: no empty columns for them
            columns=range(min(result.horizon, int(df["offset"].max()) + 1))
        )
        sizes = df.drop_duplicates("cohort").set_index("cohort")["cohort_size"]
        image = ret.imshow(
            matrix.to_numpy(dtype=float) * 100,
            aspect="auto",
            cmap="Greens",
            vmin=0,
            vmax=100,
            interpolation="nearest",
        )
        small = matrix.size <= 160
        if small:
            for (i, j), v in np.ndenumerate(matrix.to_numpy(dtype=float)):
                if not np.isnan(v):
                    ret.text(
                        j,
                        i,
                        percent(v, digits=1),
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if v > 0.6 else "#222222",
                        # inside its cell: no part of the layout (not measured at every pass)
                        in_layout=False,
                    )
        ret.set_xticks(range(matrix.shape[1]))
        ret.set_yticks(range(len(matrix)), [f"{c} (n={sizes[c]})" for c in matrix.index])
        bar = fig.colorbar(image, ax=ret, pad=0.01)
        bar.set_label("still posting (%)")
    if len(axes) > 1:
        ten = axes[1]
        t = result.tenure
        ten.set_title(f"Messages by tenure ({word}s since first post)")
        ten.set_xlabel(word)
        ten.set_ylabel(f"messages per {word}")
        tidy(ten)
        counts(ten.yaxis)
        if len(t):
            wide = t.pivot(index="period_start", columns="tenure", values="messages")
            # only tenures with a message: a legend names only what is drawn
            order = [
                c
                for c in ("0", "1-2", "3-5", "6-11", "12+")
                if c in wide.columns and wide[c].fillna(0).sum() > 0
            ]
            labels = [str(p) for p in t.drop_duplicates("period_start")["period"]]
            x = np.arange(len(wide))
            bottom = np.zeros(len(wide))
            for c in order:
                values = wide[c].fillna(0).to_numpy(dtype=float)
                ten.bar(
                    x,
                    values,
                    bottom=bottom,
                    width=0.8,
                    color=PALETTE[("0", "1-2", "3-5", "6-11", "12+").index(c)],
                    label=f"{c} {word}s" if c != "0" else f"first {word}",
                )
                bottom += values
            step = max(1, -(-len(x) // 6))
            ten.set_xticks(x[::step], labels[::step])
            ten.set_ylim(0, max(float(bottom.max()), 1.0) * 1.3)
            ten.legend(loc="upper left", fontsize=8, frameon=False, ncols=2)
        else:
            _empty(ten)
    return finish(fig, result.coverage)


# -- V8 ----------------------------------------------------------------------------------------


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
                _naive(o["bucket_start"]),
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
            _date_axis(line)
        else:
            _empty(line)
    return finish(fig, result.coverage)


# -- V9 ----------------------------------------------------------------------------------------


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
        dm.set_title(f"Direct-message share{share}")
        dm.set_xlabel("time")
        dm.set_ylabel("direct messages (% of all)")
        tidy(dm)
        if len(o):
            dm.plot(
                _naive(o["bucket_start"]),
                o["dm_share"] * 100,
                color=PALETTE[3],
                marker="o",
                markersize=3,
                label="direct messages",
            )
            dm.set_ylim(0, max(5.0, float(np.nanmax(o["dm_share"].to_numpy(dtype=float))) * 110))
            dm.legend(loc="upper left", fontsize=8, frameon=False)
            _date_axis(dm)
        else:
            _empty(dm)
    return finish(fig, result.coverage)
