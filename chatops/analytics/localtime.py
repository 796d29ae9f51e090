"""Each sender's own clock: the local time of a message in its sender's time zone.

``tz="sender"`` in :func:`~chatops.analytics.activity_heatmap` and
:func:`~chatops.analytics.messages_over_time` buckets every message by the wall clock of the
person who sent it (the ``timezone`` of the users table); people without one are counted in
``default_tz`` (the organization's zone), and the result's note says how many.
"""

from __future__ import annotations

import pandas as pd

from ._common import check_tz
from .schema import validate

__all__ = ["SENDER", "sender_zone_note", "sender_zones", "with_note"]

#: The ``tz`` value that asks for each sender's own time zone.
SENDER = "sender"


def sender_zones(users: pd.DataFrame | None) -> dict[int, str]:
    """Each user's time zone, for those with one this machine knows."""
    if users is None:
        return {}
    u = validate(users, "users")
    out: dict[int, str] = {}
    for uid, tz in zip(u["user_id"], u["timezone"], strict=True):
        if pd.isna(uid) or pd.isna(tz) or not str(tz).strip():
            continue
        try:
            out[int(uid)] = check_tz(str(tz))
        except ValueError:
            continue  # a zone this machine does not know: counted in the default
    return out


def sender_zone_note(missing: int, senders: int, default_tz: str) -> str:
    """What the figure says about the senders' clocks."""
    return (
        f"local time: each sender's own time zone; {missing} of {senders} senders have none "
        f"and are counted in {default_tz}"
    )


def with_note(coverage: str | None, note: str) -> str:
    """The coverage note with ``note`` after it."""
    return note if not coverage else f"{coverage}; {note}"
