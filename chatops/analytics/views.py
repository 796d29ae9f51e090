"""The ten analytics views (V1-V10): pure functions over the frames of :mod:`.schema`.

No I/O and no client: each view takes frames and options and returns a small result object
(a dataclass) with a tidy ``frame``, extra frames or numbers where the view has several, the
``coverage`` note passed through, ``to_csv(path_or_dir)`` and ``plot(ax=None)``::

    >>> r = channel_scorecard(messages, channels=channels, subscriptions=subs, period="30D")
    >>> r.frame[["channel", "messages", "change_pct"]].head()
    >>> r.hhi
    0.18
    >>> r.plot().savefig("scorecard.png")

Options common to every view:

* ``since``, ``until``: keep messages in ``[since, until)`` (UTC when naive).
* ``exclude_bots``: drop messages (and reactions) of bots; needs ``users``.
* ``anonymize``: replace user ids in every output frame by a salted, stable hash
  (:func:`hash_user_id`, ``u-`` and 10 hex digits) and drop names and emails; ``salt`` chooses
  the salt (the same salt gives the same pseudonyms across views and runs).
* ``coverage``: a note on which channels and direct messages the data covers; default the one
  the dataset stores in ``messages.attrs["coverage"]``.

Definitions used throughout: a user is *active* in a window when they sent a message in it
(``definition="any"`` in V2 also counts presence); a *topic* is a channel id and a topic name
with the resolved prefix ``"✔ "`` removed, so a topic keeps its identity when resolved.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from ._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
    anonymize_frame,
    bot_ids,
    check_freq,
    check_tz,
    coverage_of,
    default_as_of,
    gini,
    hash_user_id,
    local_periods,
    parse_period,
    period_bounds,
    prepare_messages,
    user_names,
)
from .schema import RESOLVED_PREFIX, validate

__all__ = [
    "CLIENT_LABELS",
    "ActiveUsers",
    "ActivityHeatmap",
    "ChannelScorecard",
    "ClientAndDmMix",
    "InteractionGraph",
    "MessagesOverTime",
    "NewcomerCohorts",
    "ParticipationDistribution",
    "ReactionsAndEngagement",
    "TopicLifecycle",
    "active_users",
    "activity_heatmap",
    "channel_scorecard",
    "client_and_dm_mix",
    "client_label",
    "hash_user_id",
    "interaction_graph",
    "messages_over_time",
    "newcomer_cohorts",
    "participation_distribution",
    "reactions_and_engagement",
    "topic_lifecycle",
]

#: Display names of sending clients, after the server's own /stats label map.
CLIENT_LABELS: dict[str, str] = {
    "website": "Web app",
    "ZulipElectron": "Desktop app",
    "ZulipDesktop": "Desktop app",
    "ZulipMobile": "Mobile app",
    "ZulipFlutter": "Mobile app",
    "ZulipAndroid": "Old Android app",
    "ZulipiOS": "Old iOS app",
    "ZulipTerminal": "Terminal app",
    "ZulipPython": "Python API",
    "API: Python": "Python API",
    "API": "API",
    "Internal": "Internal",
    "internal": "Internal",
}

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _finish(df: pd.DataFrame, anonymize: bool, salt: str) -> pd.DataFrame:
    out = anonymize_frame(df, salt) if anonymize else df
    return out.reset_index(drop=True)


def _topic_keys(df: pd.DataFrame) -> pd.DataFrame:
    """Channel messages with ``topic_name`` (resolved prefix removed) and ``resolved``."""
    ch = df[df["stream_id"].notna() & df["topic"].notna()].copy()
    names = ch["topic"].astype("string")
    ch["resolved"] = names.str.startswith(RESOLVED_PREFIX).fillna(False).astype(bool)
    ch["topic_name"] = names.str.removeprefix(RESOLVED_PREFIX)
    return ch


def _window_mask(ts: pd.Series, start: pd.Timestamp, end: pd.Timestamp) -> pd.Series:
    return (ts > start) & (ts <= end)


# -- V1 ----------------------------------------------------------------------------------------


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
    out = []
    for sid, mid in zip(df["stream_id"], df["id"], strict=True):
        if pd.isna(sid):
            out.append("group direct message" if int(mid) in group else "direct message")
        elif channels is None:
            out.append("channel")
        else:
            out.append("private channel" if int(sid) in private else "public channel")
    return pd.Series(out, index=df.index, dtype="string")


def messages_over_time(
    messages: pd.DataFrame,
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
    """
    check_freq(freq)
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
        return MessagesOverTime(frame, coverage_of(coverage, df), freq, tz, split, 0)
    periods = local_periods(df["timestamp"], freq, tz)
    counts = (
        pd.DataFrame({"period": periods, "split": keys})
        .groupby(["period", "split"], observed=True)
        .size()
        .unstack("split", fill_value=0)
    )
    full = pd.period_range(periods.min(), periods.max(), freq=periods.dt.freq)
    counts = counts.reindex(index=full, columns=order, fill_value=0)
    start, end = period_bounds(pd.PeriodIndex(counts.index), tz)
    cut = (
        pd.Timestamp.now(tz="UTC")
        if as_of is None and until is None
        else default_as_of(df, until, as_of)
    )
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
        _finish(frame, anonymize, salt), coverage_of(coverage, df), freq, tz, split, len(df)
    )


