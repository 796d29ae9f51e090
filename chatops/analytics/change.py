"""Change over time: each time-series view against its previous period, and the biggest movers.

Community platforms lead with the change ("down 18% on last week"); so does every time-series
view's result here::

    >>> r = messages_over_time(f.messages, users=f.users, freq="W")
    >>> print(r.change().sentence())
    2,120 messages in the week of 2026-11-16, down 18% on the week before (2,585).
    >>> m = movers(f.messages, users=f.users, user_groups=f.user_groups, period="7D")
    >>> print(m.sentence())
    Fell the most: #design (-120, -45%), @support (-95, -30%), Ana Lopez (-60, -75%). Rose the
    most: #engineering (+60, +20%), ...

A period that is not over at the end of the data (a partial week) is never compared: the change
is the last complete period against the one before it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ._common import TimeLike, bot_ids, parse_period, user_names, utc
from ._percent import percent
from .schema import validate

__all__ = [
    "BY",
    "Change",
    "Movers",
    "change_of",
    "change_of_buckets",
    "describe_change",
    "movers",
]

#: what movers are counted by
BY = ("channel", "group", "person")


def _one(measure: str) -> str:
    """A measure's words for a count of one: ``direct message``, ``person active in 7 days``."""
    words = measure.split(" ")
    for i, word in enumerate(words):
        if word == "people":
            words[i] = "person"
            break
        if word.endswith("s"):
            words[i] = word[:-1]
            break
    return " ".join(words)


def _pct(p: float) -> str:
    """A change's size as a percentage: ``18%``, ``<1%``, ``200%``."""
    return f"{p * 100:,.0f}%" if p >= 1 else percent(p, digits=0)


def _signed(n: float) -> str:
    return f"+{n:,.0f}" if n > 0 else f"{n:,.0f}".replace("-", "\u2212")


@dataclasses.dataclass(frozen=True)
class Change:
    """A measure in the last complete period against the period before it."""

    #: what is counted, as a sentence names it (``messages``, ``people active in 7 days``)
    measure: str
    #: the period as a sentence names it (``week``, ``day``, ``7 days``)
    period: str
    start: pd.Timestamp
    end: pd.Timestamp
    current: float
    previous: float

    @property
    def delta(self) -> float:
        """``current - previous``."""
        return self.current - self.previous

    @property
    def pct(self) -> float:
        """The change as a share of the previous period (NaN when it had none)."""
        return self.delta / self.previous if self.previous else math.nan

    def sentence(self) -> str:
        """``"2,120 messages in the week of 2026-11-16, down 18% on the week before (2,585)."``"""
        what = _one(self.measure) if self.current == 1 else self.measure
        now = f"{self.current:,.0f} {what} in the {self.period} of {self.start:%Y-%m-%d}"
        if self.previous == 0:
            return f"{now}; none in the {self.period} before."
        before = f"the {self.period} before ({self.previous:,.0f})"
        if self.delta == 0:
            return f"{now}, the same as {before}."
        way = "up" if self.delta > 0 else "down"
        return f"{now}, {way} {_pct(abs(self.pct))} on {before}."


def change_of(
    values: pd.Series, partial: pd.Series | None, measure: str, period: str
) -> Change | None:
    """The last complete period of ``values`` (indexed by period start, in order) against the
    one before it; None when there are not two complete periods.

    Args:
        values: the measure per period.
        partial: True for a period not over at the end of the data (left out).
        measure: what is counted, in words.
        period: the period, in words.
    """
    v = values.sort_index()
    if partial is not None:
        v = v[~partial.reindex(v.index).fillna(False).astype(bool)]
    if len(v) < 2:
        return None
    starts = list(v.index)
    step = starts[-1] - starts[-2]
    return Change(
        measure,
        period,
        pd.Timestamp(starts[-1]),
        pd.Timestamp(starts[-1] + step),
        float(v.iloc[-1]),
        float(v.iloc[-2]),
    )


def change_of_buckets(frame: pd.DataFrame, column: str, measure: str) -> Change | None:
    """:func:`change_of` over a view's ``over_time`` frame (``bucket_start`` and ``column``):
    the period named from the buckets' spacing, the newest bucket taken as not over."""
    if len(frame) < 3:
        return None
    starts = pd.DatetimeIndex(frame["bucket_start"])
    days = float(pd.Series(starts[1:] - starts[:-1]).median() / pd.Timedelta(days=1))
    word = "day" if days <= 1 else "week" if days <= 7 else "month" if days <= 31 else "period"
    values = pd.Series(frame[column].to_numpy(), index=starts)
    partial = pd.Series(starts == starts.max(), index=starts)
    return change_of(values, partial, measure, word)


@dataclasses.dataclass
class Movers:
    """The channels, groups and people whose messages rose or fell the most.

    ``frame`` columns: ``kind`` (``channel``, ``group``, ``person``), ``name``, ``previous``,
    ``current``, ``change``, ``change_pct`` (NaN when the period before had none), ``direction``
    (``fell`` or ``rose``); the ``top`` fallers then risers of each kind.
    """

    frame: pd.DataFrame
    start: pd.Timestamp
    end: pd.Timestamp
    period: pd.Timedelta

    def sentence(self) -> str:
        """``"Fell the most: #design (−120, −45%), ... Rose the most: ..."`` or that nothing moved."""
        parts = []
        for direction, words in (("fell", "Fell the most"), ("rose", "Rose the most")):
            rows = self.frame[self.frame["direction"] == direction]
            if rows.empty:
                continue
            named = [
                f"{_label(str(kind), str(name))} ({_signed(float(n))}"
                + ("" if math.isnan(float(pct)) else f", {_signed_pct(float(pct))}")
                + ")"
                for kind, name, n, pct in zip(
                    rows["kind"], rows["name"], rows["change"], rows["change_pct"], strict=True
                )
            ]
            parts.append(f"{words}: {', '.join(named)}.")
        if not parts:
            return "No channel, group or person changed between the two periods."
        return " ".join(parts)


