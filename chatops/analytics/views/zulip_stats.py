"""V11: :func:`zulip_stats`: the charts of the organization's statistics page (``/stats``).

Zulip's ``/stats`` page counts from tables the server fills every hour (``analytics/lib/
counts.py`` in the server's source); an admin compares any figure with it first. This view
draws the same charts from the frames with the same definitions wherever the data holds what
they need, and says plainly where it cannot:

- **Messages sent over time** (humans, bots; per day or week; cumulative): messages sent by the
  organization's own accounts; a system bot (Notification Bot...) belongs to no organization, so
  its messages are not counted; a message counts in its hour only if its sender had joined
  before the hour ended.
- **Messages sent by recipient type**: public channels, private channels, direct messages (one
  other person, or oneself), group direct messages (three people or more); system bots left out.
- **Messages sent by client**: by the sending client under /stats's labels (``website`` is "Web
  app"); a message counts in its UTC day only if its sender had joined before the day ended.
- **Active users**: /stats counts people with an *activity interval* (time with the app open)
  in the last day and the last 15 days, which no API exposes; here a person is active when
  they sent a message (the presence API gives only the last time someone was seen, not a
  history). "Total users" is the people (not bots) whose account exists on that day and is
  active now: the API does not say when an account was deactivated.

What no frame can give is named in :attr:`ZulipStats.differences`: the messages the dataset's
account cannot read (private channels it is not in, other people's direct messages: an
organization export has them all), deleted messages (/stats keeps counting them), and moved
messages (/stats counted the channel they were sent to).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .._common import (
    TimeLike,
    check_freq,
    check_tz,
    coverage_of,
    default_as_of,
    local_periods,
    period_bounds,
    prepare_messages,
)
from .._figure import axes as _axes
from .._figure import counts, finish, new_figure, tidy
from .._figure import empty as _empty
from .._percent import percent
from ..change import Change, change_of
from ..coverage import unnamed
from ..engines import MessagesSource, messages_only
from ..engines._sql import private_channel_ids
from ..schema import validate
from ._draw import FREQ_WORD, PALETTE, date_axis, naive, zone
from ._options import ViewOptions, with_defaults
from ._registry import register
from ._result import ViewResult
from ._shared import CLIENT_LABELS, _finish, group_dm_ids

__all__ = ["RECIPIENT_TYPES", "ZulipStats", "plot_zulip_stats", "stats_summary", "zulip_stats"]

#: /stats's recipient types, in its order, as its chart names them.
RECIPIENT_TYPES = (
    "public channels",
    "private channels",
    "direct messages",
    "group direct messages",
)


@dataclasses.dataclass
class ZulipStats(ViewResult):
    """V11: the charts of Zulip's /stats page, computed from the frames with its definitions.

    ``frame`` (messages sent over time): ``period_start``, ``period_end`` (aware in ``tz``),
    ``humans``, ``bots``, ``cumulative_humans``, ``cumulative_bots``, ``partial`` (the period
    is not over at the end of the data). ``by_recipient_type``: ``recipient_type`` (one of
    :data:`RECIPIENT_TYPES`), ``messages``, ``share``. ``by_client``: ``client`` (/stats's
    label), ``messages``, ``share``. ``active_users``: ``date`` (local day), ``daily_posters``,
    ``posters_15_days``, ``total_users``. ``summary_counts``: /stats's organization summary
    (``total_users``, ``posted_in_last_15_days``, ``guests``, ``messages``,
    ``messages_last_30_days``). ``left_out``: the messages /stats's definitions leave out, by
    reason. ``differences``: each place this computation cannot follow /stats, in words.

    Example::

        >>> r = zulip_stats(f.messages, users=f.users, channels=f.channels,
        ...                 dm_recipients=f.dm_recipients, freq="W")
        >>> r.frame[["period_start", "humans", "bots"]].tail()
        >>> r.by_recipient_type
    """

    view = "zulip_stats"
    by_recipient_type: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    by_client: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    active_users: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    freq: str = "D"
    tz: str = "UTC"
    summary_counts: dict[str, int] = dataclasses.field(default_factory=dict)
    left_out: dict[str, int] = dataclasses.field(default_factory=dict)
    differences: tuple[str, ...] = ()

    def change(self) -> Change | None:
        """Messages sent (humans and bots) in the last complete period against the one before."""
        if self.frame.empty:
            return None
        f = self.frame.set_index("period_start")
        word = FREQ_WORD.get(self.freq, self.freq)
        return change_of(f["humans"] + f["bots"], f["partial"], "messages sent", word)


def _accounts(users: pd.DataFrame) -> pd.DataFrame:
    """The organization's own accounts (system bots are not), indexed by user id."""
    u = validate(users, "users").dropna(subset=["user_id"])
    system = u["is_system_bot"].fillna(False).astype(bool)
    own = u[~system].drop_duplicates("user_id", keep="last")
    return own.set_index(own["user_id"].astype("int64"))


