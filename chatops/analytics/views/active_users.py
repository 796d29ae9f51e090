"""V2: :func:`active_users`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .._common import (
    TimeLike,
    check_tz,
    utc,
)
from .._figure import counts, finish, new_figure, tidy
from .._figure import empty as _empty
from .._figure import figure_of as _figure_of
from .._percent import percent
from ..change import Change, change_of
from ..engines import MessagesSource
from ..engines._sql import Kept
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import PALETTE, date_axis, naive
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, data_end, humans, seen_by, whose_messages


@dataclasses.dataclass
class ActiveUsers(ViewResult):
    """V2: distinct active users over trailing windows, per day.

    ``frame`` columns: ``date`` (the local day, aware in ``tz``), ``window`` (days), ``label``
    (DAU, WAU, 15-day, MAU for 1, 7, 15, 28), ``active_users``, ``partial`` (the day ends after
    ``as_of``, so its count is still growing; the figure hatches it, as V1 hatches its partial
    bucket). ``stickiness`` columns:
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

    def change(self) -> Change | None:
        """People active in the window of 7 days (or the shortest window) ending on the last
        whole day, against the same window just before it; the data's last day is taken as
        not over."""
        if self.frame.empty:
            return None
        window = 7 if 7 in self.windows else min(self.windows)
        f = self.frame[self.frame["window"] == window].set_index("date")["active_users"]
        f = f.sort_index().iloc[:-1]  # the last day is still counting
        picks = f.iloc[::-1].iloc[::window].iloc[::-1]  # every window-th day back from the end
        if len(picks) < 2:
            return None
        days = "day" if window == 1 else f"{window} days"
        # each value counts the window ending on its day: it starts window - 1 days before
        starts = pd.DatetimeIndex(picks.index) - pd.Timedelta(days=window - 1)
        return change_of(
            pd.Series(picks.to_numpy(), index=starts), None, f"people active in {days}", days
        )


def _window_label(window: int) -> str:
    return {1: "DAU", 7: "WAU", 15: "15-day", 28: "MAU", 30: "MAU"}.get(window, f"{window}-day")


