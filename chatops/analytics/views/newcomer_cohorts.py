"""V7: :func:`newcomer_cohorts`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._common import (
    TimeLike,
    check_freq,
    check_tz,
    local_periods,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._figure import empty as _empty
from .._percent import percent
from ..change import Change, change_of
from ..engines import MessagesSource
from ..engines._sql import Kept
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import FREQ_WORD, PALETTE
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, data_end, humans, seen_by, whose_messages


@dataclasses.dataclass
class NewcomerCohorts(ViewResult):
    """V7: retention of newcomers by the period of their first post (or of joining).

    ``frame`` columns: ``cohort`` (the period label, ``2024-03``: of the first post, or with
    ``cohort_by="date_joined"`` of joining), ``cohort_start``, ``offset`` (periods since the
    cohort's, 0 to ``horizon - 1``, only those already observed; a message sent before its
    sender's cohort period is in no cell),
    ``cohort_size``, ``active_users`` (cohort members who posted in that period),
    ``retention`` (``active_users / cohort_size``). ``tenure``: ``period``, ``period_start``,
    ``tenure`` (periods since the sender's first post: ``0``, ``1-2``, ``3-5``, ``6-11``,
    ``12+``, whatever the cohort), ``messages``: every message counted is in it once.
    ``first_channels``: ``channel``, ``newcomers`` (users whose first
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
    cohort_by: str = "first_post"
    #: with ``cohort_by="date_joined"``: senders whose first post is in a period before the
    #: one they joined in (imported history, or a join date reset)
    posted_before_joining: int = 0

    def change(self) -> Change | None:
        """Newcomers (people in a cohort) in the last complete period against the one before;
        the period of the newest message is taken as not over."""
        if self.frame.empty:
            return None
        code = check_freq(self.cohort_freq)
        cohorts = self.frame.drop_duplicates("cohort")
        sizes = pd.Series(
            cohorts["cohort_size"].to_numpy(),
            index=pd.PeriodIndex([pd.Period(c, freq=code) for c in cohorts["cohort"]]),
        )
        # the newest period any row reaches is the data's last: still counting
        last = max(
            pd.Period(c, freq=code) + int(o)
            for c, o in zip(self.frame["cohort"], self.frame["offset"], strict=True)
        )
        full = pd.period_range(sizes.index.min(), last, freq=code)
        sizes = sizes.groupby(level=0).sum().reindex(full, fill_value=0)
        starts = full.start_time
        values = pd.Series(sizes.to_numpy(), index=starts)
        partial = pd.Series(full == last, index=starts)
        word = FREQ_WORD.get(self.cohort_freq, self.cohort_freq)
        return change_of(values, partial, "newcomers", word)


_TENURE = ((0, 0, "0"), (1, 2, "1-2"), (3, 5, "3-5"), (6, 11, "6-11"), (12, 10**9, "12+"))


def _result(
    sender: pd.Series,
    ordinal: pd.Series,
    weight: pd.Series,
    fc: pd.Series,
    users: pd.DataFrame | None,
    cohort: str,
    horizon: int,
    cohort_by: str,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    key: PseudonymKey | str | None,
) -> NewcomerCohorts:
    """The view from the sender, period ordinal and message count of each message (or of
    each sender and day), and the count of newcomers per first channel."""
    first_post = ordinal.groupby(sender).min()
    first = first_post
    early = 0
    if cohort_by == "date_joined" and users is not None:
        u = validate(users, "users").dropna(subset=["user_id", "date_joined"])
        joined = local_periods(u["date_joined"], cohort, tz)
        first = (
            pd.Series(pd.PeriodIndex(joined).asi8, index=u["user_id"].astype("int64").to_numpy())
            .groupby(level=0)
            .min()
            .reindex(first_post.index)
            .fillna(first_post)
            .astype("int64")
        )
        early = int((first_post < first).sum())
    # retention counts from the cohort's period (a message from before joining is in no
    # cell of the matrix); tenure always from the sender's first post, so every message has one
    offset = ordinal - sender.map(first)
    tenure_offset = ordinal - sender.map(first_post)
    cohort_of = sender.map(first)
    code = check_freq(cohort)
    last = int(ordinal.max()) if len(ordinal) else 0
    sizes = first.groupby(first).size()
    # active users per cohort and offset, in one grouping (a row per sender and period)
    seen = offset.to_numpy() >= 0
    active = (
        pd.DataFrame(
            {"cohort": cohort_of.to_numpy()[seen], "offset": offset.to_numpy()[seen]},
        )
        .assign(user=sender.to_numpy()[seen])
        .drop_duplicates()
        .groupby(["cohort", "offset"])
        .size()
    )
    rows = []
    for c, size in sizes.items():
        p = pd.Period(ordinal=int(str(c)), freq=code)
        for k in range(horizon):
            if int(str(c)) + k > last:
                break
            n = int(active.get((c, k), 0))
            rows.append((str(p), p.start_time, k, int(size), n, n / int(size)))
    frame = pd.DataFrame(
        rows,
        columns=["cohort", "cohort_start", "offset", "cohort_size", "active_users", "retention"],
    )
    frame["cohort_start"] = pd.to_datetime(frame["cohort_start"]).dt.tz_localize(tz)
    tenure = _tenure(ordinal, tenure_offset, weight, code, tz)
    first_channels = pd.DataFrame({"channel": fc.index.astype(str), "newcomers": fc.to_numpy()})
    first_channels = first_channels.sort_values(
        ["newcomers", "channel"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)
    return NewcomerCohorts(
        _finish(frame, anonymize, key),
        coverage,
        tenure,
        first_channels,
        cohort,
        horizon,
        int(len(first)),
        cohort_by,
        early,
    )


def _tenure(
    ordinal: pd.Series, tenure_offset: pd.Series, weight: pd.Series, code: str, tz: str
) -> pd.DataFrame:
    """Messages per period and tenure (periods since the sender's first post)."""
    cols = ["period", "period_start", "tenure", "messages"]
    if not len(ordinal):
        return pd.DataFrame({c: [] for c in cols})
    names = [t[2] for t in _TENURE]
    # each message's tenure band: 0, 1-2, 3-5, 6-11, 12+ (the offsets are never negative)
    band = np.searchsorted([t[1] for t in _TENURE], tenure_offset.to_numpy(), side="left")
    lo = int(ordinal.min())
    periods = int(ordinal.max()) - lo + 1
    cells = np.bincount(
        (ordinal.to_numpy() - lo) * len(names) + band,
        weights=weight.to_numpy(dtype="int64"),
        minlength=periods * len(names),
    ).astype("int64")
    starts = [pd.Period(ordinal=lo + i, freq=code) for i in range(periods)]
    tenure = pd.DataFrame(
        {
            "period": np.repeat([str(p) for p in starts], len(names)),
            "period_start": np.repeat([p.start_time for p in starts], len(names)),
            "tenure": np.tile(names, periods),
            "messages": cells,
        }
    )
    tenure["period_start"] = pd.to_datetime(tenure["period_start"]).dt.tz_localize(tz)
    return tenure


def _sql(k: Kept, p: dict[str, Any]) -> NewcomerCohorts:
    """The view's counts: one row per sender and local day, one per sender's start."""
    cohort, horizon, cohort_by, users = p["cohort"], p["horizon"], p["cohort_by"], p["users"]
    tz = check_tz(p["tz"])
    days = k.frame(
        f"SELECT sender_id, date_trunc('day', {k.local(tz)}) AS day, count(*) AS n FROM k "
        "WHERE sender_id IS NOT NULL AND timestamp IS NOT NULL GROUP BY ALL"
    )
    starts = k.frame(
        "SELECT arg_min(coalesce(channel, '(direct message)'), (timestamp, id)) AS channel "
        "FROM k WHERE sender_id IS NOT NULL GROUP BY sender_id"
    )
    ordinal = pd.Series(
        pd.PeriodIndex(pd.to_datetime(days["day"]).dt.to_period(check_freq(cohort))).asi8,
        dtype="int64",
    )
    return _result(
        days["sender_id"].astype("int64"),
        ordinal,
        days["n"].astype("int64"),
        starts["channel"].astype("string").value_counts(),
        users,
        cohort,
        horizon,
        cohort_by,
        tz,
        k.coverage(p["coverage"]),
        p["anonymize"],
        p["key"],
    )


# -- the plot -----------------------------------------------------------------------------------


def plot_newcomer_cohorts(result: NewcomerCohorts, ax: Axes | None = None) -> Figure:
    """V7: retention matrix (cohort x periods since first post); beside it, messages by tenure.

    Args:
        result: a :func:`~chatops.analytics.views.newcomer_cohorts` result.
        ax: axes for the retention matrix alone; default a new figure with both panels.
    """
    fig, axes = _axes(
        ax, 2 if ax is None else 1, size=(12.0, 4.6), ratios=(1.25, 1.0) if ax is None else None
    )
    word = FREQ_WORD.get(result.cohort_freq, result.cohort_freq)
    start = "joining" if result.cohort_by == "date_joined" else "first post"
    ret = axes[0]
    ret.set_title(f"Newcomer retention by {word} of {start}")
    ret.set_xlabel(f"{word}s since {start}")
    ret.set_ylabel(f"cohort ({word} of {start})")
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


# -- the sentence -------------------------------------------------------------------------------


def first_time_posters(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 90,
    end: TimeLike | None = None,
) -> int:
    """How many people (bots left out when ``users`` is given) sent their first message in the
    last ``days`` days of the data: in ``(end - days, end]``, ``end`` as in :func:`data_end`."""
    if days <= 0:
        raise ValueError(f"days must be positive, got {days!r}")
    stop = data_end(messages, end)
    df = humans(messages, users)
    first = df.groupby("sender_id")["timestamp"].min()
    return int(((first > stop - pd.Timedelta(days=days)) & (first <= stop)).sum())


def newcomers(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 90,
    end: TimeLike | None = None,
) -> str:
    """``"N people posted for the first time in the last 90 days of the data (to <date>)."``"""
    n = first_time_posters(messages, users=users, days=days, end=end)
    stop = data_end(messages, end)
    who = "person" if n == 1 else "people"
    return (
        f"{n:,} {who} posted for the first time in the last {days} days of the data "
        f"(to {stop:%Y-%m-%d}){seen_by(whose_messages(messages))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=7,
    title="Newcomer cohorts",
    result=NewcomerCohorts,
    plot=plot_newcomer_cohorts,
    sentence=newcomers,
    sql=_sql,
)
def newcomer_cohorts(
    messages: MessagesSource,
    *,
    users: pd.DataFrame | None = None,
    cohort: str = "M",
    horizon: int = 12,
    cohort_by: str = "first_post",
    tz: str = "UTC",
    **options: Unpack[ViewOptions],
) -> None:
    """V7: newcomer cohorts: who keeps posting after their first period, and the tenure mix.

    Args:
        messages: the messages frame.
        users: the users frame (``exclude_bots``; ``date_joined`` for ``cohort_by``).
        cohort: the cohort period: ``W`` week or ``M`` month.
        horizon: how many periods the retention matrix follows (positive).
        cohort_by: ``first_post`` (the period of the first message in the data) or
            ``date_joined`` (the period the account was created; only users who posted count,
            and a message sent before its sender's join period counts in no cell of the
            matrix; ``posted_before_joining`` says how many senders have one). The tenure
            table reads periods since the sender's first post either way, and adds up to the
            messages counted.
        tz: the time zone whose calendar makes the periods.
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
