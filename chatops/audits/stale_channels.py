"""Stale channels: non-archived channels with no message in the last ``inactive_days`` days.

Each stale channel is a finding whose recommended action is to archive it
(``DELETE /api/v1/streams/{stream_id}``); ``chatops audit plan`` and ``chatops audit apply``
carry that out. The audit itself only reads.

The judging is one threshold, a parameter with a default the demo organization passes:

- ``max_stale_channels`` (2): fail when more channels than this are stale; ``-1`` disables it.

With ``min_subscribers`` above 0, a channel that is not stale but has fewer subscribers than
that is reported as underused (``info``), also with the archive call: a person decides.

A channel created less than ``inactive_days`` ago is not judged stale. A channel whose history
the account cannot read (private, not subscribed) is reported as ``info``, never archived.

Three steps: :func:`fetch` reads the channels, the users and each channel's newest message;
:func:`judge` (pure) decides which channels are stale, underused or unreadable;
:func:`conclude` turns that into findings, tables and the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import pandas as pd

from ..changes.kinds import ArchiveChannel
from ._common import api, crossed, finding, newest_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel, Message

__all__ = [
    "JudgedChannel",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "stale_channels",
]

TABLE_COLUMNS = (
    "stream_id",
    "privacy",
    "folder_id",
    "created",
    "creator_id",
    "creator",
    "subscribers",
    "last_message_at",
    "last_sender",
    "days_idle",
    "weekly_traffic",
    "stale",
    "underused",
)


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`stale_channels`, checked (ValueError naming the one out of range)."""

    inactive_days: int = 90
    include_private: bool = True
    exclude: Sequence[str] = ()
    max_stale_channels: int = 2
    min_subscribers: int = 0

    def __post_init__(self) -> None:
        if self.inactive_days < 1:
            raise ValueError(f"inactive_days must be at least 1, not {self.inactive_days}")
        if self.min_subscribers < 0:
            raise ValueError(f"min_subscribers must be at least 0, not {self.min_subscribers}")

    @property
    def excluded(self) -> set[str]:
        """The channel names never judged, without ``#`` and spaces."""
        return {name.strip().lstrip("#") for name in self.exclude if name.strip()}


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    #: the channels to judge: not archived, not excluded, private ones with ``include_private``
    channels: list[Channel]
    #: user id -> full name
    names: dict[int, str]
    #: stream id -> the channel's newest message the account can read (None: none)
    last_messages: dict[int, Message | None]


@dataclass(frozen=True)
class JudgedChannel:
    """One channel, judged."""

    channel: Channel
    created: pd.Timestamp | None
    last: Message | None
    #: days since the last message (or since creation when there is none), unrounded
    days_idle: float | None
    #: it has messages this account cannot read: not judged
    hidden: bool
    stale: bool
    underused: bool

    @property
    def last_at(self) -> pd.Timestamp | None:
        """When its newest readable message was sent."""
        return _ts(self.last.timestamp) if self.last is not None else None


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    until: pd.Timestamp
    #: every channel judged, by name
    channels: list[JudgedChannel]

    @property
    def cutoff(self) -> pd.Timestamp:
        """A channel with no message since this is stale."""
        return self.until - timedelta(days=self.options.inactive_days)

    @property
    def stale(self) -> list[JudgedChannel]:
        """The stale channels, by name."""
        return [c for c in self.channels if c.stale]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_stale_channels", self.options.max_stale_channels, len(self.stale))


def stale_channels(
    client: Client,
    *,
    inactive_days: Annotated[
        int,
        Param("a channel is stale when its last message is older than this many days", low=1),
    ] = 90,
    include_private: Annotated[
        bool,
        Param("judge private channels too"),
    ] = True,
    exclude: Annotated[
        Sequence[str],
        Param("comma-separated channel names never judged stale"),
    ] = (),
    max_stale_channels: Annotated[
        int,
        Param("fail when more channels than this are stale (-1: off)", low=-1),
    ] = 2,
    min_subscribers: Annotated[
        int,
        Param(
            "report channels that are not stale but have fewer subscribers than this (0: off)",
            low=0,
        ),
    ] = 0,
    now: datetime | None = None,
) -> AuditResult:
    """Find channels without a message in the last ``inactive_days`` days.

    Args:
        client: a client of an administrator (others see fewer channels).
        inactive_days: a channel is stale when its newest message is older than this.
        include_private: judge private channels too.
        exclude: channel names never judged (e.g. ``announcements``).
        max_stale_channels: fail when more channels than this are stale; ``-1`` disables.
        min_subscribers: report channels that are not stale but have fewer subscribers than
            this as underused; 0 switches the check off.
        now: the end of the window; default the current time (UTC when naive).

    Tables: ``channels`` (one row per judged channel, by name), ``days_idle`` (channel ->
    days since its last message, for a histogram).
    """
    options = Options(
        inactive_days=inactive_days,
        include_private=include_private,
        exclude=exclude,
        max_stale_channels=max_stale_channels,
        min_subscribers=min_subscribers,
    )
    return conclude(judge(fetch(client, options), options, until=utc(now)))