def _result(
    day: pd.Series,
    user_id: pd.Series,
    wins: tuple[int, ...],
    definition: str,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    key: PseudonymKey | str | None,
    cut: pd.Timestamp,
) -> ActiveUsers:
    """The view from the (local, naive) day and the user of each activity (or of each pair);
    a day ending after ``cut`` is partial."""
    days = pd.date_range(day.min(), day.max(), freq="D")
    day_index = ((day - days[0]) // pd.Timedelta(days=1)).to_numpy(dtype="int64")
    user_codes, _ = pd.factorize(user_id.astype("int64"))
    # days x users matrix of "posted that day"; a trailing window is a difference of cumsums
    matrix = np.zeros((len(days), int(user_codes.max()) + 1), dtype="int32")
    matrix[day_index, user_codes] = 1
    cums = np.vstack([np.zeros((1, matrix.shape[1]), dtype="int32"), np.cumsum(matrix, axis=0)])

    def trailing(w: int) -> pd.Series:
        ends = np.arange(1, len(days) + 1)
        counts = cums[ends] - cums[np.maximum(ends - w, 0)]
        return pd.Series((counts > 0).sum(axis=1), dtype="int64")

    local = days.tz_localize(tz, ambiguous="NaT", nonexistent="shift_forward")
    ends = (days + pd.Timedelta(days=1)).tz_localize(
        tz, ambiguous="NaT", nonexistent="shift_forward"
    )
    partial = np.asarray(ends > cut, dtype=bool)
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "date": local,
                    "window": w,
                    "label": _window_label(w),
                    "active_users": trailing(w).to_numpy(),
                    "partial": partial,
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
        _finish(frame, anonymize, key),
        coverage,
        stick,
        wins,
        definition,
        float(np.nanmean(ratio)) if np.isfinite(ratio).any() else math.nan,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ActiveUsers:
    """The view's pairs: one row per person and local day they posted (or were seen)."""
    tz, wins, definition = p["tz"], tuple(p["windows"]), p["definition"]
    events = "k"
    if definition == "any":
        seen = validate(p["presence"], "presence")
        k.load(
            "presence", pd.DataFrame({"sender_id": seen["user_id"], "timestamp": seen["timestamp"]})
        )
        # the period and the bots as for the messages
        events = (
            "(SELECT sender_id, timestamp FROM k UNION ALL "
            f"SELECT sender_id, timestamp FROM presence WHERE {k.where})"
        )
    pairs = k.frame(
        f"SELECT DISTINCT sender_id AS user_id, date_trunc('day', {k.local(tz)}) AS day "
        f"FROM {events} WHERE sender_id IS NOT NULL AND timestamp IS NOT NULL"
    )
    if pairs.empty:
        frame = pd.DataFrame(
            {c: [] for c in ["date", "window", "label", "active_users", "partial"]}
        )
        return ActiveUsers(
            frame,
            k.coverage(p["coverage"]),
            pd.DataFrame({c: [] for c in ["date", "dau", "mau", "stickiness"]}),
            wins,
            definition,
        )
    day = pd.Series(pd.to_datetime(pairs["day"]).to_numpy(dtype="datetime64[ns]"))
    return _result(
        day,
        pairs["user_id"],
        wins,
        definition,
        tz,
        k.coverage(p["coverage"]),
        p["anonymize"],
        p["key"],
        _cut(p["as_of"], p["until"]),
    )


def _cut(as_of: TimeLike | None, until: TimeLike | None) -> pd.Timestamp:
    """When the data was taken: ``as_of``, else ``until``, else now (as V1 reads it)."""
    when = as_of if as_of is not None else until
    return pd.Timestamp.now(tz="UTC") if when is None else utc(when)


# -- the plot -----------------------------------------------------------------------------------


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
    cut = "partial" in df.columns and bool(df["partial"].any())
    for i, (w, part) in enumerate(df.groupby("window", sort=True)):
        label = str(part["label"].iloc[0])
        _line(
            ax,
            part["date"],
            part["active_users"],
            part["partial"] if cut else None,
            color=PALETTE[i % len(PALETTE)],
            label=f"{label} ({w}-day window)" if label != f"{w}-day" else label,
            linewidth=1.4,
        )
    ax.set_ylim(0, max(float(df["active_users"].max()), 1.0) * 1.3)
    handles, labels = ax.get_legend_handles_labels()
    if cut:
        days = naive(df.loc[df["partial"].astype(bool), "date"].drop_duplicates())
        for a in (ax,) if stick_ax is None else (ax, stick_ax):
            for d in days:
                a.axvspan(
                    d - pd.Timedelta(hours=12),
                    d + pd.Timedelta(hours=12),
                    facecolor="none",
                    edgecolor="#444444",
                    hatch="///",
                    linewidth=0,
                    alpha=0.55,
                )
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="///"))
        labels.append("partial day (still counting)")
    ax.legend(handles, labels, loc="upper left", fontsize=8, frameon=False, ncols=3)
    if stick_ax is None:
        ax.set_xlabel("day")
    else:
        st = result.stickiness
        flags = dict(zip(df["date"], df["partial"], strict=False)) if cut else None
        _line(
            stick_ax,
            st["date"],
            st["stickiness"] * 100,
            None if flags is None else st["date"].map(flags).fillna(False),
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
    date_axis(ax)
    return finish(fig, result.coverage)


def _line(ax: Axes, x: pd.Series, y: pd.Series, partial: pd.Series | None, **style: Any) -> None:
    """A line of complete days, and from the last of them a dotted line to each partial day,
    drawn as a hollow point (its count is still growing)."""
    if partial is None or not partial.any():
        ax.plot(naive(x), y, **style)
        return
    flags = partial.astype(bool).to_numpy()
    whole = ~flags
    ax.plot(naive(x[whole]), y[whole], **style)
    last = np.flatnonzero(whole)[-1:].tolist()
    tail = last + np.flatnonzero(flags).tolist()
    ax.plot(
        naive(x.iloc[tail]),
        y.iloc[tail],
        color=style.get("color"),
        linewidth=style.get("linewidth", 1.0),
        linestyle=":",
        marker="o",
        markevery=list(range(len(last), len(tail))),
        markerfacecolor="white",
        markersize=4,
    )


# -- the sentence -------------------------------------------------------------------------------


def active_posters(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    days: int = 28,
    end: TimeLike | None = None,
) -> str:
    """How many people posted in the last ``days`` days of the data, out of all who posted."""
    stop = data_end(messages, end)
    df = humans(messages, users)
    recent = df[(df["timestamp"] > stop - pd.Timedelta(days=days)) & (df["timestamp"] <= stop)]
    return (
        f"{recent['sender_id'].nunique():,} people posted in the last {days} days of the data "
        f"(to {stop:%Y-%m-%d}), out of {df['sender_id'].nunique():,} who ever posted"
        f"{seen_by(whose_messages(messages))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=2,
    title="Active users",
    result=ActiveUsers,
    plot=plot_active_users,
    sentence=active_posters,
    sql=_sql,
)
def active_users(
    messages: MessagesSource,
    *,
    users: pd.DataFrame | None = None,
    presence: pd.DataFrame | None = None,
    windows: Sequence[int] = (1, 7, 15, 28),
    definition: str = "sent",
    tz: str = "UTC",
    as_of: TimeLike | None = None,
    **options: Unpack[ViewOptions],
) -> None:
    """V2: for each day, how many users were active in the trailing ``window`` days.

    Args:
        messages: the messages frame.
        users: the users frame (for ``exclude_bots``).
        presence: the presence frame, counted as activity with ``definition="any"``.
        windows: trailing windows in days (positive); the day itself is included, so window 7
            on a Sunday covers Monday to Sunday.
        definition: ``sent`` (sent a message) or ``any`` (sent a message or was seen active).
        tz: the time zone whose calendar makes the days.
        as_of: the time the data was taken; a day ending after it is ``partial``. Default
            ``until``, else now.
    """
    check_tz(tz)
    wins = tuple(windows)
    if not wins or any(not isinstance(w, int | np.integer) or w <= 0 for w in wins):
        raise ValueError(f"windows must be positive whole days, got {list(wins)!r}")
    if definition not in ("sent", "any"):
        raise ValueError(f"unknown definition {definition!r}; choose 'sent' or 'any'")
    if definition == "any" and presence is None:
        raise ValueError("definition='any' needs the presence frame (presence=...)")
    if presence is not None:
        validate(presence, "presence")
