"""V2: :func:`active_users` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
    check_tz,
    coverage_of,
    prepare_messages,
)
from .._duck import MessagesSource, messages_only, run_engine
from .._duck_sql import Kept
from ..schema import validate
from ._shared import _finish


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
    messages: MessagesSource,
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
    engine: str = "pandas",
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
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(active_users, locals(), _sql)
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
    return _result(
        day, events["user_id"], wins, definition, tz, coverage_of(coverage, df), anonymize, salt
    )


def _result(
    day: pd.Series,
    user_id: pd.Series,
    wins: tuple[int, ...],
    definition: str,
    tz: str,
    coverage: str | None,
    anonymize: bool,
    salt: str,
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
        _finish(frame, anonymize, salt),
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
        p["salt"],
    )