def fetch(client: Client, options: Options) -> Read:
    """Read the channels to judge, the users, and each channel's newest message."""
    excluded = options.excluded
    channels = [
        c
        for c in client.channels.list(include_all=True)
        if not c.is_archived
        and c.name not in excluded
        and (options.include_private or not c.invite_only)
    ]
    names = {u.user_id: u.full_name for u in client.users.list()}
    last: dict[int, Message | None] = {}
    for channel in sorted(channels, key=lambda c: c.name):
        page = newest_messages(client, 1, narrow=[("channel", channel.stream_id)])
        last[channel.stream_id] = page[-1] if page else None
    return Read(client.site, channels, names, last)


def judge(read: Read, options: Options, *, until: pd.Timestamp) -> Judged:
    """Judge each channel against ``until`` (an aware UTC time); no I/O."""
    cutoff = until - timedelta(days=options.inactive_days)
    judged: list[JudgedChannel] = []
    for channel in sorted(read.channels, key=lambda c: c.name):
        last = read.last_messages.get(channel.stream_id)
        created = _ts(channel.date_created)
        last_at = _ts(last.timestamp) if last is not None else None
        reference = last_at if last_at is not None else created
        days_idle = (until - reference).total_seconds() / 86400 if reference is not None else None
        hidden = last is None and channel.first_message_id is not None
        is_stale = (
            not hidden
            and (last_at is None or last_at < cutoff)
            and (created is None or created < cutoff)
        )
        subscribers = channel.subscriber_count
        small = (
            not is_stale
            and not hidden
            and subscribers is not None
            and subscribers < options.min_subscribers
        )
        judged.append(JudgedChannel(channel, created, last, days_idle, hidden, is_stale, small))
    return Judged(read, options, until, judged)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it."""
    options = judged.options
    rows: list[Finding] = []
    stale = judged.stale
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "channels",
                f"{len(stale)} of {len(judged.channels)} channels had no message in the last "
                f"{options.inactive_days} days; at most {options.max_stale_channels} allowed",
                "Archive the stale channels listed below",
                api("DELETE", "/streams/{stream_id}"),
            )
        )
    for c in stale:
        detail = (
            f"{c.days_idle:.0f} days since the last message"
            if c.last_at
            else ("no messages since it was created")
        )
        rows.append(
            finding(
                "warning",
                f"#{c.channel.name}",
                f"no message in the last {options.inactive_days} days ({detail})",
                "Archive the channel",
                ArchiveChannel(stream_id=c.channel.stream_id),
            )
        )
    for c in judged.channels:
        if c.underused:
            rows.append(
                finding(
                    "info",
                    f"#{c.channel.name}",
                    f"{c.channel.subscriber_count} subscribers, fewer than min_subscribers="
                    f"{options.min_subscribers}",
                    "Archive the channel if its few people can talk elsewhere; otherwise invite "
                    "more",
                    ArchiveChannel(stream_id=c.channel.stream_id),
                )
            )
    for c in judged.channels:
        if c.hidden:
            rows.append(
                finding(
                    "info",
                    f"#{c.channel.name}",
                    "has messages this account cannot read; not judged",
                    "Run the audit as a subscriber of the channel",
                    api("GET", "/users/me/subscriptions"),
                )
            )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    options, read = judged.options, judged.read
    rows = findings(judged)
    records = [
        {
            "channel": c.channel.name,
            "stream_id": c.channel.stream_id,
            "privacy": "private" if c.channel.invite_only else "public",
            "folder_id": c.channel.folder_id,
            "created": c.created,
            "creator_id": c.channel.creator_id,
            "creator": read.names.get(c.channel.creator_id) if c.channel.creator_id else None,
            "subscribers": c.channel.subscriber_count,
            "last_message_at": c.last_at,
            "last_sender": c.last.sender_full_name if c.last is not None else None,
            "days_idle": round(c.days_idle, 1) if c.days_idle is not None else None,
            "weekly_traffic": c.channel.stream_weekly_traffic,
            "stale": c.stale,
            "underused": c.underused,
        }
        for c in judged.channels
    ]
    table = pd.DataFrame.from_records(records, columns=["channel", *TABLE_COLUMNS])
    table = table.set_index("channel")
    counts = {
        "channels": len(judged.channels),
        "stale_channels": len(judged.stale),
        "underused_channels": sum(c.underused for c in judged.channels),
        "unreadable_channels": sum(c.hidden for c in judged.channels),
        "findings": len(rows),
    }
    summary = summary_of(
        "stale_channels",
        subjects=[f"#{c.name}" for c in read.channels] + ["channels"],
        failed=judged.failed,
        counts=counts,
        thresholds={"max_stale_channels": options.max_stale_channels},
        options={
            "inactive_days": options.inactive_days,
            "include_private": options.include_private,
            "min_subscribers": options.min_subscribers,
            "exclude": sorted(options.excluded),
        },
        stale=[c.channel.name for c in judged.stale],
        window={
            "days": options.inactive_days,
            "since": judged.cutoff.isoformat(),
            "until": judged.until.isoformat(),
        },
        site=read.site,
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"channels": table, "days_idle": table[["days_idle"]].dropna()},
    )


def _ts(seconds: int | None) -> pd.Timestamp | None:
    return None if seconds is None else pd.Timestamp(seconds, unit="s", tz="UTC")
