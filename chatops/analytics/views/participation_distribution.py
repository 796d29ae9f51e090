"""V5: :func:`participation_distribution`: its result, its SQL (its one computation), its plot and its sentence.

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Unpack

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._common import (
    TimeLike,
    bot_ids,
    gini,
    parse_period,
    user_names,
)
from .._figure import axes as _axes
from .._figure import counts, finish, tidy
from .._percent import percent
from ..engines import MessagesSource
from ..engines._sql import Kept, in_list
from ..pseudonyms import PseudonymKey
from ..schema import validate
from ._draw import PALETTE
from ._options import ViewOptions
from ._registry import register
from ._result import ViewResult
from ._shared import _finish, humans, seen_by, whose_messages


@dataclasses.dataclass
class ParticipationDistribution(ViewResult):
    """V5: messages and reactions per user, Lorenz curve and Gini.

    ``frame`` columns: ``user_id``, ``name``, ``messages``, ``reactions_given``, ``share`` (of
    all messages), ``rank`` (by messages), one row per poster, plus subscribed humans who never
    posted (``messages`` 0) when ``include_lurkers``. ``lorenz``: ``population_share``,
    ``message_share`` from (0, 0) to (1, 1). ``gini``: over ``frame.messages`` (0 = everyone
    posts the same, towards 1 = one person posts everything; NaN for fewer than two people).
    ``lurker_share``: subscribed humans who never posted / subscribed humans.

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
    key: PseudonymKey | str | None,
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
        _finish(frame, anonymize, key),
        coverage,
        lorenz,
        gini(frame["messages"]) if len(frame) > 1 else math.nan,
        lurker_share,
        int((frame["messages"] > 0).sum()),
        top_n,
    )


def _sql(k: Kept, p: dict[str, Any]) -> ParticipationDistribution:
    """The view's counts: one row per sender, one per person who reacted."""
    k.window(parse_period(p["period"]), p["as_of"], p["until"])
    sent = k.frame(
        "SELECT sender_id, count(*) AS n, arg_max(sender, id) FILTER (sender IS NOT NULL) AS name "
        "FROM k WHERE sender_id IS NOT NULL GROUP BY sender_id"
    )
    bots = bot_ids(p["users"])
    drop = f"AND NOT {in_list('user_id', bots)}" if p["exclude_bots"] else ""
    given = k.frame(
        "SELECT user_id, count(*) AS n FROM (SELECT unnest(reactions, recursive := true) FROM k "
        f"WHERE array_length(reactions) > 0) WHERE user_id IS NOT NULL {drop} GROUP BY user_id"
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
        p["key"],
    )


# -- the plot -----------------------------------------------------------------------------------


def plot_participation_distribution(
    result: ParticipationDistribution, ax: Axes | None = None
) -> Figure:
    """V5: Lorenz curve with the line of equality; beside it, the top senders.

    Args:
        result: a :func:`~chatops.analytics.views.participation_distribution` result.
        ax: axes for the Lorenz curve alone; default a new figure with both panels.
    """
    fig, axes = _axes(ax, 2 if ax is None else 1, size=(10.0, 4.2))
    lor = axes[0]
    g = "n/a" if np.isnan(result.gini) else f"{result.gini:.2f}"
    if len(result.frame) == 1:
        g = "n/a: one person"
    lor.set_title(f"Participation: Lorenz curve (Gini {g})")
    lor.set_xlabel("share of people, fewest messages first (%)")
    lor.set_ylabel("share of messages (%)")
    tidy(lor)
    lz = result.lorenz
    lor.plot([0, 100], [0, 100], color="#999999", linestyle=":", label="everyone equal")
    lor.plot(
        lz["population_share"] * 100,
        lz["message_share"] * 100,
        color=PALETTE[0],
        linewidth=1.8,
        label="observed",
    )
    lor.fill_between(
        lz["population_share"] * 100,
        lz["message_share"] * 100,
        lz["population_share"] * 100,
        color=PALETTE[0],
        alpha=0.12,
    )
    lor.set_xlim(0, 100)
    lor.set_ylim(0, 100)
    note = "" if np.isnan(result.lurker_share) else f"; lurkers {percent(result.lurker_share)}"
    lor.legend(
        loc="upper left",
        fontsize=8,
        frameon=False,
        title=f"{result.posters:,} posters{note}",
        title_fontsize=8,
    )
    if len(axes) > 1:
        top = axes[1]
        data = result.frame[result.frame["messages"] > 0].head(result.top_n).iloc[::-1]
        top.set_title(f"Top {len(data)} senders")
        top.set_xlabel("messages")
        tidy(top)
        counts(top.xaxis)
        if "name" in data.columns:
            who = [
                str(n) if not pd.isna(n) else str(u)
                for n, u in zip(data["name"], data["user_id"], strict=True)
            ]
        else:
            who = [str(u) for u in data["user_id"]]
        bars = top.barh(who, data["messages"].to_numpy(dtype=float), color=PALETTE[0])
        top.bar_label(bars, labels=[percent(s) for s in data["share"]], padding=3, fontsize=8)
        top.margins(x=0.15)
    return finish(fig, result.coverage)


# -- the sentence -------------------------------------------------------------------------------


def participation(messages: pd.DataFrame, *, users: pd.DataFrame | None = None) -> str:
    """The most active tenth of posters' share of messages, and the Gini coefficient."""
    counts = humans(messages, users)["sender_id"].value_counts()
    if counts.empty:
        return "No posters."
    top = counts.iloc[: max(1, len(counts) // 10)].sum() / counts.sum()
    return (
        f"The most active tenth of posters wrote {percent(float(top))} of messages "
        f"(Gini {gini(counts.to_numpy()):.2f}){seen_by(whose_messages(messages))}."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=5,
    title="Participation",
    result=ParticipationDistribution,
    plot=plot_participation_distribution,
    sentence=participation,
    sql=_sql,
)
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
    **options: Unpack[ViewOptions],
) -> None:
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
    """
    parse_period(period)
    if top_n <= 0:
        raise ValueError(f"top_n must be positive, got {top_n}")