# -- V2 ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class ActiveUsers(ViewResult):
    """V2: distinct active users over trailing windows, per day.

    ``frame`` columns: ``date`` (the local day, aware in ``tz``), ``window`` (days), ``label``
    (DAU, WAU, 15-day, MAU for 1, 7, 15, 28), ``active_users``. ``stickiness`` columns:
    ``date``, ``dau``, ``mau`` (28 days), ``stickiness`` (DAU/MAU, NaN when MAU is 0).

    Example::

        >>> r = active_users(messages, windows=(1, 7, 28))
        >>> r.frame[r.frame.label == "MAU"].tail()
    """

    view = "active_users"
    stickiness: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    windows: tuple[int, ...] = (1, 7, 15, 28)
    definition: str = "sent"
    mean_stickiness: float = math.nan


def _window_label(window: int) -> str:
    return {1: "DAU", 7: "WAU", 15: "15-day", 28: "MAU", 30: "MAU"}.get(window, f"{window}-day")


def active_users(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    presence: pd.DataFrame | None = None,
    windows: Sequence[int] = (1, 7, 15, 28),
    definition: str = "sent",
    tz: str = "UTC",
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> ActiveUsers:
    """V2: for each day, how many users were active in the trailing ``window`` days.

    Args:
        messages: the messages frame.
        users: the users frame (for ``exclude_bots``).
        presence: the presence frame, counted as activity with ``definition="any"``.
        windows: trailing windows in days (positive); the day itself is included, so window 7
            on a Sunday covers Monday to Sunday.
        definition: ``sent`` (sent a message) or ``any`` (sent a message or was seen active).
        tz: the time zone whose calendar makes the days.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    check_tz(tz)
    wins = tuple(windows)
    if not wins or any(not isinstance(w, int | np.integer) or w <= 0 for w in wins):
        raise ValueError(f"windows must be positive whole days, got {list(wins)!r}")
    if definition not in ("sent", "any"):
        raise ValueError(f"unknown definition {definition!r}; choose 'sent' or 'any'")
    if definition == "any" and presence is None:
        raise ValueError("definition='any' needs the presence frame (presence=...)")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    events = df[["sender_id", "timestamp"]].rename(columns={"sender_id": "user_id"})
    if definition == "any" and presence is not None:
        p = validate(presence, "presence")
        p = prepare_messages(
            p.assign(
                id=0, type="stream", stream_id=0, channel="", topic="", sender_id=p["user_id"]
            ),
            users=users,
            since=since,
            until=until,
            exclude_bots=exclude_bots,
        )
        events = pd.concat(
            [events, p[["sender_id", "timestamp"]].rename(columns={"sender_id": "user_id"})]
        )
    events = events.dropna()
    stick_cols = ["date", "dau", "mau", "stickiness"]
    if events.empty:
        frame = pd.DataFrame({c: [] for c in ["date", "window", "label", "active_users"]})
        return ActiveUsers(
            frame,
            coverage_of(coverage, df),
            pd.DataFrame({c: [] for c in stick_cols}),
            wins,
            definition,
        )
    day = events["timestamp"].dt.tz_convert(tz).dt.tz_localize(None).dt.floor("D")
    days = pd.date_range(day.min(), day.max(), freq="D")
    day_index = ((day - days[0]) // pd.Timedelta(days=1)).to_numpy(dtype="int64")
    user_codes, _ = pd.factorize(events["user_id"].astype("int64"))
    # days x users matrix of "posted that day"; a trailing window is a difference of cumsums
    matrix = np.zeros((len(days), int(user_codes.max()) + 1), dtype="int32")
    matrix[day_index, user_codes] = 1
    cums = np.vstack([np.zeros((1, matrix.shape[1]), dtype="int32"), np.cumsum(matrix, axis=0)])

    def trailing(w: int) -> pd.Series:
        ends = np.arange(1, len(days) + 1)
        counts = cums[ends] - cums[np.maximum(ends - w, 0)]
        return pd.Series((counts > 0).sum(axis=1), dtype="int64")

    local = days.tz_localize(tz, ambiguous="NaT", nonexistent="shift_forward")
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "date": local,
                    "window": w,
                    "label": _window_label(w),
                    "active_users": trailing(w).to_numpy(),
                }
            )
            for w in wins
        ],
        ignore_index=True,
    )
    dau, mau = trailing(1).to_numpy(), trailing(28).to_numpy()
    ratio = np.where(mau > 0, dau / np.maximum(mau, 1), np.nan)
    stick = pd.DataFrame({"date": local, "dau": dau, "mau": mau, "stickiness": ratio})
    return ActiveUsers(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        stick,
        wins,
        definition,
        float(np.nanmean(ratio)) if np.isfinite(ratio).any() else math.nan,
    )


# -- V3 ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class ChannelScorecard(ViewResult):
    """V3: one row per channel over the ``period`` ending at ``as_of``.

    ``frame`` columns: ``stream_id``, ``channel``, ``messages``, ``previous_messages`` (the
    period before), ``change_pct`` (NaN when the period before had none), ``posters``,
    ``subscribers``, ``participation_pct`` (posters / subscribers), ``topics_created`` (first
    message in the period), ``active_topics``, ``median_topic_length`` (messages per active
    topic, in the period), ``resolved_pct`` (active topics resolved), ``last_activity``, ``rank``.
    ``hhi``: the Herfindahl-Hirschman index of the channels' message shares in the period (0 to
    1; 1 = all in one channel; ``1/n`` = evenly over n channels).

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


