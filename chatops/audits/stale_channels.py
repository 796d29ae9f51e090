"""Stale channels: non-archived channels with no message in the last ``inactive_days`` days.

Each stale channel is a finding whose recommended action is to archive it
(``DELETE /api/v1/streams/{stream_id}``); with ``dry_run=False`` the audit archives them.

The judging is one threshold, a parameter with a default the demo organization passes:

- ``max_stale_channels`` (2): fail when more channels than this are stale; ``-1`` disables it.

With ``min_subscribers`` above 0, a channel that is not stale but has fewer subscribers than
that is reported as underused (``info``), also with the archive call: a person decides.

A channel created less than ``inactive_days`` ago is not judged stale. A channel whose history
the account cannot read (private, not subscribed) is reported as ``info``, never archived.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ._common import api, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel, Message

__all__ = ["stale_channels"]

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
    dry_run: Annotated[
        bool,
        Param("when False, archive every stale channel"),
    ] = True,
) -> AuditResult:
    """Find channels without a message in the last ``inactive_days`` days; archive them unless dry.

    Args:
        client: a client of an administrator (archiving needs one; others see fewer channels).
        inactive_days: a channel is stale when its newest message is older than this.
        include_private: judge private channels too.
        exclude: channel names never judged (e.g. ``announcements``).
        max_stale_channels: fail when more channels than this are stale; ``-1`` disables.
        min_subscribers: report channels that are not stale but have fewer subscribers than
            this as underused; 0 switches the check off.
        now: the end of the window; default the current time (UTC when naive).
        dry_run: when False, archive every stale channel (``DELETE /streams/{id}``).

    Tables: ``channels`` (one row per judged channel, by name), ``days_idle`` (channel ->
    days since its last message, for a histogram).
    """
    if inactive_days < 1:
        raise ValueError(f"inactive_days must be at least 1, not {inactive_days}")
    if min_subscribers < 0:
        raise ValueError(f"min_subscribers must be at least 0, not {min_subscribers}")
    until = utc(now)
    cutoff = until - timedelta(days=inactive_days)
    excluded = {name.strip().lstrip("#") for name in exclude if name.strip()}

    channels = [
        c
        for c in client.channels.list(include_all=True)
        if not c.is_archived and c.name not in excluded and (include_private or not c.invite_only)
    ]
    names = {u.user_id: u.full_name for u in client.users.list()}
    records: list[dict[str, Any]] = []
    rows: list[Finding] = []
    stale: list[Channel] = []
    underused: list[Channel] = []
    unreadable: list[str] = []
    for channel in sorted(channels, key=lambda c: c.name):
        last = _last_message(client, channel.stream_id)
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
        if hidden:
            unreadable.append(channel.name)
        if is_stale:
            stale.append(channel)
        subscribers = channel.subscriber_count
        small = (
            not is_stale
            and not hidden
            and subscribers is not None
            and subscribers < min_subscribers
        )
        if small:
            underused.append(channel)
        records.append(
            {
                "channel": channel.name,
                "stream_id": channel.stream_id,
                "privacy": "private" if channel.invite_only else "public",
                "folder_id": channel.folder_id,
                "created": created,
                "creator_id": channel.creator_id,
                "creator": names.get(channel.creator_id) if channel.creator_id else None,
                "subscribers": channel.subscriber_count,
                "last_message_at": last_at,
                "last_sender": last.sender_full_name if last is not None else None,
                "days_idle": round(days_idle, 1) if days_idle is not None else None,
                "_days_idle": days_idle,  # unrounded, for the finding's words
                "weekly_traffic": channel.stream_weekly_traffic,
                "stale": is_stale,
                "underused": small,
            }
        )

    failed: list[str] = []
    if 0 <= max_stale_channels < len(stale):
        failed.append("max_stale_channels")
        rows.append(
            finding(
                "critical",
                "channels",
                f"{len(stale)} of {len(channels)} channels had no message in the last "
                f"{inactive_days} days; at most {max_stale_channels} allowed",
                "Archive the stale channels listed below",
                api("DELETE", "/streams/{stream_id}"),
            )
        )
    for channel in stale:
        record = next(r for r in records if r["channel"] == channel.name)
        idle = record["_days_idle"]
        detail = (
            f"{idle:.0f} days since the last message"
            if record["last_message_at"]
            else ("no messages since it was created")
        )
        rows.append(
            finding(
                "warning",
                f"#{channel.name}",
                f"no message in the last {inactive_days} days ({detail})",
                "Archive the channel",
                api("DELETE", f"/streams/{channel.stream_id}"),
            )
        )
    for channel in underused:
        rows.append(
            finding(
                "info",
                f"#{channel.name}",
                f"{channel.subscriber_count} subscribers, fewer than min_subscribers="
                f"{min_subscribers}",
                "Archive the channel if its few people can talk elsewhere; otherwise invite more",
                api("DELETE", f"/streams/{channel.stream_id}"),
            )
        )
    for name in unreadable:
        rows.append(
            finding(
                "info",
                f"#{name}",
                "has messages this account cannot read; not judged",
                "Run the audit as a subscriber of the channel",
                api("GET", "/users/me/subscriptions"),
            )
        )

    archived: list[int] = []
    if not dry_run:
        for channel in stale:
            client.channels.archive(channel.stream_id)
            archived.append(channel.stream_id)

    table = pd.DataFrame.from_records(records, columns=["channel", *TABLE_COLUMNS])
    table = table.set_index("channel")
    counts = {
        "channels": len(channels),
        "stale_channels": len(stale),
        "underused_channels": len(underused),
        "unreadable_channels": len(unreadable),
        "archived": len(archived),
        "findings": len(rows),
    }
    summary = summary_of(
        "stale_channels",
        subjects=[f"#{c.name}" for c in channels] + ["channels"],
        failed=failed,
        counts=counts,
        thresholds={"max_stale_channels": max_stale_channels},
        options={
            "inactive_days": inactive_days,
            "include_private": include_private,
            "min_subscribers": min_subscribers,
            "exclude": sorted(excluded),
            "dry_run": dry_run,
        },
        stale=[c.name for c in stale],
        archived_stream_ids=archived,
        window={"days": inactive_days, "since": cutoff.isoformat(), "until": until.isoformat()},
        site=client.site,
        generated_at=datetime.now(UTC).isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"channels": table, "days_idle": table[["days_idle"]].dropna()},
    )


def _ts(seconds: int | None) -> pd.Timestamp | None:
    return None if seconds is None else pd.Timestamp(seconds, unit="s", tz="UTC")


def _last_message(client: Client, stream_id: int) -> Message | None:
    page = client.messages.get(
        anchor="newest",
        num_before=1,
        num_after=0,
        narrow=[("channel", stream_id)],
        apply_markdown=False,
    )
    return page.messages[-1] if page.messages else None