def _joined_before(df: pd.DataFrame, joined: pd.Series, bucket: pd.Timedelta) -> pd.Series:
    """Whether each message's sender had joined before the end of its UTC hour or day (the
    ``bucket`` /stats counts it in); True where the join date is unknown."""
    ends = df["timestamp"].dt.floor(bucket) + bucket
    when = df["sender_id"].astype("int64").map(joined)
    kept: pd.Series = (when.isna() | (when < ends)).astype(bool)
    return kept


def _recipient_types(
    df: pd.DataFrame, channels: pd.DataFrame | None, dm_recipients: pd.DataFrame | None
) -> pd.Series:
    private = private_channel_ids(channels) if channels is not None else []
    group = group_dm_ids(dm_recipients)
    is_channel = df["stream_id"].notna()
    kind = np.where(
        is_channel,
        np.where(
            df["stream_id"].isin(list(private)).fillna(False),
            RECIPIENT_TYPES[1],
            RECIPIENT_TYPES[0],
        ),
        np.where(df["id"].isin(list(group)).fillna(False), RECIPIENT_TYPES[3], RECIPIENT_TYPES[2]),
    )
    return pd.Series(kind, index=df.index, dtype="object")


def _shares(counted: pd.Series, name: str, order: list[str]) -> pd.DataFrame:
    total = int(counted.sum())
    out = pd.DataFrame({name: order, "messages": [int(counted.get(k, 0)) for k in order]})
    out["share"] = out["messages"] / total if total else np.nan
    return out


def _over_time(
    df: pd.DataFrame, is_bot: pd.Series, freq: str, tz: str, cut: pd.Timestamp
) -> pd.DataFrame:
    cols = ["period_start", "period_end", "humans", "bots", "cumulative_humans"]
    cols += ["cumulative_bots", "partial"]
    if df.empty:
        return pd.DataFrame({c: [] for c in cols})
    per = local_periods(df["timestamp"], freq, tz)
    table = (
        pd.DataFrame({"p": per.to_numpy(), "bot": is_bot.to_numpy()})
        .groupby(["p", "bot"])
        .size()
        .unstack("bot", fill_value=0)
        .reindex(columns=[False, True], fill_value=0)
    )
    full = pd.period_range(table.index.min(), table.index.max(), freq=check_freq(freq))
    table = table.reindex(full, fill_value=0)
    start, end = period_bounds(pd.PeriodIndex(table.index), tz)
    humans = table[False].to_numpy(dtype="int64")
    bots = table[True].to_numpy(dtype="int64")
    return pd.DataFrame(
        {
            "period_start": start,
            "period_end": end,
            "humans": humans,
            "bots": bots,
            "cumulative_humans": np.cumsum(humans),
            "cumulative_bots": np.cumsum(bots),
            "partial": np.asarray(end > cut),
        }
    )


def _active_users(
    df: pd.DataFrame, accounts: pd.DataFrame, bots: set[int], tz: str, cut: pd.Timestamp
) -> pd.DataFrame:
    cols = ["date", "daily_posters", "posters_15_days", "total_users", "partial"]
    people = df[~df["sender_id"].isin(list(bots))]
    if people.empty:
        return pd.DataFrame({c: [] for c in cols})
    day = people["timestamp"].dt.tz_convert(tz).dt.tz_localize(None).dt.floor("D")
    days = pd.date_range(day.min(), day.max(), freq="D")
    seen = pd.DataFrame({"day": day.to_numpy(), "user": people["sender_id"].astype("int64")})
    seen = seen.drop_duplicates()
    daily = seen.groupby("day")["user"].nunique().reindex(days, fill_value=0)
    last = seen.groupby(["user", "day"]).size().reset_index()[["user", "day"]]
    fifteen = []
    for d in days:
        window = last[(last["day"] > d - pd.Timedelta(days=15)) & (last["day"] <= d)]
        fifteen.append(int(window["user"].nunique()))
    humans = accounts[
        ~accounts["is_bot"].fillna(False).astype(bool)
        & accounts["is_active"].fillna(True).astype(bool)
    ]
    joined = humans["date_joined"].dt.tz_convert(tz).dt.tz_localize(None)
    ends = days + pd.Timedelta(days=1)
    total = [int((joined.isna() | (joined < e)).sum()) for e in ends]
    local = pd.DatetimeIndex(days).tz_localize(tz, nonexistent="shift_forward")
    return pd.DataFrame(
        {
            "date": local,
            "daily_posters": daily.to_numpy(dtype="int64"),
            "posters_15_days": np.asarray(fifteen, dtype="int64"),
            "total_users": np.asarray(total, dtype="int64"),
            "partial": np.asarray(local + pd.Timedelta(days=1) > cut),
        }
    )


