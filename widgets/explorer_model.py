"""What the explorer computes apart from its widgets: the frames each view gets under the
filters, the tables as a person reads them, and the people the search box leaves in the list.

    >>> display_frame(result.frame, names={2: "Olivia Owner"})  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ..analytics.groups import group_members

__all__ = [
    "PERIODS",
    "chosen_user_ids",
    "display_frame",
    "group_options",
    "matching_people",
    "narrowed_frames",
    "period_window",
]

#: the period filter's choices: how many days back from the last message (None: all of it)
PERIODS: dict[str, int | None] = {
    "all": None,
    "last 7 days": 7,
    "last 30 days": 30,
    "last 90 days": 90,
    "last year": 365,
}

#: columns holding a person's id, and the column of names a table shows in their place
_PEOPLE_COLUMNS = {
    "user_id": "person",
    "sender_id": "sender",
    "starter_id": "starter",
    "creator_id": "creator",
    "source": "source",
    "target": "target",
}
#: columns holding a share from 0 to 1, shown as a percentage
_FRACTIONS = ("share", "retention", "stickiness")
#: a no-break space between a date and its time
_NBSP = "\u00a0"


def period_window(period: str, last: pd.Timestamp | None) -> tuple[pd.Timestamp | None, int | None]:
    """The first moment the period filter keeps and its length in days.

    Args:
        period: one of :data:`PERIODS`.
        last: the time of the dataset's last message (None: no message).

    Returns ``(None, None)`` for ``all`` (or with no message).

    Raises:
        ValueError: ``period`` is not one of :data:`PERIODS`.
    """
    if period not in PERIODS:
        raise ValueError(f"unknown period {period!r}; choose one of {', '.join(PERIODS)}")
    days = PERIODS[period]
    if days is None or last is None:
        return None, None
    return pd.Timestamp(last) - pd.Timedelta(days=days), days


def chosen_user_ids(
    users: pd.DataFrame | None,
    people: Sequence[str],
    roles: Sequence[str],
    groups: Sequence[str] = (),
    user_groups: pd.DataFrame | None = None,
) -> set[int] | None:
    """The user ids the people, role and group filters keep (each set filter narrows: people
    chosen who have a role chosen and are in a group chosen, subgroups' members included);
    None when none is set."""
    if users is None or not (people or roles or groups):
        return None
    u = users
    if people:
        u = u[u["full_name"].astype("string").isin(list(people)).fillna(False)]
    if roles:
        u = u[u["role_name"].astype("string").isin(list(roles)).fillna(False)]
    ids = {int(x) for x in u["user_id"].dropna()}
    if groups and user_groups is not None:
        ids &= group_members(user_groups, list(groups))
    return ids


def group_options(user_groups: pd.DataFrame | None) -> list[str]:
    """The groups a group filter offers: the organization's own, then the role groups."""
    if user_groups is None or user_groups.empty:
        return []
    names = sorted({str(n) for n in user_groups["name"].dropna()})
    return [n for n in names if not n.startswith("role:")] + [
        n for n in names if n.startswith("role:")
    ]


def narrowed_frames(
    frames: Mapping[str, pd.DataFrame | None],
    *,
    channels: Sequence[str] = (),
    user_ids: Iterable[int] | None = None,
) -> dict[str, pd.DataFrame | None]:
    """The frames besides the messages as the channel and people filters narrow them.

    The channels frame keeps the channels chosen; subscriptions those of the channels and
    people chosen (so lurkers, subscribers and participation are counted among them, not the
    whole organization); reactions those the people chosen gave. The others are as given.

    Args:
        frames: ``channels``, ``subscriptions``, ``reactions`` (and any other) by name.
        channels: the channel names chosen (none: every channel).
        user_ids: the people chosen (None: everyone).
    """
    out = dict(frames)
    ch = frames.get("channels")
    ids: set[int] | None = None
    if channels and ch is not None:
        keep = ch["name"].astype("string").isin(list(channels)).fillna(False)
        out["channels"] = ch[keep.to_numpy(dtype=bool)]
        ids = {int(s) for s in out["channels"]["stream_id"].dropna()}  # type: ignore[index]
    people = None if user_ids is None else {int(u) for u in user_ids}
    subs = frames.get("subscriptions")
    if subs is not None and (ids is not None or people is not None):
        keep = pd.Series(True, index=subs.index)
        if ids is not None:
            keep &= subs["stream_id"].isin(list(ids)).fillna(False)
        if people is not None:
            keep &= subs["user_id"].isin(list(people)).fillna(False)
        out["subscriptions"] = subs[keep.to_numpy(dtype=bool)]
    reactions = frames.get("reactions")
    if reactions is not None and people is not None:
        keep = reactions["user_id"].isin(list(people)).fillna(False)
        out["reactions"] = reactions[keep.to_numpy(dtype=bool)]
    return out


def _number(value: Any, digits: int, suffix: str = "") -> str:
    if value is None or value is pd.NA or pd.isna(value):
        return ""
    return f"{float(value):,.{digits}f}{suffix}"


def _stamp(value: Any) -> str:
    if value is None or value is pd.NA or pd.isna(value):
        return ""
    return f"{pd.Timestamp(value):%Y-%m-%d}{_NBSP}{pd.Timestamp(value):%H:%M}"


def display_frame(frame: pd.DataFrame, names: Mapping[int, str]) -> pd.DataFrame:
    """A view's table as a person reads it: names for ids, rounded numbers, short times.

    People's ids become their names (``starter_id`` -> ``starter``; ``user_id`` is left out
    when the table has a ``name``), ``stream_id`` is left out beside ``channel`` and a message
    ``id`` beside its ``link``; percentages (``*_pct``, and shares from 0 to 1 such as
    ``share``) get one decimal and a ``%``, other decimals two; times read
    ``YYYY-MM-DD HH:MM`` on one line (``attrs["nobreak"]`` names their columns, a no-break
    space between date and time). The frame itself is left as it is (Export CSV writes it).

    Args:
        frame: a view's frame.
        names: user id -> full name.

    Example::

        >>> display_frame(pd.DataFrame({"starter_id": [2], "share": [0.1234]}), {2: "Olivia"})
          starter  share
        0  Olivia  12.3%
    """
    cols = {str(c) for c in frame.columns}
    out: dict[str, pd.Series] = {}
    times: list[str] = []
    for col in frame.columns:
        name = str(col)
        s = frame[col]
        if name == "stream_id" and "channel" in cols or name == "id" and "link" in cols:
            continue
        if name == "user_id" and "name" in cols:
            continue
        if name in _PEOPLE_COLUMNS and pd.api.types.is_integer_dtype(s.dtype):
            label = _PEOPLE_COLUMNS[name]
            out[label if label not in cols or label == name else name] = pd.Series(
                ["" if pd.isna(v) else names.get(int(v), f"user {int(v)}") for v in s.tolist()],
                index=frame.index,
                dtype="object",
            )
        elif pd.api.types.is_datetime64_any_dtype(s.dtype):
            out[name] = s.map(_stamp).astype("object")
            times.append(name)
        elif pd.api.types.is_float_dtype(s.dtype):
            if name.endswith("_pct"):
                out[name] = s.map(lambda v: _number(v, 1, "%")).astype("object")
            elif name in _FRACTIONS or name.endswith("_share"):
                out[name] = s.map(lambda v: _number(100 * v, 1, "%")).astype("object")
            else:
                out[name] = s.map(lambda v: _number(v, 2)).astype("object")
        else:
            out[name] = s
    shown = pd.DataFrame(out, index=frame.index)
    shown.attrs["nobreak"] = times  # a grid writes these cells on one line
    return shown


def matching_people(people: Sequence[str], query: str, chosen: Sequence[str] = ()) -> list[str]:
    """The people the search box leaves in the list: the chosen ones first (they stay
    chosen), then every other whose name holds each word of ``query`` (any case, any order).

    Example::

        >>> matching_people(["Ada Lovelace", "Alan Turing", "Grace Hopper"], "al", ["Grace Hopper"])
        ['Grace Hopper', 'Alan Turing']
    """
    words = query.casefold().split()
    kept = [p for p in chosen if p in set(people)]
    seen = set(kept)
    return kept + [p for p in people if p not in seen and all(w in p.casefold() for w in words)]
