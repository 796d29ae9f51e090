"""V6: :func:`activity_heatmap`: its result, its DuckDB SQL, its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Unpack

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._common import (
    check_tz,
    coverage_of,
    prepare_messages,
)
from .._figure import axes as _axes
from .._figure import counts, finish
from ..engines import MessagesSource, messages_only
from ..engines._duck_sql import Kept
from ..localtime import SENDER, sender_local_times, sender_zone_note, with_note
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import zone
from ._options import ViewOptions, with_defaults
from ._registry import register
from ._result import ViewResult
from ._shared import _WEEKDAYS, _finish, humans


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


def _result(
    counts: pd.DataFrame,
    by: str | None,
    total: int,
    coverage: str | None,
    note: str | None,
    tz: str,
    anonymize: bool = False,
    key: PseudonymKey | str | None = None,
) -> ActivityHeatmap:
    """The view from ``counts`` (``group`` when ``by``, ``weekday``, ``hour``, ``messages``)."""
    groups = sorted(counts["group"].unique().tolist()) if by is not None else [None]
    grid = pd.MultiIndex.from_product([range(7), range(24)], names=["weekday", "hour"])
    parts = []
    for grp in groups:
        sub = counts if grp is None else counts[counts["group"] == grp]
        cells = (
            sub.set_index(["weekday", "hour"])["messages"]
            .groupby(level=["weekday", "hour"])
            .sum()
            .reindex(grid, fill_value=0)
        )
        part = cells.rename("messages").reset_index()
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
    top = busiest.iloc[0] if total else None
    return ActivityHeatmap(
        _finish(frame, anonymize, key),
        coverage if note is None else with_note(coverage, note),
        busiest,
        tz,
        by,
        None if top is None else str(top["weekday_name"]),
        None if top is None else int(top["hour"]),
    )


def _sql(k: Kept, p: dict[str, Any]) -> ActivityHeatmap | None:
    """The duckdb engine's counts: one row per group, weekday and hour."""
    tz, by = p["tz"], p["by"]
    if tz == SENDER or by not in (None, "channel"):
        return None
    check_tz(tz)
    local = k.local(tz)
    group = ", coalesce(channel, '(direct message)') AS \"group\"" if by == "channel" else ""
    counts = k.frame(
        f"SELECT (isodow({local}) - 1)::INTEGER AS weekday, hour({local})::INTEGER AS hour{group}, "
        "count(*) AS messages FROM k GROUP BY ALL"
    )
    total = int(counts["messages"].sum())
    return _result(counts, by, total, k.coverage(p["coverage"]), None, tz, p["anonymize"], p["key"])


# -- the plot -----------------------------------------------------------------------------------


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
    ax.set_title(f"When messages are sent ({zone(result.tz)}){busiest}")
    ax.set_xlabel(f"hour of day ({zone(result.tz)})")
    ax.set_ylabel("weekday")
    ax.set_xticks(range(0, 24, 2), [f"{h:02d}" for h in range(0, 24, 2)])
    ax.set_yticks(range(7), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    bar = fig.colorbar(image, ax=ax, pad=0.01)
    bar.set_label("messages")
    counts(bar.ax.yaxis)
    return finish(fig, result.coverage)


# -- the sentence -------------------------------------------------------------------------------


def busiest_hour(
    messages: pd.DataFrame, *, users: pd.DataFrame | None = None, tz: str = "UTC"
) -> str:
    """The weekday and hour (in ``tz``) with most messages."""
    df = humans(messages, users)
    if df.empty:
        return "No messages, so no busiest hour."
    local = df["timestamp"].dt.tz_convert(tz)
    busiest: Any = df.groupby([local.dt.day_name(), local.dt.hour]).size().idxmax()
    day, hour = busiest
    return f"The busiest hour of the week is {day} {int(hour):02d}:00 {tz}."


# -- the view -----------------------------------------------------------------------------------


@register(
    number=6,
    title="Activity heatmap",
    result=ActivityHeatmap,
    plot=plot_activity_heatmap,
    sentence=busiest_hour,
    sql=_sql,
)
def activity_heatmap(
    messages: MessagesSource,
    *,
    tz: str = "UTC",
    by: str | None = None,
    user_groups: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    default_tz: str = "UTC",
    **options: Unpack[ViewOptions],
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
        default_tz: with ``tz="sender"`` (each sender's own time zone, from ``users``), the
            zone of people who have none (the organization's); the note under the figure
            says how many.
    """
    o = with_defaults(options)
    messages = messages_only(messages)
    if tz != SENDER:
        check_tz(tz)
    if by not in (None, "channel", "user_group"):
        raise ValueError(f"unknown by {by!r}; choose None, 'channel' or 'user_group'")
    if by == "user_group" and user_groups is None:
        raise ValueError("by='user_group' needs the user_groups frame (user_groups=...)")
    df = prepare_messages(
        messages, users=users, since=o["since"], until=o["until"], exclude_bots=o["exclude_bots"]
    )
    note = None
    if tz == SENDER:
        local, missing, senders = sender_local_times(
            df["timestamp"], df["sender_id"], users, default_tz
        )
        note = sender_zone_note(missing, senders, default_tz)
    else:
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
    keys = ["weekday", "hour"] if by is None else ["group", "weekday", "hour"]
    counts = cells.groupby(keys).size().rename("messages").reset_index()
    return _result(
        counts, by, len(df), coverage_of(o["coverage"], df), note, tz, o["anonymize"], o["key"]
    )
