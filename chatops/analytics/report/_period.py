"""The period a report covers: a name (``last-30-days``) or ``since``/``until``, and its end.

A named period ends where the data ends (the newest message, or ``until``), as the views'
sentences do: "the last 30 days" of an export read a year later are its own last 30 days, not
thirty empty days before today.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pandas as pd

__all__ = ["PERIODS", "Period", "parse_time", "resolve_period"]

#: the named periods and their length in days (None: everything)
PERIODS: dict[str, int | None] = {
    "last-7-days": 7,
    "last-30-days": 30,
    "last-90-days": 90,
    "all": None,
}


@dataclass(frozen=True)
class Period:
    """What a report covers: messages sent at or after ``since`` and before ``until``.

    ``since``/``until`` are None at an open end; ``label`` says it in words.
    """

    label: str
    since: datetime | None
    until: datetime | None

    @property
    def days(self) -> int | None:
        """Whole days between ``since`` and ``until`` (None with an open end)."""
        if self.since is None or self.until is None:
            return None
        return max(1, round((self.until - self.since).total_seconds() / 86_400))

    def dates(self) -> str:
        """``2026-10-30 to 2026-11-28`` (the day before ``until``: the last day included)."""
        start = "the first message" if self.since is None else f"{self.since:%Y-%m-%d}"
        if self.until is None:
            return f"{start} to the last message"
        last = self.until - timedelta(microseconds=1)
        return f"{start} to {last:%Y-%m-%d}"


def parse_time(text: str) -> datetime:
    """An ISO 8601 date or time as an aware UTC datetime (naive means UTC).

    Args:
        text: ``2026-11-01`` or ``2026-11-01T12:00`` or ``2026-11-01T12:00+01:00``.

    Raises:
        ValueError: naming the text when it is not a date or time.
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date or time (ISO 8601, e.g. 2026-11-01)") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def resolve_period(
    name: str | None,
    since: datetime | None,
    until: datetime | None,
    timestamps: pd.Series,
) -> Period:
    """The period a report covers, from a name or ``since``/``until``, against the data.

    Args:
        name: one of :data:`PERIODS`, or None with ``since``/``until`` (neither: ``all``).
        since: first moment included (with ``name`` None).
        until: first moment excluded (with ``name`` None).
        timestamps: the messages' times, whose newest ends a named period.

    Returns:
        the :class:`Period`, with its ``since``/``until`` set for a named period.

    Raises:
        ValueError: an unknown name, a name with since/until, or since not before until.

    Example::

        >>> resolve_period("last-7-days", None, None, frames.messages["timestamp"]).label
        'last 7 days of the data'
    """
    if name is not None and (since is not None or until is not None):
        raise ValueError("give a period name or --since/--until, not both")
    if name is not None and name not in PERIODS:
        raise ValueError(f"unknown period {name!r}; choose from {', '.join(PERIODS)}")
    if since is not None and until is not None and since >= until:
        raise ValueError(
            f"--since {since:%Y-%m-%d %H:%M} is not before --until {until:%Y-%m-%d %H:%M}"
        )
    if name is None and since is None and until is None:
        name = "all"
    if name == "all":
        return Period("all messages", None, None)
    if name is None:
        if since is not None and until is not None:
            return Period(
                f"{since:%Y-%m-%d} to {until - timedelta(microseconds=1):%Y-%m-%d}", since, until
            )
        if since is not None:
            return Period(f"since {since:%Y-%m-%d}", since, None)
        assert until is not None
        return Period(f"until {until - timedelta(microseconds=1):%Y-%m-%d}", None, until)
    days = PERIODS[name]
    assert days is not None
    if len(timestamps):
        newest = pd.Timestamp(timestamps.max()).to_pydatetime()
        end = newest + timedelta(microseconds=1)
    else:
        end = datetime.now(UTC)
    return Period(f"last {days} days of the data", end - timedelta(days=days), end)
