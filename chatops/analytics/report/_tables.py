"""Each view's compact table in the report: its top rows, as people read them.

Names, not ids (a user id becomes the person's name); percentages and hours rounded; a time
on one line (``2026-11-28 22:40 UTC``, a date alone when every time is midnight); headers in
words. A view has a picking of its own below (its main columns, its top rows); a view whose
frame no longer has those columns gets the first rows of its frame, formatted the same way.
The table is the audit report's :class:`~chatops.audit.report.pages.Table`, so it renders with
the same template and escaping.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from ...audit.report.pages import Table, table_from_resource
from ..views._result import ViewResult

__all__ = ["ROWS", "compact_table", "readable"]

#: rows each table shows
ROWS = 10
#: columns holding a user id, shown as the person's name
_PEOPLE = ("user_id", "sender_id", "starter_id", "source", "target")
#: columns left out of every table (ids a reader has no use for beside the names)
_DROP = ("stream_id", "first_message_id", "last_message_id", "message_id")


def _over_time(r: ViewResult) -> pd.DataFrame:
    df = r.frame
    wide = df.pivot_table(
        index="bucket_start", columns="split", values="messages", aggfunc="sum", observed=True
    )
    # a split with no message (bots left out) says nothing
    wide = wide.loc[:, wide.sum() > 0]
    if len(wide.columns) > 1:
        wide.columns = [f"{c} messages" for c in wide.columns]
        wide["total"] = wide.sum(axis=1)
    else:
        wide.columns = ["messages"]
    out = wide.reset_index().rename(columns={"bucket_start": "period starting"})
    return out.sort_values("period starting", ascending=False)


def _active(r: ViewResult) -> pd.DataFrame:
    df = r.frame.sort_values("date")
    last = df.groupby("label", sort=False, observed=True).tail(1)
    peak = df.groupby("label", sort=False, observed=True)["active_users"].max()
    out = last[["label", "window", "date", "active_users"]].rename(
        columns={
            "label": "measure",
            "window": "window (days)",
            "date": "on",
            "active_users": "active people",
        }
    )
    out["peak in the period"] = out["measure"].map(peak).astype("int64")
    return out


def _scorecard(r: ViewResult) -> pd.DataFrame:
    cols = [
        "channel",
        "messages",
        "change_pct",
        "posters",
        "subscribers",
        "participation_pct",
        "resolved_pct",
        "last_activity",
    ]
    return r.frame.sort_values("rank")[cols]


def _topics(r: ViewResult) -> pd.DataFrame:
    cols = [
        "channel",
        "topic",
        "messages",
        "participants",
        "started_at",
        "last_at",
        "hours_to_first_reply",
        "resolved",
    ]
    return r.frame.sort_values("messages", ascending=False)[cols]


def _participation(r: ViewResult) -> pd.DataFrame:
    return r.frame.sort_values("rank")[["name", "messages", "reactions_given", "share"]]


def _heatmap(r: ViewResult) -> pd.DataFrame:
    df = r.frame.sort_values("messages", ascending=False)[["weekday_name", "hour", "messages"]]
    df = df.assign(hour=[f"{int(h):02d}:00" for h in df["hour"]])
    return df.rename(columns={"weekday_name": "weekday"})


def _cohorts(r: ViewResult) -> pd.DataFrame:
    df = r.frame
    wide = df.pivot_table(index=["cohort", "cohort_size"], columns="offset", values="retention")
    keep = [c for c in wide.columns if 1 <= int(c) <= 3]
    wide = wide[keep] * 100
    wide.columns = [
        f"active after {int(c)} {'month' if int(c) == 1 else 'months'} (%)" for c in keep
    ]
    return (
        wide.reset_index()
        .rename(columns={"cohort_size": "newcomers"})
        .sort_values("cohort", ascending=False)
    )


def _reactions(r: ViewResult) -> pd.DataFrame:
    df = r.frame.sort_values("reactions", ascending=False)
    return df[["emoji_name", "reactions", "messages", "reactors"]].rename(
        columns={"emoji_name": "emoji"}
    )


def _clients(r: ViewResult) -> pd.DataFrame:
    return r.frame.sort_values("messages", ascending=False)[["label", "messages", "share"]].rename(
        columns={"label": "client"}
    )


def _pairs(r: ViewResult) -> pd.DataFrame:
    df = r.frame.sort_values("weight", ascending=False)
    return df[["source", "target", "weight"]].rename(columns={"weight": "replies"})


#: each view's picking: its main columns and top rows, from its result
PICKS: dict[str, Callable[[ViewResult], pd.DataFrame]] = {
    "messages_over_time": _over_time,
    "active_users": _active,
    "channel_scorecard": _scorecard,
    "topic_lifecycle": _topics,
    "participation_distribution": _participation,
    "activity_heatmap": _heatmap,
    "newcomer_cohorts": _cohorts,
    "reactions_and_engagement": _reactions,
    "client_and_dm_mix": _clients,
    "interaction_graph": _pairs,
}


def readable(df: pd.DataFrame, users: pd.DataFrame | None, rows: int = ROWS) -> pd.DataFrame:
    """The first ``rows`` rows of ``df`` for reading: user ids as names, ids dropped, fractions
    as percentages, numbers rounded, categories as text, times at midnight as dates.

    Args:
        df: a view's frame (or a picking of it).
        users: the users frame, for names (None: ids stay).
        rows: how many rows.

    Returns:
        a new frame with a plain 0..n index.
    """
    out = df.head(rows).reset_index(drop=True).copy()
    names: dict[int, str] = {}
    if users is not None and "full_name" in users.columns:
        names = {
            int(u): str(n)
            for u, n in zip(users["user_id"], users["full_name"], strict=True)
            if pd.notna(u) and pd.notna(n)
        }
    for col in list(out.columns):
        series = out[col]
        if col in _DROP:
            out = out.drop(columns=col)
            continue
        if col in _PEOPLE and names and pd.api.types.is_integer_dtype(series.dtype):
            out[col] = [names.get(int(v), f"user {int(v)}") if pd.notna(v) else "" for v in series]
            continue  # (pseudonyms, text already, are shown as they are)
        if isinstance(series.dtype, pd.CategoricalDtype) or str(series.dtype).startswith("string"):
            out[col] = series.astype(object).where(series.notna(), "").astype(str)
        elif pd.api.types.is_bool_dtype(series.dtype):
            out[col] = series.astype(object).where(series.notna(), None)
        elif pd.api.types.is_datetime64_any_dtype(series.dtype):
            out[col] = _times(series)
        elif pd.api.types.is_float_dtype(series.dtype):
            if col in ("share", "retention"):
                out = out.rename(columns={col: f"{col} (%)"})
                col = f"{col} (%)"
                series = series * 100
            out[col] = series.round(1)
    return out.rename(
        columns={c: c.replace("_pct", " (%)") for c in out.columns if isinstance(c, str)}
    )


def _times(series: pd.Series) -> pd.Series:
    """Times as one-line text: ``2026-11-28`` when every one is midnight, else
    ``2026-11-28 22:40 UTC``."""
    s = series.dt.tz_convert("UTC") if series.dt.tz is not None else series
    valid = s.dropna()
    midnight = bool(len(valid)) and bool(((valid - valid.dt.normalize()) == pd.Timedelta(0)).all())
    text: pd.Series = s.dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M UTC")
    shown: pd.Series = text.where(s.notna(), "")
    return shown


def compact_table(name: str, result: Any, users: pd.DataFrame | None) -> Table:
    """View ``name``'s table in the report: its picking (or its frame's first rows) made
    :func:`readable`, as an audit report :class:`Table`.

    Args:
        name: the view's name in the registry.
        result: the view's result.
        users: the users frame, for names.
    """
    pick = PICKS.get(name)
    try:
        df = pick(result) if pick is not None else result.frame
    except (KeyError, ValueError, TypeError, AttributeError):  # the view's frame has changed
        df = result.frame
    shown = readable(df, users)
    resource = json.loads(shown.to_json(orient="table", index=False, date_format="iso"))
    table: Table = table_from_resource(resource, "Nothing in this period.")
    if len(df) > len(shown):
        table.note = f"The first {len(shown)} of {len(df):,} rows."
    return table
