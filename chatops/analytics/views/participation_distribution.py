"""V5: :func:`participation_distribution` (see :mod:`chatops.analytics.views` for the options every view shares)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from .._common import (
    DEFAULT_SALT,
    TimeLike,
    ViewResult,
    bot_ids,
    coverage_of,
    default_as_of,
    gini,
    parse_period,
    prepare_messages,
    user_names,
)
from .._duck import MessagesSource, messages_only, run_engine
from .._duck_sql import Kept, in_list
from ..schema import validate
from ._shared import _finish, _window_mask


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
    messages: MessagesSource,
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
    engine: str = "pandas",
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
        engine: ``pandas`` (frames) or ``duckdb`` (``messages`` is a ``Dataset`` or its
            folder, read by DuckDB; :mod:`chatops.analytics._duck`).
    """
    if engine != "pandas":
        return run_engine(participation_distribution, locals(), _sql)
    messages = messages_only(messages)
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
    return _result(
        counts,
        given,
        user_names(df, users),
        subscriptions,
        include_lurkers,
        bots,
        coverage_of(coverage, df),
        top_n,
        anonymize,
        salt,
    )


def _result(
    counts: pd.Series,
    given: pd.Series,
    names: dict[int, str],
    subscriptions: pd.DataFrame | None,
    include_lurkers: bool,
    bots: set[int],
    coverage: str | None,
    top_n: int,
    anonymize: bool,
    salt: str,
) -> ParticipationDistribution:
    """The view from the messages and reactions given per user id."""
    lurker_share = math.nan
    people = set(counts.index) | set(given.index)
    if subscriptions is not None:
        s = validate(subscriptions, "subscriptions")
        subscribed = {int(u) for u in s["user_id"].dropna()} - bots
        lurkers = subscribed - set(counts.index)
        lurker_share = len(lurkers) / len(subscribed) if subscribed else math.nan
        if include_lurkers:
            people |= lurkers
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
        coverage,
        lorenz,
        gini(frame["messages"]),
        lurker_share,
        int((frame["messages"] > 0).sum()),
        top_n,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ParticipationDistribution | None:
    """The duckdb engine's counts: one row per sender, one per person who reacted."""
    if p["reactions"] is not None:
        return None
    if p["top_n"] <= 0:
        raise ValueError(f"top_n must be positive, got {p['top_n']}")
    k.window(parse_period(p["period"]), p["as_of"], p["until"])
    sent = k.frame(
        "SELECT sender_id, count(*) AS n, arg_max(sender, id) FILTER (sender IS NOT NULL) AS name "
        "FROM k WHERE sender_id IS NOT NULL GROUP BY sender_id"
    )
    bots = bot_ids(p["users"])
    drop = f"AND NOT {in_list('user_id', bots)}" if p["exclude_bots"] else ""
    given = k.frame(
        "SELECT user_id, count(*) AS n FROM (SELECT unnest(reactions, recursive := true) FROM k "
        f"WHERE len(reactions) > 0) WHERE user_id IS NOT NULL {drop} GROUP BY user_id"
    )
    named = sent[sent["name"].notna()]
    return _result(
        pd.Series(sent["n"].to_numpy(), index=sent["sender_id"].to_numpy(dtype="int64")),
        pd.Series(given["n"].to_numpy(), index=given["user_id"].to_numpy(dtype="int64")),
        user_names(
            pd.DataFrame({"sender_id": named["sender_id"], "sender": named["name"]}), p["users"]
        ),
        p["subscriptions"],
        p["include_lurkers"],
        bots,
        k.coverage(p["coverage"]),
        p["top_n"],
        p["anonymize"],
        p["salt"],
    )
