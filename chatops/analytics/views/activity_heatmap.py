"""V6: :func:`activity_heatmap`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._common import (
    check_tz,
)
from .._figure import axes as _axes
from .._figure import counts, finish, new_figure
from .._figure import empty as _empty
from ..engines import MessagesSource
from ..engines._sql import Kept
from ..localtime import SENDER, with_note
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import zone
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _WEEKDAYS, _finish, humans, seen_by, whose_messages

#: how the names of the organization's system groups begin (``role:everyone``, ``role:internet``)
SYSTEM_GROUP = "role:"
#: the groups' grids drawn at most (the most messages first); the figure says which are left out
MAX_PANELS = 6


@dataclasses.dataclass
class ActivityHeatmap(ViewResult):
    """V6: messages per weekday and hour of day (local time in ``tz``).

    ``frame`` columns: (``group`` when ``by`` is given), ``weekday`` (0 = Monday),
    ``weekday_name``, ``hour`` (0-23), ``messages``: every weekday x hour cell, zeros included.
    ``busiest``: the five busiest cells of the messages counted, each message once (with
    ``by="user_group"`` a message is in the grid of every group of its sender, and groups
    overlap: their grids are never added up).

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
    once: pd.DataFrame | None = None,
) -> ActivityHeatmap:
    """The view from ``counts`` (``group`` when ``by``, ``weekday``, ``hour``, ``messages``);
    ``once``: the counts of the same messages each counted once, when groups overlap."""
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
    # no group to show (no kept message, or none from a member of the groups counted)
    empty = pd.DataFrame({"group": [], "weekday": [], "hour": [], "messages": []})
    frame = (
        pd.concat(parts, ignore_index=True)
        if parts
        else empty.astype({"weekday": "int64", "hour": "int64"})
    )
    frame["messages"] = frame["messages"].astype("int64")
    frame.insert(
        int(list(frame.columns).index("weekday")) + 1,
        "weekday_name",
        pd.Series(pd.Categorical([_WEEKDAYS[d] for d in frame["weekday"]], categories=_WEEKDAYS)),
    )
    overall = (
        (frame if once is None else once)
        .groupby(["weekday", "hour"])["messages"]
        .sum()
        .reindex(grid, fill_value=0)
        .astype("int64")
        .reset_index()
    )
    overall.insert(
        1,
        "weekday_name",
        pd.Series(pd.Categorical([_WEEKDAYS[d] for d in overall["weekday"]], categories=_WEEKDAYS)),
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


def _sql(k: Kept, p: dict[str, Any]) -> ActivityHeatmap:
    """The view's counts: one row per group, weekday and hour."""
    tz, by = p["tz"], p["by"]
    note = k.on_sender_clocks(p["users"], p["default_tz"]) if tz == SENDER else None
    local = k.local(tz)
    cell = f"(isodow({local}) - 1)::INTEGER AS weekday, hour({local})::INTEGER AS hour"
    once = None
    if by == "user_group":
        k.load("members", _members(p["user_groups"], p["groups"]))
        # each message once (for the busiest cells), then once in each group of its sender
        once = k.frame(
            f"SELECT {cell}, count(*) AS messages FROM k "
            "WHERE sender_id IN (SELECT user_id FROM members) GROUP BY ALL"
        )
        counts = k.frame(
            f'SELECT {cell}, g."group" AS "group", count(*) AS messages '
            "FROM k JOIN members AS g ON g.user_id = k.sender_id GROUP BY ALL"
        )
        total = int(once["messages"].sum())
    else:
        group = ", coalesce(channel, '(direct message)') AS \"group\"" if by == "channel" else ""
        counts = k.frame(f"SELECT {cell}{group}, count(*) AS messages FROM k GROUP BY ALL")
        total = int(counts["messages"].sum())
    coverage = k.coverage(p["coverage"])
    return _result(counts, by, total, coverage, note, tz, p["anonymize"], p["key"], once)


# -- the plot -----------------------------------------------------------------------------------


def _grid(cells: pd.DataFrame) -> pd.DataFrame:
    return (
        cells.groupby(["weekday", "hour"])["messages"]
        .sum()
        .unstack("hour")
        .reindex(index=range(7), columns=range(24), fill_value=0)
        .fillna(0)
    )


def _draw_grid(ax: Axes, grid: pd.DataFrame, vmax: float, ticks: bool = True) -> Any:
    image = ax.imshow(
        grid.to_numpy(dtype=float),
        aspect="auto",
        cmap="Blues",
        interpolation="nearest",
        vmin=0,
        vmax=max(vmax, 1.0),
    )
    ax.set_xticks(
        range(0, 24, 2 if ticks else 6), [f"{h:02d}" for h in range(0, 24, 2 if ticks else 6)]
    )
    ax.set_yticks(range(7), list(_WEEKDAYS))
    return image


def plot_activity_heatmap(result: ActivityHeatmap, ax: Axes | None = None) -> Figure:
    """V6: weekday x hour heatmap of messages, with a colour bar.

    Channels (and direct messages) are one grid, all together: each message is in one of them.
    User groups overlap (a person is in several), so ``by="user_group"`` draws one grid per
    group, side by side on one colour scale, the :data:`MAX_PANELS` groups with the most
    messages (a note says how many are left out); on ``ax``, the first of them.

    Args:
        result: an :func:`~chatops.analytics.views.activity_heatmap` result.
        ax: axes to draw into; default a new figure.
    """
    if result.by == "user_group":
        return _plot_groups(result, ax)
    fig, (ax,) = _axes(ax, size=(10.0, 3.8))
    top = float(_grid(result.frame).to_numpy().max()) if len(result.frame) else 0.0
    image = _draw_grid(ax, _grid(result.frame), top)
    busiest = ""
    if result.busiest_weekday is not None:
        busiest = f"; busiest {result.busiest_weekday} {result.busiest_hour:02d}:00"
    ax.set_title(f"When messages are sent ({zone(result.tz)}){busiest}")
    ax.set_xlabel(f"hour of day ({zone(result.tz)})")
    ax.set_ylabel("weekday")
    if top == 0:
        _empty(ax)  # no scale to read: no message in any cell
        return finish(fig, result.coverage)
    bar = fig.colorbar(image, ax=ax, pad=0.01)
    bar.set_label("messages")
    counts(bar.ax.yaxis)
    return finish(fig, result.coverage)


def _plot_groups(result: ActivityHeatmap, ax: Axes | None) -> Figure:
    """One grid per user group (they overlap: never added up), on one colour scale."""
    f = result.frame
    totals = (
        f.groupby("group", observed=True)["messages"]
        .sum()
        .sort_values(ascending=False, kind="stable")
        if len(f)
        else pd.Series(dtype="int64")
    )
    shown = list(totals.index[: 1 if ax is not None else MAX_PANELS])
    left = len(totals) - len(shown)
    cols = min(3, max(1, len(shown)))
    rows = max(1, -(-len(shown) // cols))
    if ax is not None:
        fig, axes = _axes(ax)
    else:
        fig = new_figure((4.2 * cols + 1.0, 2.6 * rows + 1.2))
        axes = list(np.asarray(fig.subplots(rows, cols, squeeze=False), dtype=object).ravel())
    grids = {g: _grid(f[f["group"] == g]) for g in shown}
    vmax = max((float(x.to_numpy().max()) for x in grids.values()), default=1.0)
    image = None
    for i, a in enumerate(axes):
        if i >= len(shown):
            a.set_axis_off()
            continue
        name = shown[i]
        image = _draw_grid(a, grids[name], vmax, ticks=False)
        a.set_title(f"{name} ({int(totals[name]):,} messages)", fontsize=9)
        if i % cols:
            a.set_yticklabels([])
        if i < len(shown) - cols:
            a.set_xticklabels([])
        else:
            a.set_xlabel(f"hour ({zone(result.tz)})", fontsize=8)
    if not shown:
        axes[0].set_axis_off()
        _empty(axes[0], "no messages from members of the groups")
    if image is not None:
        bar = fig.colorbar(image, ax=axes, pad=0.01, shrink=0.9)
        bar.set_label("messages of the group's members")
        counts(bar.ax.yaxis)
    fig.suptitle(
        f"When each user group's members write ({zone(result.tz)}); a person counts in each of "
        "their groups, so the grids overlap",
        fontsize=10,
    )
    note = (
        f"{left} more group{'s' if left != 1 else ''} not drawn (fewer messages): choose them "
        "with groups=[...]"
        if left
        else None
    )
    return finish(fig, "; ".join(n for n in (result.coverage, note) if n) or None)


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
    whose = seen_by(whose_messages(messages))
    return f"The busiest hour of the week is {day} {int(hour):02d}:00 {tz}{whose}."


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
    groups: Sequence[str] | None = None,
    users: pd.DataFrame | None = None,
    default_tz: str = "UTC",
    **options: Unpack[ViewOptions],
) -> None:
    """V6: when people write: an hour x weekday grid of message counts.

    Args:
        messages: the messages frame.
        tz: the time zone the hours are read in.
        by: None, ``channel`` (one grid per channel; direct messages under
            ``(direct message)``) or ``user_group`` (one grid per group of the sender; a message
            counts once in each group its sender belongs to, so the groups' grids overlap and
            are drawn side by side, never added up).
        user_groups: the user_groups frame, for ``by="user_group"`` (a dataset's lists each
            group's members with its subgroups' members included, as Zulip counts them).
        groups: with ``by="user_group"``, the groups to count (one name or a list); default
            every group but the system ones (names starting ``role:``, such as
            ``role:everyone``), which count only when named here.
        users: the users frame (for ``exclude_bots``).
        default_tz: with ``tz="sender"`` (each sender's own time zone, from ``users``), the
            zone of people who have none (the organization's); the note under the figure
            says how many.
    """
    check_tz(default_tz if tz == SENDER else tz)
    if by not in (None, "channel", "user_group"):
        raise ValueError(f"unknown by {by!r}; choose None, 'channel' or 'user_group'")
    if groups is not None and by != "user_group":
        raise ValueError("groups=... chooses user groups: it needs by='user_group'")
    if by == "user_group":
        if user_groups is None:
            raise ValueError("by='user_group' needs the user_groups frame (user_groups=...)")
        _members(user_groups, groups)


def _members(user_groups: pd.DataFrame, groups: Sequence[str] | str | None) -> pd.DataFrame:
    """``user_id``, ``group``: each person once per group counted (system groups only when
    named in ``groups``); ValueError naming a group the frame does not hold."""
    g = validate(user_groups, "user_groups")
    names = g["name"].astype("string")
    if groups is None:
        keep = ~names.str.startswith(SYSTEM_GROUP).fillna(False)
    else:
        wanted = [groups] if isinstance(groups, str) else list(groups)
        unknown = sorted(set(wanted) - set(names.dropna()))
        if unknown:
            raise ValueError(f"groups: no user group named {', '.join(map(repr, unknown))}")
        keep = names.isin(wanted).fillna(False)
    pairs = pd.DataFrame({"user_id": g["user_id"], "group": names})[keep.to_numpy(dtype=bool)]
    return pairs.dropna().drop_duplicates().reset_index(drop=True)
