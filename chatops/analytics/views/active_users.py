"""V2: :func:`active_users`: its result, its DuckDB SQL, its plot and its sentence.

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

from .._common import (
    TimeLike,
    check_tz,
    coverage_of,
    prepare_messages,
)
from .._figure import counts, finish, new_figure, tidy
from .._figure import empty as _empty
from .._figure import figure_of as _figure_of
from .._percent import percent
from ..engines import MessagesSource, messages_only
from ..engines._duck_sql import Kept
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import PALETTE, date_axis, naive
from ._options import ViewOptions, with_defaults
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, data_end, humans


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


def _result(
    day: pd.Series,
    user_id: pd.Series,
    wins: tuple[int, ...],
    definition: str,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    key: PseudonymKey | str | None,
) -> ActiveUsers:
    """The view from the (local, naive) day and the user of each activity (or of each pair)."""
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
        _finish(frame, anonymize, key),
        coverage,
        stick,
        wins,
        definition,
        float(np.nanmean(ratio)) if np.isfinite(ratio).any() else math.nan,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ActiveUsers | None:
    """The duckdb engine's pairs: one row per person and local day they posted."""
    if p["definition"] != "sent":
        return None
    tz = check_tz(p["tz"])
    wins = tuple(p["windows"])
    if not wins or any(not isinstance(w, int | np.integer) or w <= 0 for w in wins):
        raise ValueError(f"windows must be positive whole days, got {list(wins)!r}")
    pairs = k.frame(
        f"SELECT DISTINCT sender_id AS user_id, date_trunc('day', {k.local(tz)}) AS day FROM k "
        "WHERE sender_id IS NOT NULL AND timestamp IS NOT NULL"
    )
    if pairs.empty:
        return None
    day = pd.Series(pd.to_datetime(pairs["day"]).to_numpy(dtype="datetime64[ns]"))
    return _result(
        day,
        pairs["user_id"],
        wins,
        "sent",
        tz,
        k.coverage(p["coverage"]),
        p["anonymize"],
        p["key"],
    )


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
    for i, (w, part) in enumerate(df.groupby("window", sort=True)):
        label = str(part["label"].iloc[0])
        ax.plot(
            naive(part["date"]),
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
            naive(st["date"]),
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
    date_axis(ax)
    return finish(fig, result.coverage)


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
        f"(to {stop:%Y-%m-%d}), out of {df['sender_id'].nunique():,} who ever posted."
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
    **options: Unpack[ViewOptions],
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
    """
    o = with_defaults(options)
    messages = messages_only(messages)
    check_tz(tz)
    wins = tuple(windows)
    if not wins or any(not isinstance(w, int | np.integer) or w <= 0 for w in wins):
        raise ValueError(f"windows must be positive whole days, got {list(wins)!r}")
    if definition not in ("sent", "any"):
        raise ValueError(f"unknown definition {definition!r}; choose 'sent' or 'any'")
    if definition == "any" and presence is None:
        raise ValueError("definition='any' needs the presence frame (presence=...)")
    df = prepare_messages(
        messages, users=users, since=o["since"], until=o["until"], exclude_bots=o["exclude_bots"]
    )
    events = df[["sender_id", "timestamp"]].rename(columns={"sender_id": "user_id"})
    if definition == "any" and presence is not None:
        p = validate(presence, "presence")
        p = prepare_messages(
            p.assign(
                id=0, type="stream", stream_id=0, channel="", topic="", sender_id=p["user_id"]
            ),
            users=users,
            since=o["since"],
            until=o["until"],
            exclude_bots=o["exclude_bots"],
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
            coverage_of(o["coverage"], df),
            pd.DataFrame({c: [] for c in stick_cols}),
            wins,
            definition,
        )
    day = events["timestamp"].dt.tz_convert(tz).dt.tz_localize(None).dt.floor("D")
    return _result(
        day,
        events["user_id"],
        wins,
        definition,
        tz,
        coverage_of(o["coverage"], df),
        o["anonymize"],
        o["key"],
    )
