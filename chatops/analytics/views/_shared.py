"""Helpers the view modules share: of their computations, and of their sentences."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._common import TimeLike, anonymize_frame, bot_ids, utc
from ..coverage import EXPORT_HINT, viewpoint_of
from ..pseudonyms import PseudonymKey, load_key
from ..schema import validate

#: Display names of sending clients, after the server's own /stats label map.
CLIENT_LABELS: dict[str, str] = {
    "website": "Web app",
    "ZulipElectron": "Desktop app",
    "ZulipDesktop": "Desktop app",
    "ZulipMobile": "Mobile app",
    "ZulipFlutter": "Mobile app",
    "ZulipAndroid": "Old Android app",
    "ZulipiOS": "Old iOS app",
    "ZulipTerminal": "Terminal app",
    "ZulipPython": "Python API",
    "API: Python": "Python API",
    "API": "API",
    "Internal": "Internal",
    "internal": "Internal",
}

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _finish(df: pd.DataFrame, anonymize: bool, key: PseudonymKey | str | None) -> pd.DataFrame:
    out = anonymize_frame(df, load_key(key)) if anonymize else df
    return out.reset_index(drop=True)


def group_dm_ids(dm_recipients: pd.DataFrame | None) -> set[int]:
    """The ids of the direct messages to more than two people (none without the frame)."""
    if dm_recipients is None:
        return set()
    d = validate(dm_recipients, "dm_recipients")
    sizes = d.groupby("message_id")["user_id"].nunique()
    return {int(i) for i in sizes[sizes > 2].index}


def _window_mask(ts: pd.Series, start: pd.Timestamp, end: pd.Timestamp) -> pd.Series:
    return (ts > start) & (ts <= end)


# -- the sentences ----------------------------------------------------------------------------


def seen_by(whose: str | None) -> str:
    """The words a sentence ends with to say whose messages it counts.

    ``""`` when the frames do not say (hand-built ones), `` (organization export)`` for an
    export, and for a sync `` (in <email>'s view: the channels it reads and its own direct
    messages)``.

    Args:
        whose: a :attr:`~chatops.analytics.coverage.Coverage.viewpoint` (or a result's
            ``viewpoint``).
    """
    if whose is None:
        return ""
    if whose == "the organization export":
        return " (organization export)"
    return f" (in {whose}'s view: the channels it reads and its own direct messages)"


def whose_messages(messages: pd.DataFrame) -> str | None:
    """Whose view of the organization a messages frame is (None when it does not say)."""
    return viewpoint_of(messages.attrs)


def dm_caveat(whose: str | None) -> str | None:
    """What a direct-message share from one account's view must say (None for an export or
    unknown frames): whose direct messages they are, and where the organization's are."""
    if whose is None or whose == "the organization export":
        return None
    return (
        f"direct messages: only {whose}'s own (an account sees no one else's); "
        f"the organization's share needs {EXPORT_HINT}"
    )


def humans(messages: pd.DataFrame, users: pd.DataFrame | None) -> pd.DataFrame:
    """The messages of people: bots' left out when ``users`` says who they are."""
    df = validate(messages, "messages")
    bots = bot_ids(users)
    if not bots:
        return df
    return df[~df["sender_id"].isin(list(bots)).fillna(False).astype(bool)]


def data_end(messages: pd.DataFrame, end: TimeLike | None = None) -> pd.Timestamp:
    """The end of the data: ``end`` when given, else the newest message's time.

    Raises:
        ValueError: no ``end`` and no message to take it from.
    """
    if end is not None:
        return utc(end)
    ts = validate(messages, "messages")["timestamp"]
    if ts.notna().any():
        return pd.Timestamp(ts.max())
    raise ValueError("no messages, so no end of the data: pass end=...")


def needs_columns(messages: Any, *columns: str) -> None:
    """A messages frame checked for the columns a view reads beyond the required ones (a
    dataset has them all)."""
    if isinstance(messages, pd.DataFrame):
        validate(messages, "messages", require=columns)