def _messages(n: int) -> str:
    return f"{n:,} message" if n == 1 else f"{n:,} messages"


def _differences(
    detail: Any,
    left_out: dict[str, int],
    moved: int,
    has_channels: bool,
    has_dm: bool,
    anonymize: bool,
) -> tuple[str, ...]:
    """Each place the frames cannot follow /stats, in words an admin reads."""
    out: list[str] = []
    source = getattr(detail, "source", None)
    if source == "sync":
        hidden = len(getattr(detail, "channels_not_readable", ()))
        who = unnamed(getattr(detail, "email", None) or "the synced account", anonymize)
        missing = "other people's direct messages are"
        if hidden:
            channels = "channel" if hidden == 1 else "channels"
            missing = f"{hidden:,} private {channels} it is not in and {missing}"
        out.append(
            f"The data holds what {who} can read: {missing} missing, and /stats counts them; "
            "an organization export (chatops data import-export <export>) holds every message."
        )
    elif source is None:
        out.append(
            "Whose messages these frames hold is not recorded: /stats counts every message of "
            "the organization."
        )
    out.append("Deleted messages are not in the data; /stats keeps counting them.")
    if moved:
        out.append(
            f"{_messages(moved)} moved between channels: /stats counted them where they were "
            "sent, the data has them where they are now."
        )
    if left_out.get("system_bots"):
        out.append(
            f"{_messages(left_out['system_bots'])} of Zulip's system bots left out, as /stats "
            "leaves them out: those bots belong to no organization."
        )
    if left_out.get("before_joining"):
        out.append(
            f"{_messages(left_out['before_joining'])} sent before the sender joined (imported "
            "history) left out of messages over time and by client, as /stats leaves them out."
        )
    if not has_channels:
        out.append("Without the channels frame, public and private channels are not told apart.")
    if not has_dm:
        out.append(
            "Without the dm_recipients frame, group direct messages are counted as direct messages."
        )
    out.append(
        "Active users: /stats counts time with the app open (activity intervals), which no API "
        "exposes; here a person is active on a day they sent a message. Total users counts "
        "accounts active now: the API does not say when an account was deactivated."
    )
    return tuple(out)


def stats_summary(result: ZulipStats) -> str:
    """The organization summary as /stats words it, e.g. ``"1,234 messages sent (1,100 by
    people, 134 by bots); 210 of 265 people posted in the last 15 days of the data."``."""
    df = result.frame
    people = int(df["humans"].sum()) if len(df) else 0
    bots = int(df["bots"].sum()) if len(df) else 0
    s = result.summary_counts
    return (
        f"{people + bots:,} messages sent as /stats counts them ({people:,} by people, "
        f"{bots:,} by bots); {s.get('posted_in_last_15_days', 0):,} of "
        f"{s.get('total_users', 0):,} people posted in the last 15 days of the data."
    )


# -- the plot -----------------------------------------------------------------------------------


def _bars(ax: Axes, frame: pd.DataFrame, name: str, title: str, color: str) -> None:
    ax.set_title(title)
    tidy(ax)
    if frame.empty or int(frame["messages"].sum()) == 0:
        _empty(ax)
        return
    f = frame.iloc[::-1]
    y = np.arange(len(f))
    ax.barh(y, f["messages"].to_numpy(dtype=float), color=color)
    ax.set_yticks(y, [str(v) for v in f[name]])
    counts(ax.xaxis)
    top = float(f["messages"].max())
    for yi, (n, share) in enumerate(zip(f["messages"], f["share"], strict=True)):
        ax.text(
            float(n) + top * 0.02, yi, f"{int(n):,} ({percent(share)})", va="center", fontsize=8
        )
    ax.set_xlim(0, top * 1.45)
    ax.set_xlabel("messages")


