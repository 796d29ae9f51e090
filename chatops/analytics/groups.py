"""User groups as the views slice by them: members with their subgroups' members, once each.

An organization is structured in user groups, and groups in subgroups: ``@engineering`` has
``@backend`` and ``@frontend`` as subgroups, and a person in both is one engineer. The dataset's
``user_groups`` frame lists every member of every group, subgroups' members included, with
``direct`` telling who was added to the group itself; :func:`slice_frames` keeps what a group's
members did, and every view then reads the organization through that group::

    >>> eng = slice_frames(f, groups=["engineering"])
    >>> messages_over_time(eng.messages, users=eng.users, freq="W").plot()
    >>> participation_distribution(eng.messages, subscriptions=eng.subscriptions)
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence

import pandas as pd

from .dataset.records import AnalyticsFrames, user_groups_frame
from .schema import validate

__all__ = ["group_members", "slice_frames", "user_groups_frame"]


def group_members(user_groups: pd.DataFrame, groups: str | Sequence[str]) -> set[int]:
    """The user ids of the people in ``groups`` (subgroups' members included; a person in
    several of them is one id).

    Raises:
        ValueError: a group the frame does not have, with the closest name it has.
    """
    wanted = [groups] if isinstance(groups, str) else list(groups)
    if not wanted:
        raise ValueError("groups is empty: name at least one user group")
    g = validate(user_groups, "user_groups")
    known = set(g["name"].astype(str))
    for name in wanted:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"no user group named {name!r}{hint}")
    rows = g[g["name"].astype(str).isin(wanted)]
    return {int(u) for u in rows["user_id"].dropna()}


def _rows(frame: pd.DataFrame, column: str, keep: set[int]) -> pd.DataFrame:
    out = frame[frame[column].isin(list(keep)).fillna(False).astype(bool)].reset_index(drop=True)
    out.attrs.update(frame.attrs)
    return out


def _of(frame: pd.DataFrame | None, column: str, keep: set[int]) -> pd.DataFrame | None:
    return None if frame is None else _rows(frame, column, keep)


def slice_frames(frames: AnalyticsFrames, *, groups: str | Sequence[str]) -> AnalyticsFrames:
    """The frames as ``groups``' members made them: their messages (and the reactions, edits,
    recipients and topic links of those messages), their subscriptions; users, channels and
    user groups whole, so names and bots are still known. The coverage note says whose
    messages are kept.

    Args:
        frames: the organization's frames (``user_groups`` among them).
        groups: a user group's name, or several (a person in two of them counts once).

    Raises:
        ValueError: no ``user_groups`` frame, or a group it does not have.
    """
    if frames.user_groups is None:
        raise ValueError("slicing by group needs the user_groups frame (a synced dataset has it)")
    people = group_members(frames.user_groups, groups)
    messages = _rows(frames.messages, "sender_id", people)
    kept = {int(i) for i in messages["id"]}
    names = ", ".join(f"@{g}" for g in ([groups] if isinstance(groups, str) else groups))
    who = f"messages of the {len(people):,} members of {names} (subgroups included)"
    note = frames.messages.attrs.get("coverage")
    messages.attrs["coverage"] = f"{note}; {who}" if note else who
    sliced = dataclasses.replace(
        frames,
        messages=messages,
        subscriptions=_of(frames.subscriptions, "user_id", people),
        reactions=_rows(frames.reactions, "message_id", kept),
        edits=_rows(frames.edits, "message_id", kept),
        dm_recipients=_rows(frames.dm_recipients, "message_id", kept),
        topic_links=_of(frames.topic_links, "message_id", kept),
        # the topics frame counts everyone's messages: the views count the kept ones instead
        topics=None,
    )
    return sliced