def _signed_pct(p: float) -> str:
    text = _pct(abs(p))
    return f"+{text}" if p > 0 else f"\u2212{text}"


def _label(kind: str, name: str) -> str:
    return {"channel": f"#{name}", "group": f"@{name}"}.get(kind, name)


def movers(
    messages: pd.DataFrame,
    *,
    users: pd.DataFrame | None = None,
    user_groups: pd.DataFrame | None = None,
    period: str | pd.Timedelta = "7D",
    end: TimeLike | None = None,
    by: Sequence[str] | None = None,
    top: int = 3,
    exclude_bots: bool = True,
) -> Movers:
    """Who and what moved the most: messages in the ``period`` ending at ``end`` against the
    ``period`` before, by channel, by user group (subgroups' members included, each person once
    per group) and by person.

    Args:
        messages: the messages frame.
        users: the users frame (names; bots left out with ``exclude_bots``).
        user_groups: the user_groups frame (for ``by`` holding ``group``; role groups left out).
        period: the length of each of the two periods (``"7D"``, ``"30D"``).
        end: the end of the later period; default the newest message's time.
        by: any of :data:`BY`; default channels and people, and groups when ``user_groups``
            is given.
        top: how many fallers and how many risers of each kind.
        exclude_bots: leave bots' messages out (needs ``users``).
    """
    length = parse_period(period)
    assert length is not None
    if by is None:
        by = BY if user_groups is not None else ("channel", "person")
    unknown = [b for b in by if b not in BY]
    if unknown:
        raise ValueError(f"unknown by {unknown!r}; choose from {', '.join(BY)}")
    if not isinstance(top, int) or top <= 0:
        raise ValueError(f"top must be a positive number, got {top!r}")
    if "group" in by and user_groups is None:
        raise ValueError("movers by group need the user_groups frame (user_groups=...)")
    df = validate(messages, "messages")
    if exclude_bots and users is not None:
        df = df[~df["sender_id"].isin(list(bot_ids(users))).fillna(False).astype(bool)]
    stop = utc(end) if end is not None else pd.Timestamp(df["timestamp"].max())
    start = stop - length
    now = df[(df["timestamp"] > start) & (df["timestamp"] <= stop)]
    before = df[(df["timestamp"] > start - length) & (df["timestamp"] <= start)]
    names = user_names(df, users)
    rows: list[pd.DataFrame] = []
    for kind in by:
        if kind == "channel":
            a = now["channel"].dropna().astype(str).value_counts()
            b = before["channel"].dropna().astype(str).value_counts()
        elif kind == "person":
            a = now["sender_id"].dropna().astype("int64").map(names).value_counts()
            b = before["sender_id"].dropna().astype("int64").map(names).value_counts()
        else:
            assert user_groups is not None
            g = validate(user_groups, "user_groups")
            g = g[~g["name"].astype(str).str.startswith("role:")]
            a, b = _by_group(now, g), _by_group(before, g)
        rows.append(_top(kind, a, b, top))
    frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    return Movers(frame, start, stop, length)


def _by_group(df: pd.DataFrame, groups: pd.DataFrame) -> pd.Series:
    pairs = groups[["name", "user_id"]].drop_duplicates()
    joined = df[["sender_id"]].merge(
        pairs.astype({"name": str}), left_on="sender_id", right_on="user_id"
    )
    counts: pd.Series = joined["name"].value_counts()
    return counts


def _top(kind: str, now: pd.Series, before: pd.Series, top: int) -> pd.DataFrame:
    both = pd.DataFrame({"previous": before, "current": now}).fillna(0).astype("int64")
    both["change"] = both["current"] - both["previous"]
    both["change_pct"] = [
        (c / p) if p else math.nan for c, p in zip(both["change"], both["previous"], strict=True)
    ]
    both = both.rename_axis("name").reset_index()
    both["kind"] = kind
    fell = both[both["change"] < 0].sort_values(["change", "name"], kind="stable").head(top)
    rose = both[both["change"] > 0].sort_values(["change", "name"], ascending=[False, True])
    rose = rose.head(top)
    out = pd.concat([fell.assign(direction="fell"), rose.assign(direction="rose")])
    cols = ["kind", "name", "previous", "current", "change", "change_pct", "direction"]
    return out[cols].reset_index(drop=True)


def describe_change(result: Any, movers_of: Movers | None = None) -> str:
    """What changed, in words: the view's change against its previous period (a time-series
    view), then who moved the most (``movers_of``, a :class:`Movers`); empty when neither.

    Args:
        result: a view's result (a view that is not a time series has no change).
        movers_of: :func:`movers` of the same messages, or None.
    """
    parts: list[str] = []
    try:
        change = result.change()
    except TypeError:  # not a time series
        change = None
    if change is not None:
        parts.append(change.sentence())
    if movers_of is not None:
        span = movers_of.period.days
        parts.append(f"Against the {span} days before the last {span}: {movers_of.sentence()}")
    return " ".join(parts)