def _active_lines(ax: Axes, a: pd.DataFrame) -> None:
    """The three lines; a partial last day (still counting) drawn dashed and said so."""
    days = naive(a["date"])
    partial = a["partial"].to_numpy(dtype=bool)
    full = ~partial
    lines = (
        ("total_users", "#555555", "total users"),
        ("posters_15_days", PALETTE[0], "posted in 15 days"),
        ("daily_posters", PALETTE[1], "posted that day"),
    )
    for column, color, label in lines:
        values = a[column].to_numpy(dtype=float)
        ax.plot(days[full], values[full], color=color, label=label)
        if partial.any():
            # from the last whole day to the partial one
            tail = np.flatnonzero(partial)
            first = max(int(tail[0]) - 1, 0)
            ax.plot(days[first:], values[first:], color=color, linestyle=(0, (2, 2)))
    handles, labels = ax.get_legend_handles_labels()
    if partial.any():
        handles.append(Line2D([], [], color="#444444", linestyle=(0, (2, 2))))
        labels.append("partial day (still counting)")
    ax.set_ylim(0, max(float(a["total_users"].max()), 1.0) * 1.35)
    ax.set_ylabel("people")
    date_axis(ax)
    ax.legend(handles, labels, loc="upper left", fontsize=8, frameon=False, ncols=2)


def plot_zulip_stats(result: ZulipStats, ax: Axes | None = None) -> Figure:
    """V11: /stats's four charts: messages over time (humans, bots; the partial period
    hatched), by recipient type, by client, and active users.

    Args:
        result: a :func:`~chatops.analytics.views.zulip_stats` result.
        ax: axes for the messages-over-time chart alone; default a new figure with all four.
    """
    fig: Figure
    if ax is None:
        fig = new_figure((12.0, 8.0))
        grid = fig.subplots(2, 2)
        over, kinds, clients, active = (grid[0][0], grid[0][1], grid[1][0], grid[1][1])
    else:
        fig, (over,) = _axes(ax)
        kinds = clients = active = None
    word = FREQ_WORD.get(result.freq, result.freq)
    df = result.frame
    over.set_title(f"Messages sent per {word}, humans and bots")
    over.set_xlabel(f"{word} ({zone(result.tz)})")
    over.set_ylabel(f"messages per {word}")
    tidy(over)
    counts(over.yaxis)
    if df.empty:
        _empty(over)
    else:
        starts, ends = naive(df["period_start"]), naive(df["period_end"])
        width = (ends - starts) * 0.85
        h = df["humans"].to_numpy(dtype=float)
        b = df["bots"].to_numpy(dtype=float)
        bars = [
            over.bar(starts, h, width=width, align="edge", color=PALETTE[0], label="humans"),
            over.bar(
                starts, b, width=width, bottom=h, align="edge", color=PALETTE[1], label="bots"
            ),
        ]
        partial = df["partial"].to_numpy(dtype=bool)
        for group in bars:
            for bar, part in zip(group, partial, strict=True):
                if part:
                    bar.set_hatch("///")
                    bar.set_alpha(0.55)
        over.set_ylim(0, max(float((h + b).max()), 1.0) * 1.3)
        date_axis(over)
        handles, labels = over.get_legend_handles_labels()
        if partial.any():
            handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="///"))
            labels.append("partial (still counting)")
        over.legend(handles, labels, loc="upper left", fontsize=8, frameon=False, ncols=3)
    if kinds is not None and clients is not None and active is not None:
        _bars(kinds, result.by_recipient_type, "recipient_type", "By recipient type", PALETTE[2])
        top = result.by_client.head(8)
        _bars(clients, top, "client", "By client", PALETTE[4])
        a = result.active_users
        active.set_title("Active users (posted)")
        tidy(active)
        counts(active.yaxis)
        if a.empty:
            _empty(active)
        else:
            _active_lines(active, a)
    return finish(fig, result.coverage)


# -- the view -----------------------------------------------------------------------------------


