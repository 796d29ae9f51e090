"""Shared pieces of the views: times and periods, anonymization, messages kept, Gini."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta

import pandas as pd

from .pseudonyms import PseudonymKey
from .schema import RESOLVED_PREFIX, validate

TimeLike = datetime | pd.Timestamp | str

#: Bucket frequencies of the time-series views: hour, day, week (Monday to Sunday), month.
FREQS: dict[str, str] = {"h": "h", "D": "D", "W": "W-SUN", "M": "M"}
#: Columns holding user ids, replaced by keyed pseudonyms by ``anonymize``; columns holding
#: names, dropped by it.
USER_ID_COLUMNS = (
    "user_id",
    "sender_id",
    "starter_id",
    "reactor_id",
    "author_id",
    "source",
    "target",
)
NAME_COLUMNS = ("sender", "sender_email", "full_name", "name", "email", "author", "reactor")


def anonymize_frame(df: pd.DataFrame, key: PseudonymKey) -> pd.DataFrame:
    """Replace the user-id columns by keyed pseudonyms and drop the name columns of a frame.

    Args:
        df: a result frame.
        key: the pseudonym key (:func:`chatops.analytics.pseudonyms.load_key`).
    """
    out = df.drop(columns=[c for c in NAME_COLUMNS if c in df.columns])
    for col in USER_ID_COLUMNS:
        if col in out.columns:
            out[col] = pd.Series(
                [None if pd.isna(v) else key.pseudonym(int(v)) for v in out[col]],
                index=out.index,
                dtype="string",
            )
    return out


def utc(value: TimeLike) -> pd.Timestamp:
    """A timestamp in UTC (naive ones are read as UTC)."""
    ts = pd.Timestamp(value)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def check_freq(freq: str) -> str:
    """The pandas period code of a view frequency; ValueError naming an unknown one."""
    if freq not in FREQS:
        raise ValueError(f"unknown freq {freq!r}; choose one of {', '.join(FREQS)}")
    return FREQS[freq]


def check_tz(tz: str) -> str:
    """``tz`` if it names a time zone; ValueError otherwise."""
    try:
        pd.Timestamp(0, tz="UTC").tz_convert(tz)
    except Exception as exc:
        raise ValueError(f"unknown tz {tz!r}: {exc}") from exc
    return tz


def parse_period(
    period: str | timedelta | pd.Timedelta | None, name: str = "period"
) -> pd.Timedelta | None:
    """A positive duration (``"30D"``, ``timedelta(days=7)``) or None; ValueError otherwise."""
    if period is None:
        return None
    try:
        td = pd.Timedelta(period)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} {period!r} is not a duration such as '30D'") from exc
    if pd.isna(td) or td <= pd.Timedelta(0):
        raise ValueError(f"{name} must be a positive duration, got {period!r}")
    return td


def local_periods(ts: pd.Series, freq: str, tz: str) -> pd.Series:
    """The period (``freq``, in time zone ``tz``) of each UTC timestamp."""
    code = check_freq(freq)
    periods: pd.Series = ts.dt.tz_convert(tz).dt.tz_localize(None).dt.to_period(code)
    return periods


def period_bounds(periods: pd.PeriodIndex, tz: str) -> tuple[pd.DatetimeIndex, pd.DatetimeIndex]:
    """Start and end (exclusive) of each period as aware datetimes in ``tz``."""
    start = periods.start_time.tz_localize(tz, ambiguous="NaT", nonexistent="shift_forward")
    end = (periods + 1).start_time.tz_localize(tz, ambiguous="NaT", nonexistent="shift_forward")
    return pd.DatetimeIndex(start), pd.DatetimeIndex(end)


def strip_resolved(topic: str) -> str:
    """A topic's name without the resolved prefix."""
    return topic[len(RESOLVED_PREFIX) :] if topic.startswith(RESOLVED_PREFIX) else topic


def bot_ids(users: pd.DataFrame | None) -> set[int]:
    """Ids of the bots in a users frame (empty when None)."""
    if users is None:
        return set()
    u = validate(users, "users")
    return {int(x) for x in u.loc[u["is_bot"].fillna(False).astype(bool), "user_id"].dropna()}


def user_names(messages: pd.DataFrame, users: pd.DataFrame | None) -> dict[int, str]:
    """user id -> full name, from ``users`` when given, else the messages' sender names."""
    names: dict[int, str] = {}
    if "sender" in messages.columns:
        pairs = messages[["sender_id", "sender"]].dropna().drop_duplicates("sender_id", keep="last")
        names.update(
            {int(i): str(n) for i, n in zip(pairs["sender_id"], pairs["sender"], strict=True)}
        )
    if users is not None and "full_name" in users.columns:
        u = users[["user_id", "full_name"]].dropna()
        names.update({int(i): str(n) for i, n in zip(u["user_id"], u["full_name"], strict=True)})
    return names


def check_period_and_bots(
    users: pd.DataFrame | None, since: TimeLike | None, until: TimeLike | None, exclude_bots: bool
) -> None:
    """The checks of the messages kept (the users frame, the period, ``exclude_bots``)."""
    if users is not None:
        validate(users, "users")
    if exclude_bots and users is None:
        raise ValueError("exclude_bots=True needs the users frame (users=...)")
    if since is not None:
        utc(since)
    if until is not None:
        utc(until)
    if since is not None and until is not None and utc(since) >= utc(until):
        raise ValueError(f"since ({since}) must be before until ({until})")


def prepare_messages(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None,
    since: TimeLike | None,
    until: TimeLike | None,
    exclude_bots: bool,
    require: Iterable[str] = (),
) -> pd.DataFrame:
    """Validate ``messages``, keep ``[since, until)`` and drop bots' messages when asked."""
    df = validate(messages, "messages", require=require)
    check_period_and_bots(users, since, until, exclude_bots)
    mask = pd.Series(True, index=df.index)
    if since is not None:
        mask &= df["timestamp"] >= utc(since)
    if until is not None:
        mask &= df["timestamp"] < utc(until)
    if exclude_bots:
        bots = bot_ids(users)
        mask &= ~df["sender_id"].isin(list(bots)).fillna(False).astype(bool)
    out = df[mask].reset_index(drop=True)
    out.attrs.update(df.attrs)
    return out


def default_as_of(df: pd.DataFrame, until: TimeLike | None, as_of: TimeLike | None) -> pd.Timestamp:
    """The end of a period window: ``as_of``, else ``until``, else the last message's time."""
    if as_of is not None:
        return utc(as_of)
    if until is not None:
        return utc(until)
    if len(df) and df["timestamp"].notna().any():
        return pd.Timestamp(df["timestamp"].max())
    return pd.Timestamp.now(tz="UTC")


def coverage_of(coverage: str | None, messages: pd.DataFrame) -> str | None:
    """The coverage note: the argument, else the one the dataset put in ``messages.attrs``."""
    if coverage is not None:
        return coverage
    note = messages.attrs.get("coverage")
    return None if note is None else str(note)


def gini(values: Iterable[float]) -> float:
    """The Gini coefficient of non-negative values (0 equal, towards 1 concentrated; NaN if none)."""
    xs = sorted(float(v) for v in values)
    n = len(xs)
    total = sum(xs)
    if n == 0 or total == 0:
        return math.nan
    weighted = sum((i + 1) * x for i, x in enumerate(xs))
    return 2.0 * weighted / (n * total) - (n + 1.0) / n
