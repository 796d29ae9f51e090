"""V7: :func:`newcomer_cohorts` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from .._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
    check_freq,
    check_tz,
    coverage_of,
    local_periods,
    prepare_messages,
)
from .._duck import MessagesSource, messages_only, run_engine
from .._duck_sql import Kept
from ..schema import validate
from ._shared import _finish


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
    messages: MessagesSource,
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
    engine: str = "pandas",
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
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(newcomer_cohorts, locals(), _sql)
    messages = messages_only(messages)
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
    firsts = df.drop_duplicates("sender_id", keep="first")
    fc = firsts["channel"].astype("string").fillna("(direct message)").value_counts()
    weight = pd.Series(1, index=df.index, dtype="int64")
    return _result(
        sender,
        ordinal,
        weight,
        fc,
        users,
        cohort,
        horizon,
        cohort_by,
        tz,
        coverage_of(coverage, df),
        anonymize,
        salt,
    )


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
    salt: str,
) -> NewcomerCohorts:
    """The view from the sender, period ordinal and message count of each message (or of
    each sender and day), and the count of newcomers per first channel."""
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
    labels = pd.Series(pd.NA, index=ordinal.index, dtype="string")
    for lo, hi, name in _TENURE:
        labels[(offset >= lo) & (offset <= hi)] = name
    tenure = (
        pd.DataFrame({"ordinal": ordinal, "tenure": labels, "n": weight})
        .groupby(["ordinal", "tenure"])["n"]
        .sum()
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
    first_channels = pd.DataFrame({"channel": fc.index.astype(str), "newcomers": fc.to_numpy()})
    first_channels = first_channels.sort_values(
        ["newcomers", "channel"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)
    return NewcomerCohorts(
        _finish(frame, anonymize, salt),
        coverage,
        tenure,
        first_channels,
        cohort,
        horizon,
        int(len(first)),
    )


def _sql(k: Kept, p: dict[str, Any]) -> NewcomerCohorts | None:
    """The duckdb engine's counts: one row per sender and local day, one per sender's start."""
    cohort, horizon, cohort_by, users = p["cohort"], p["horizon"], p["cohort_by"], p["users"]
    if cohort not in ("W", "M") or cohort_by not in ("first_post", "date_joined"):
        return None
    if not isinstance(horizon, int) or horizon <= 0:
        return None
    if cohort_by == "date_joined" and users is None:
        return None
    tz = check_tz(p["tz"])
    days = k.frame(
        f"SELECT sender_id, date_trunc('day', {k.local(tz)}) AS day, count(*) AS n FROM k "
        "WHERE sender_id IS NOT NULL AND timestamp IS NOT NULL GROUP BY ALL"
    )
    if days.empty:
        return None
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
        p["salt"],
    )
