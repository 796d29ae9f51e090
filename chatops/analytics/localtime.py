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

__all__ = ["SENDER", "sender_local_times", "sender_zone_note", "with_note"]

#: The ``tz`` value that asks for each sender's own time zone.
SENDER = "sender"


def _zones(users: pd.DataFrame | None) -> dict[int, str]:
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


def sender_local_times(
    timestamps: pd.Series, sender_ids: pd.Series, users: pd.DataFrame | None, default_tz: str
) -> tuple[pd.Series, int, int]:
    """The naive local time of each message on its sender's clock.

    Returns the local times (same index), the number of distinct senders without a known
    time zone (counted in ``default_tz``) and the number of distinct senders.
    """
    check_tz(default_tz)
    zones = _zones(users)
    ids = sender_ids.astype("Int64")
    zone = ids.map(zones).astype("object").where(ids.map(zones).notna(), default_tz)
    out = pd.Series(pd.NaT, index=timestamps.index, dtype="datetime64[ns]")
    for name, idx in zone.groupby(zone, sort=True).groups.items():
        local = timestamps.loc[idx].dt.tz_convert(str(name)).dt.tz_localize(None)
        out.loc[idx] = local.astype("datetime64[ns]")
    senders = {int(s) for s in ids.dropna()}
    missing = len(senders - set(zones))
    return out, missing, len(senders)


def sender_zone_note(missing: int, senders: int, default_tz: str) -> str:
    """What the figure says about the senders' clocks."""
    return (
        f"local time: each sender's own time zone; {missing} of {senders} senders have none "
        f"and are counted in {default_tz}"
    )


def with_note(coverage: str | None, note: str) -> str:
    """The coverage note with ``note`` after it."""
    return note if not coverage else f"{coverage}; {note}"