def channel_scorecard(
    messages: pd.DataFrame,
    *,
    channels: pd.DataFrame | None = None,
    subscriptions: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    period: str | pd.Timedelta = "30D",
    compare_previous: bool = True,
    as_of: TimeLike | None = None,
    top_n: int = 10,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> ChannelScorecard:
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
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    td = parse_period(period)
    assert td is not None
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    end = default_as_of(df, until, as_of)
    start = end - td
    ch = _topic_keys(df)
    ch = ch[ch["timestamp"] <= end]
    ch["stream_id"] = ch["stream_id"].astype("int64")
    cur = ch[_window_mask(ch["timestamp"], start, end)]
    prev = ch[_window_mask(ch["timestamp"], start - td, start)]
    names: dict[int, str] = {
        int(s): str(n)
        for s, n in ch[["stream_id", "channel"]]
        .drop_duplicates("stream_id", keep="last")
        .to_numpy()
    }
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
    first_msg = ch.groupby(["stream_id", "topic_name"])["timestamp"].min()
    created = first_msg[_window_mask(first_msg, start, end)].groupby(level=0).size()
    topics = cur.groupby(["stream_id", "topic_name"]).agg(
        size=("id", "size"), resolved=("resolved", "any")
    )
    per_topic = topics.groupby(level=0).agg(
        active_topics=("size", "size"),
        median_topic_length=("size", "median"),
        resolved_share=("resolved", "mean"),
    )
    msgs = cur.groupby("stream_id").size()
    prev_msgs = prev.groupby("stream_id").size()
    posters = cur.groupby("stream_id")["sender_id"].nunique()
    last = ch.groupby("stream_id")["timestamp"].max()
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
        return float(((counts / total) ** 2).sum()) if total else math.nan

    return ChannelScorecard(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        hhi(msgs),
        hhi(prev_msgs) if compare_previous else math.nan,
        start,
        end,
        top_n,
    )


# -- V4 ----------------------------------------------------------------------------------------


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


def topic_lifecycle(
    messages: pd.DataFrame,
    *,
    edits: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    channel_names: Iterable[str] | None = None,
    first_reply_sla_hours: float = 24.0,
    as_of: TimeLike | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> TopicLifecycle:
    """V4: each topic's life: start, end, participants, time to first reply, time to resolve.

    Args:
        messages: the messages frame (channel messages are used).
        edits: the edits frame: resolve times, moves and renames.
        users: the users frame (for ``exclude_bots``).
        channel_names: only these channels (default all).
        first_reply_sla_hours: the reply target for ``within_sla`` (positive).
        as_of: the time unresolved topics are censored at; default ``until``, else the last
            message's time.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    if not first_reply_sla_hours > 0:
        raise ValueError(f"first_reply_sla_hours must be positive, got {first_reply_sla_hours}")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    end = default_as_of(df, until, as_of)
    ch = _topic_keys(df)
    if channel_names is not None:
        wanted = {str(c) for c in channel_names}
        ch = ch[ch["channel"].astype("string").isin(wanted).fillna(False).astype(bool)]
    ch = ch.assign(stream_id=ch["stream_id"].astype("int64")).sort_values(
        ["timestamp", "id"], kind="stable"
    )
    ch["tkey"] = ch.groupby(["stream_id", "topic_name"], sort=True).ngroup()
    g = ch.groupby("tkey", sort=True)
    frame = g.agg(
        stream_id=("stream_id", "first"),
        channel=("channel", "last"),
        topic=("topic_name", "first"),
        started_at=("timestamp", "first"),
        last_at=("timestamp", "last"),
        messages=("id", "size"),
        participants=("sender_id", "nunique"),
        starter_id=("sender_id", "first"),
        resolved=("resolved", "last"),
    )
    frame["channel"] = frame["channel"].astype("string")
    starter = g["sender_id"].transform("first")
    replies = ch[(ch["sender_id"] != starter).fillna(False).astype(bool)]
    frame["first_reply_at"] = replies.groupby("tkey")["timestamp"].min().reindex(frame.index)
    frame["resolved_at"] = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns, UTC]")
    moved_msg = ch["is_moved"].fillna(False).astype(bool)
    frame["moved"] = moved_msg.groupby(ch["tkey"]).any().reindex(frame.index, fill_value=False)
    frame["renamed"] = False
    if edits is not None:
        ev = validate(edits, "edits")
        topic_of = pd.Series(ch["tkey"].to_numpy(), index=ch["id"].astype("int64").to_numpy())
        topic_of = topic_of[~topic_of.index.duplicated()]
        ev = ev.assign(tkey=ev["message_id"].astype("Int64").map(topic_of)).dropna(subset=["tkey"])
        kind = ev["kind"].astype("string")
        resolved_at = ev[kind == "resolve"].groupby("tkey")["timestamp"].min()
        frame["resolved_at"] = resolved_at.reindex(frame.index)
        moved = set(ev.loc[kind.isin(["move_topic", "move_channel"]).fillna(False), "tkey"])
        frame["moved"] = frame["moved"] | frame.index.isin(list(moved))
        frame["renamed"] = frame.index.isin(list(set(ev.loc[kind == "move_topic", "tkey"])))
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
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        survival,
        float(sla),
        n,
        100.0 * float(replied.mean()) if n else math.nan,
        100.0 * float(decided.astype(bool).mean()) if len(decided) else math.nan,
        median(frame["hours_to_first_reply"]),
        100.0 * float(frame["resolved"].mean()) if n else math.nan,
        median(frame["hours_to_resolve"]),
    )


# -- V5 ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class ParticipationDistribution(ViewResult):
    """V5: messages and reactions per user, Lorenz curve and Gini.

    ``frame`` columns: ``user_id``, ``name``, ``messages``, ``reactions_given``, ``share`` (of
    all messages), ``rank`` (by messages), one row per poster, plus subscribed humans who never
    posted (``messages`` 0) when ``include_lurkers``. ``lorenz``: ``population_share``,
    ``message_share`` from (0, 0) to (1, 1). ``gini``: over ``frame.messages`` (0 = everyone
    posts the same, towards 1 = one person posts everything). ``lurker_share``: subscribed
    humans who never posted / subscribed humans.

    Example::

        >>> r = participation_distribution(messages, subscriptions=subs, users=users)
        >>> r.gini, r.lurker_share
    """

    view = "participation_distribution"
    lorenz: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    gini: float = math.nan
    lurker_share: float = math.nan
    posters: int = 0
    top_n: int = 10


def participation_distribution(
    messages: pd.DataFrame,
    *,
    reactions: pd.DataFrame | None = None,
    subscriptions: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    period: str | pd.Timedelta | None = None,
    as_of: TimeLike | None = None,
    top_n: int = 10,
    include_lurkers: bool = True,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> ParticipationDistribution:
    """V5: how evenly people take part: per-user counts, Lorenz curve, Gini, lurkers.

    Args:
        messages: the messages frame.
        reactions: the reactions frame (``reactions_given`` per user, on messages in the window).
        subscriptions: the subscriptions frame: who could have posted (lurkers).
        users: the users frame: names, and bots are not counted as lurkers.
        period: only the period ending at ``as_of`` (``"90D"``); None for all.
        as_of: the end of ``period``; default ``until``, else the last message's time.
        top_n: how many top senders the plot shows.
        include_lurkers: add subscribed humans who never posted, with 0 messages (they count in
            the Gini).
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    td = parse_period(period)
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    if td is not None:
        end = default_as_of(df, until, as_of)
        df = df[_window_mask(df["timestamp"], end - td, end)]
    bots = bot_ids(users)
    counts = df.groupby(df["sender_id"].astype("int64")).size()
    given = pd.Series(dtype="int64")
    if reactions is not None:
        r = validate(reactions, "reactions")
        r = r[r["message_id"].isin(df["id"].tolist()).fillna(False).astype(bool)]
        if exclude_bots:
            r = r[~r["user_id"].isin(list(bots)).fillna(False).astype(bool)]
        given = r.groupby(r["user_id"].astype("int64")).size()
    lurker_share = math.nan
    people = set(counts.index) | set(given.index)
    if subscriptions is not None:
        s = validate(subscriptions, "subscriptions")
        subscribed = {int(u) for u in s["user_id"].dropna()} - bots
        lurkers = subscribed - set(counts.index)
        lurker_share = len(lurkers) / len(subscribed) if subscribed else math.nan
        if include_lurkers:
            people |= lurkers
    names = user_names(df, users)
    ids = sorted(people)
    frame = pd.DataFrame(
        {
            "user_id": pd.Series(ids, dtype="Int64"),
            "name": pd.Series([names.get(i) for i in ids], dtype="string"),
            "messages": [int(counts.get(i, 0)) for i in ids],
            "reactions_given": [int(given.get(i, 0)) for i in ids],
        }
    )
    total = int(frame["messages"].sum())
    frame["share"] = frame["messages"] / total if total else 0.0
    frame = frame.sort_values(
        ["messages", "reactions_given", "user_id"], ascending=[False, False, True], kind="stable"
    )
    frame["rank"] = np.arange(1, len(frame) + 1)
    xs = np.sort(frame["messages"].to_numpy(dtype=float))
    n = len(xs)
    lorenz = pd.DataFrame(
        {
            "population_share": np.concatenate([[0.0], np.arange(1, n + 1) / n]) if n else [0.0],
            "message_share": np.concatenate([[0.0], np.cumsum(xs) / xs.sum()])
            if n and xs.sum()
            else [0.0] * (n + 1),
        }
    )
    return ParticipationDistribution(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        lorenz,
        gini(frame["messages"]),
        lurker_share,
        int((frame["messages"] > 0).sum()),
        top_n,
    )


# -- V6 ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class ActivityHeatmap(ViewResult):
    """V6: messages per weekday and hour of day (local time in ``tz``).

    ``frame`` columns: (``group`` when ``by`` is given), ``weekday`` (0 = Monday),
    ``weekday_name``, ``hour`` (0-23), ``messages``: every weekday x hour cell, zeros included.
    ``busiest``: the five busiest cells over all groups.

    Example::

        >>> r = activity_heatmap(messages, tz="Europe/Berlin")
        >>> r.frame.pivot(index="weekday_name", columns="hour", values="messages")
    """

    view = "activity_heatmap"
    busiest: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    tz: str = "UTC"
    by: str | None = None
    busiest_weekday: str | None = None
    busiest_hour: int | None = None


def activity_heatmap(
    messages: pd.DataFrame,
    *,
    tz: str = "UTC",
    by: str | None = None,
    user_groups: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> ActivityHeatmap:
    """V6: when people write: an hour x weekday grid of message counts.

    Args:
        messages: the messages frame.
        tz: the time zone the hours are read in.
        by: None, ``channel`` (one grid per channel; direct messages under
            ``(direct message)``) or ``user_group`` (one grid per group of the sender; a message
            counts once in each group its sender belongs to).
        user_groups: the user_groups frame, for ``by="user_group"``.
        users: the users frame (for ``exclude_bots``).
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    check_tz(tz)
    if by not in (None, "channel", "user_group"):
        raise ValueError(f"unknown by {by!r}; choose None, 'channel' or 'user_group'")
    if by == "user_group" and user_groups is None:
        raise ValueError("by='user_group' needs the user_groups frame (user_groups=...)")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    local = df["timestamp"].dt.tz_convert(tz)
    cells = pd.DataFrame(
        {"weekday": local.dt.day_of_week, "hour": local.dt.hour, "sender_id": df["sender_id"]}
    )
    if by == "channel":
        cells["group"] = df["channel"].astype("string").fillna("(direct message)")
    elif by == "user_group" and user_groups is not None:
        g = validate(user_groups, "user_groups")
        cells = cells.merge(
            g.assign(group=g["name"].astype("string"))[["user_id", "group"]],
            left_on="sender_id",
            right_on="user_id",
            how="inner",
        )
    groups = sorted(set(cells["group"])) if by is not None else [None]
    grid = pd.MultiIndex.from_product([range(7), range(24)], names=["weekday", "hour"])
    parts = []
    for grp in groups:
        sub = cells if grp is None else cells[cells["group"] == grp]
        counts = sub.groupby(["weekday", "hour"]).size().reindex(grid, fill_value=0)
        part = counts.rename("messages").reset_index()
        if grp is not None:
            part.insert(0, "group", grp)
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    frame["messages"] = frame["messages"].astype("int64")
    frame.insert(
        int(list(frame.columns).index("weekday")) + 1,
        "weekday_name",
        pd.Series(pd.Categorical([_WEEKDAYS[d] for d in frame["weekday"]], categories=_WEEKDAYS)),
    )
    overall = (
        frame.groupby(["weekday", "weekday_name", "hour"], observed=True)["messages"]
        .sum()
        .reset_index()
    )
    busiest = (
        overall.sort_values(
            ["messages", "weekday", "hour"], ascending=[False, True, True], kind="stable"
        )
        .head(5)
        .reset_index(drop=True)
    )
    top = busiest.iloc[0] if len(df) else None
    return ActivityHeatmap(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        busiest,
        tz,
        by,
        None if top is None else str(top["weekday_name"]),
        None if top is None else int(top["hour"]),
    )


# -- V7 ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class NewcomerCohorts(ViewResult):
    """V7: retention of newcomers by the period of their first post.

    ``frame`` columns: ``cohort`` (the period label, ``2024-03``), ``cohort_start``, ``offset``
    (periods since the cohort's, 0 to ``horizon - 1``, only those already observed),
    ``cohort_size``, ``active_users`` (cohort members who posted in that period),
    ``retention`` (``active_users / cohort_size``). ``tenure``: ``period``, ``period_start``,
    ``tenure`` (periods since the sender's first post: ``0``, ``1-2``, ``3-5``, ``6-11``,
    ``12+``), ``messages``. ``first_channels``: ``channel``, ``newcomers`` (users whose first
    message was there).

    Example::

        >>> r = newcomer_cohorts(messages, cohort="M", horizon=6)
        >>> r.frame.pivot(index="cohort", columns="offset", values="retention")
    """

    view = "newcomer_cohorts"
    tenure: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    first_channels: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    cohort_freq: str = "M"
    horizon: int = 12
    newcomers: int = 0


_TENURE = ((0, 0, "0"), (1, 2, "1-2"), (3, 5, "3-5"), (6, 11, "6-11"), (12, 10**9, "12+"))


def newcomer_cohorts(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    cohort: str = "M",
    horizon: int = 12,
    cohort_by: str = "first_post",
    tz: str = "UTC",
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> NewcomerCohorts:
    """V7: newcomer cohorts: who keeps posting after their first period, and the tenure mix.

    Args:
        messages: the messages frame.
        users: the users frame (``exclude_bots``; ``date_joined`` for ``cohort_by``).
        cohort: the cohort period: ``W`` week or ``M`` month.
        horizon: how many periods the retention matrix follows (positive).
        cohort_by: ``first_post`` (the period of the first message in the data) or
            ``date_joined`` (the period the account was created; only users who posted count).
        tz: the time zone whose calendar makes the periods.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view.
    """
    if cohort not in ("W", "M"):
        raise ValueError(f"unknown cohort {cohort!r}; choose 'W' or 'M'")
    check_tz(tz)
    if not isinstance(horizon, int) or horizon <= 0:
        raise ValueError(f"horizon must be a positive number of periods, got {horizon!r}")
    if cohort_by not in ("first_post", "date_joined"):
        raise ValueError(f"unknown cohort_by {cohort_by!r}; choose 'first_post' or 'date_joined'")
    if cohort_by == "date_joined" and users is None:
        raise ValueError("cohort_by='date_joined' needs the users frame (users=...)")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    df = df[df["sender_id"].notna()].sort_values(["timestamp", "id"], kind="stable")
    per = local_periods(df["timestamp"], cohort, tz)
    ordinal = pd.Series(pd.PeriodIndex(per).asi8, index=df.index, dtype="int64")
    sender = df["sender_id"].astype("int64")
    first = ordinal.groupby(sender).min()
    if cohort_by == "date_joined" and users is not None:
        u = validate(users, "users").dropna(subset=["user_id", "date_joined"])
        joined = local_periods(u["date_joined"], cohort, tz)
        first = (
            pd.Series(pd.PeriodIndex(joined).asi8, index=u["user_id"].astype("int64").to_numpy())
            .reindex(first.index)
            .fillna(first)
            .astype("int64")
        )
    offset = ordinal - sender.map(first)
    act = pd.DataFrame(
        {"user": sender, "cohort": sender.map(first), "offset": offset}
    ).drop_duplicates()
    code = check_freq(cohort)
    last = int(ordinal.max()) if len(ordinal) else 0
    sizes = first.groupby(first).size()
    rows = []
    for c, size in sizes.items():
        active = (
            act[(act["cohort"] == c) & (act["offset"] >= 0)].groupby("offset")["user"].nunique()
        )
        p = pd.Period(ordinal=int(str(c)), freq=code)
        for k in range(horizon):
            if int(str(c)) + k > last:
                break
            n = int(active.get(k, 0))
            rows.append(
                {
                    "cohort": str(p),
                    "cohort_start": p.start_time,
                    "offset": k,
                    "cohort_size": int(size),
                    "active_users": n,
                    "retention": n / int(size),
                }
            )
    frame = pd.DataFrame(
        rows,
        columns=["cohort", "cohort_start", "offset", "cohort_size", "active_users", "retention"],
    )
    frame["cohort_start"] = pd.to_datetime(frame["cohort_start"]).dt.tz_localize(tz)
    labels = pd.Series(pd.NA, index=df.index, dtype="string")
    for lo, hi, name in _TENURE:
        labels[(offset >= lo) & (offset <= hi)] = name
    tenure = (
        pd.DataFrame({"ordinal": ordinal, "tenure": labels})
        .groupby(["ordinal", "tenure"])
        .size()
        .unstack("tenure", fill_value=0)
    )
    if len(tenure):
        full = range(int(ordinal.min()), last + 1)
        tenure = tenure.reindex(index=full, columns=[t[2] for t in _TENURE], fill_value=0)
        stacked: pd.Series = tenure.stack()  # type: ignore[assignment]
        tenure = stacked.rename("messages").reset_index()
        tenure["period"] = [str(pd.Period(ordinal=int(o), freq=code)) for o in tenure["ordinal"]]
        tenure["period_start"] = [
            pd.Period(ordinal=int(o), freq=code).start_time for o in tenure["ordinal"]
        ]
        tenure["period_start"] = pd.to_datetime(tenure["period_start"]).dt.tz_localize(tz)
        tenure = tenure[["period", "period_start", "tenure", "messages"]]
        tenure["messages"] = tenure["messages"].astype("int64")
    else:
        tenure = pd.DataFrame({c: [] for c in ["period", "period_start", "tenure", "messages"]})
    firsts = df.drop_duplicates("sender_id", keep="first")
    fc = firsts["channel"].astype("string").fillna("(direct message)").value_counts()
    first_channels = pd.DataFrame({"channel": fc.index.astype(str), "newcomers": fc.to_numpy()})
    first_channels = first_channels.sort_values(
        ["newcomers", "channel"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)
    return NewcomerCohorts(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        tenure,
        first_channels,
        cohort,
        horizon,
        int(len(first)),
    )


# -- V8 ----------------------------------------------------------------------------------------


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
    messages: pd.DataFrame,
    reactions: pd.DataFrame,
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
    """
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


# -- V9 ----------------------------------------------------------------------------------------


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
    messages: pd.DataFrame,
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
    """
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
    labels = raw.map(client_label)
    mix = pd.DataFrame({"label": labels, "client": raw})
    frame = (
        mix.groupby("label")
        .agg(messages=("client", "size"), clients=("client", lambda s: ";".join(sorted(set(s)))))
        .reset_index()
    )
    frame = frame.sort_values(["messages", "label"], ascending=[False, True], kind="stable")
    total = int(frame["messages"].sum())
    frame["share"] = frame["messages"] / total if total else 0.0
    frame = frame[["label", "clients", "messages", "share"]]
    is_dm = df["stream_id"].isna()
    group: set[int] = set()
    if dm_recipients is not None:
        d = validate(dm_recipients, "dm_recipients")
        n = d.groupby("message_id")["user_id"].nunique()
        group = {int(i) for i in n[n > 2].index}
    is_group = is_dm & df["id"].isin(list(group)).fillna(False).astype(bool)
    if len(df):
        periods = local_periods(df["timestamp"], freq, tz)
        full = pd.period_range(periods.min(), periods.max(), freq=periods.dt.freq)
        g = (
            pd.DataFrame({"p": periods, "ch": ~is_dm, "dm": is_dm, "gdm": is_group})
            .groupby("p")[["ch", "dm", "gdm"]]
            .sum()
            .reindex(full, fill_value=0)
        )
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
    return ClientAndDmMix(
        _finish(frame, anonymize, salt),
        coverage_of(coverage, df),
        over,
        float(is_dm.mean()) if len(df) else math.nan,
        str(frame["label"].iloc[0]) if len(frame) else None,
    )


# -- V10 ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class InteractionGraph(ViewResult):
    """V10: who replies to whom, communities and brokers; channels linked by shared members.

    ``frame`` (reply edges) columns: ``source``, ``target``, ``weight``: ``target`` posted in a
    topic right after ``source`` (a different person), ``weight`` times; edges below
    ``min_weight`` dropped. ``nodes``: ``user_id``, ``name``, ``messages``, ``degree``,
    ``weighted_degree``, ``community`` (0 = largest), ``betweenness`` (normalized, on the
    undirected graph; estimated from 64 sampled sources when there are more than 300 people).
    ``channel_edges``: ``channel_a``, ``channel_b``, ``shared_members`` (users
    subscribed to both, at least ``min_weight``). ``channel_nodes``: ``channel``, ``members``,
    ``community``. ``graph``/``channel_graph``: the networkx graphs (undirected, ``weight``).

    Example::

        >>> r = interaction_graph(messages, subscriptions=subs, channels=channels, min_weight=2)
        >>> r.nodes.sort_values("betweenness").tail(); r.communities
    """

    view = "interaction_graph"
    nodes: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    channel_edges: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    channel_nodes: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    graph: Any = None
    channel_graph: Any = None
    communities: int = 0
    modularity: float = math.nan
    anonymized: bool = False

    def summary(self) -> dict[str, Any]:
        """The result's numbers (graphs left out)."""
        out = super().summary()
        out.pop("graph", None)
        out.pop("channel_graph", None)
        return out


def _communities(g: Any, method: str, seed: int) -> list[set[Any]]:
    if g.number_of_edges() == 0:
        return [{n} for n in sorted(g.nodes)]
    if method == "louvain":
        parts = nx.community.louvain_communities(g, weight="weight", seed=seed)
    else:
        parts = nx.community.greedy_modularity_communities(g, weight="weight")
    return sorted((set(p) for p in parts), key=lambda p: (-len(p), min(map(str, p))))


def interaction_graph(
    messages: pd.DataFrame,
    *,
    subscriptions: pd.DataFrame | None = None,
    channels: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    min_weight: int = 1,
    communities: str = "louvain",
    seed: int = 0,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    exclude_bots: bool = False,
    anonymize: bool = False,
    salt: str = DEFAULT_SALT,
    coverage: str | None = None,
) -> InteractionGraph:
    """V10: the reply graph of users and the co-membership graph of channels, with communities.

    Args:
        messages: the messages frame (channel messages make the reply graph).
        subscriptions: the subscriptions frame, for the channel co-membership graph.
        channels: the channels frame (channel names for the co-membership graph).
        users: the users frame (names; ``exclude_bots``).
        min_weight: the least weight an edge needs to be kept (a positive count).
        communities: ``louvain`` (networkx ``louvain_communities`` with ``seed``) or ``greedy``
            (greedy modularity, deterministic).
        seed: the random seed of Louvain, so the split is the same on every run.
        since, until, exclude_bots, anonymize, salt, coverage: as for every view (off by
            default, as in the other nine; pass ``anonymize=True`` before sharing the graph).
    """
    if not isinstance(min_weight, int | np.integer) or min_weight < 1:
        raise ValueError(f"min_weight must be a positive whole number, got {min_weight!r}")
    if communities not in ("louvain", "greedy"):
        raise ValueError(f"unknown communities {communities!r}; choose 'louvain' or 'greedy'")
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    ch = _topic_keys(df).sort_values(["stream_id", "topic_name", "timestamp", "id"], kind="stable")
    # each side filled on its own: with pyarrow installed, pandas compares strings as Arrow
    # booleans, whose NA cannot meet a nullable boolean in ``&``
    same_topic = (ch["stream_id"] == ch["stream_id"].shift()).fillna(False).astype(bool) & (
        ch["topic_name"] == ch["topic_name"].shift()
    ).fillna(False).astype(bool)
    prev_sender = ch["sender_id"].shift()
    pairs = pd.DataFrame({"source": prev_sender, "target": ch["sender_id"]})[
        same_topic.fillna(False).astype(bool)
        & (prev_sender != ch["sender_id"]).fillna(False).astype(bool)
    ]
    edges = (
        pairs.astype("int64").groupby(["source", "target"]).size().rename("weight").reset_index()
    )
    edges = edges[edges["weight"] >= min_weight].sort_values(
        ["weight", "source", "target"], ascending=[False, True, True], kind="stable"
    )
    g = nx.Graph()
    for s, t, w in edges.itertuples(index=False):
        s, t, w = int(s), int(t), int(w)
        if g.has_edge(s, t):
            g[s][t]["weight"] += w
        else:
            g.add_edge(s, t, weight=w)
    parts = _communities(g, communities, seed)
    member = {n: i for i, p in enumerate(parts) for n in p}
    # exact betweenness is O(nodes x edges); past 300 people, estimate it from 64 sources
    sample = None if g.number_of_nodes() <= 300 else 64
    between = nx.betweenness_centrality(g, k=sample, seed=seed) if g.number_of_nodes() else {}
    counts = df.groupby(df["sender_id"].astype("Int64")).size()
    names = user_names(df, users)
    ids = sorted(g.nodes)
    nodes = pd.DataFrame(
        {
            "user_id": pd.Series(ids, dtype="Int64"),
            "name": pd.Series([names.get(i) for i in ids], dtype="string"),
            "messages": [int(counts.get(i, 0)) for i in ids],
            "degree": [int(g.degree(i)) for i in ids],
            "weighted_degree": [int(g.degree(i, weight="weight")) for i in ids],
            "community": [member[i] for i in ids],
            "betweenness": [float(between.get(i, 0.0)) for i in ids],
        }
    )
    modularity = (
        nx.community.modularity(g, parts, weight="weight") if g.number_of_edges() else math.nan
    )
    # channels linked by shared subscribers
    cg = nx.Graph()
    cedges = pd.DataFrame(
        {
            "channel_a": pd.Series([], dtype="string"),
            "channel_b": pd.Series([], dtype="string"),
            "shared_members": [],
        }
    )
    cnodes = pd.DataFrame(
        {"channel": pd.Series([], dtype="string"), "members": [], "community": []}
    )
    if subscriptions is not None:
        s = validate(subscriptions, "subscriptions").dropna()
        if exclude_bots:
            s = s[~s["user_id"].isin(list(bot_ids(users)))]
        cnames: dict[int, str] = {
            int(k): str(v)
            for k, v in df[["stream_id", "channel"]]
            .dropna()
            .drop_duplicates("stream_id")
            .to_numpy()
        }
        if channels is not None:
            c = validate(channels, "channels")
            cnames.update({int(k): str(v) for k, v in zip(c["stream_id"], c["name"], strict=True)})
        members = {int(str(k)): {int(u) for u in v} for k, v in s.groupby("stream_id")["user_id"]}
        label = {k: cnames.get(k, f"channel {k}") for k in members}
        keys = sorted(members, key=lambda k: label[k])
        rows = []
        for i, a in enumerate(keys):
            cg.add_node(label[a])
            for b in keys[i + 1 :]:
                shared = len(members[a] & members[b])
                if shared >= min_weight:
                    rows.append((label[a], label[b], shared))
                    cg.add_edge(label[a], label[b], weight=shared)
        cedges = pd.DataFrame(rows, columns=["channel_a", "channel_b", "shared_members"])
        cedges = cedges.sort_values(
            ["shared_members", "channel_a", "channel_b"],
            ascending=[False, True, True],
            kind="stable",
        )
        cparts = _communities(cg, communities, seed)
        cmember = {n: i for i, p in enumerate(cparts) for n in p}
        cnodes = pd.DataFrame(
            {
                "channel": [label[k] for k in keys],
                "members": [len(members[k]) for k in keys],
                "community": [cmember[label[k]] for k in keys],
            }
        )
    if anonymize:
        g = nx.relabel_nodes(g, {n: hash_user_id(n, salt) for n in g.nodes})
    return InteractionGraph(
        _finish(edges, anonymize, salt),
        coverage_of(coverage, df),
        _finish(nodes, anonymize, salt),
        cedges.reset_index(drop=True),
        cnodes,
        g,
        cg,
        len(parts),
        float(modularity),
        anonymize,
    )