@register(
    number=11,
    title="/stats, reconciled",
    result=ZulipStats,
    plot=plot_zulip_stats,
    sentence=stats_summary,
)
def zulip_stats(
    messages: MessagesSource,
    *,
    users: pd.DataFrame | None = None,
    channels: pd.DataFrame | None = None,
    dm_recipients: pd.DataFrame | None = None,
    edits: pd.DataFrame | None = None,
    freq: str = "D",
    tz: str = "UTC",
    as_of: TimeLike | None = None,
    **options: Unpack[ViewOptions],
) -> ZulipStats:
    """V11: the charts of Zulip's statistics page (/stats) from the frames, with its
    definitions, and the places they cannot be followed named in ``differences``.

    Args:
        messages: the messages frame.
        users: the users frame (required: who is a bot, who is a system bot, when people
            joined).
        channels: the channels frame (tells public channels from private ones).
        dm_recipients: tells group direct messages from direct ones.
        edits: the edits frame (counts the messages moved between channels).
        freq: ``D`` (days) or ``W`` (weeks) for messages sent over time.
        tz: the time zone whose calendar makes the days and weeks (/stats uses the browser's).
        as_of: when the data ends (the last period is partial if it ends later); default
            ``until``, else the newest message.
    """
    o = with_defaults(options)
    messages = messages_only(messages)
    if users is None:
        raise ValueError("zulip_stats needs the users frame (users=...): bots and join dates")
    if freq not in ("D", "W"):
        raise ValueError(f"unknown freq {freq!r}; choose 'D' (days) or 'W' (weeks) as /stats")
    check_freq(freq)
    check_tz(tz)
    df = prepare_messages(
        messages, users=users, since=o["since"], until=o["until"], exclude_bots=False
    )
    df = df[df["sender_id"].notna() & df["timestamp"].notna()]
    accounts = _accounts(users)
    own = df["sender_id"].astype("int64").isin(accounts.index)
    left_out = {"system_bots": int((~own).sum())}
    df = df[own]
    joined = accounts["date_joined"]
    hourly = _joined_before(df, joined, pd.Timedelta(hours=1))
    daily = _joined_before(df, joined, pd.Timedelta(days=1))
    left_out["before_joining"] = int((~hourly).sum())
    bots = {int(i) for i in accounts.index[accounts["is_bot"].fillna(False).astype(bool)]}
    is_bot = df["sender_id"].astype("int64").isin(bots)
    if o["exclude_bots"]:  # every chart of people only
        left_out["bots"] = int(is_bot.sum())
        df, hourly, daily, is_bot = df[~is_bot], hourly[~is_bot], daily[~is_bot], is_bot[~is_bot]
    cut = default_as_of(df, o["until"], as_of)
    frame = _over_time(df[hourly], is_bot[hourly], freq, tz, cut)
    kinds = _recipient_types(df, channels, dm_recipients).value_counts()
    labels = df.loc[daily, "client"].astype("string").fillna("(unknown)")
    by_client = labels.map(lambda c: CLIENT_LABELS.get(c, c)).value_counts()
    client_order = sorted(by_client.index, key=lambda c: (-int(by_client[c]), c))
    active = _active_users(df, accounts, bots, tz, cut)
    humans = accounts[
        ~accounts["is_bot"].fillna(False).astype(bool)
        & accounts["is_active"].fillna(True).astype(bool)
    ]
    recent = df[~is_bot & (df["timestamp"] > cut - pd.Timedelta(days=15))]
    summary = {
        "total_users": len(humans),
        "posted_in_last_15_days": int(recent["sender_id"].nunique()),
        "guests": int((humans["role"] == 600).sum()),
        "messages": int(frame["humans"].sum() + frame["bots"].sum()) if len(frame) else 0,
        "messages_last_30_days": int(
            (hourly & (df["timestamp"] > cut - pd.Timedelta(days=30))).sum()
        ),
    }
    moved = 0
    if edits is not None:
        e = validate(edits, "edits")
        moved = int(e.loc[e["kind"] == "move_channel", "message_id"].nunique())
    differences = _differences(
        messages.attrs.get("coverage_detail"),
        left_out,
        moved,
        channels is not None,
        dm_recipients is not None,
        o["anonymize"],
    )
    return ZulipStats(
        _finish(frame, o["anonymize"], o["key"]),
        coverage_of(o["coverage"], messages),
        _shares(kinds, "recipient_type", list(RECIPIENT_TYPES)),
        _shares(by_client, "client", client_order),
        active,
        freq,
        tz,
        summary,
        left_out,
        differences,
    )
