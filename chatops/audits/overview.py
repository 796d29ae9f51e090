"""Organization overview: accounts by role, channels, and where the talking happened lately.

The judging is three thresholds, each a parameter with a default the demo organization passes:

- ``max_inactive_channel_share`` (0.5): the share of non-archived channels with no message in
  the window. Above it the organization has more dead channels than live ones; archive some.
  A channel created within the window is judged by its own age, never as idle.
- ``max_guest_share`` (0.25): the share of active human accounts that are guests.
- ``min_channel_messages`` (1): fewer channel messages than this in the window means the
  organization is silent (or the account sees nothing; check its subscriptions).

Set a threshold to ``-1`` (``min_channel_messages`` to ``0``) to switch its check off.
"""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import pandas as pd

from .._exceptions import IgnoredParametersWarning
from ..analytics import metrics
from ..analytics.dataset.records import channels_frame, messages_frame, users_frame
from ..types import Channel, User
from ._common import DEFAULT_MAX_MESSAGES, api, finding, recent_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["DEFAULT_MAX_MESSAGES", "org_overview"]


def org_overview(
    client: Client,
    *,
    days: Annotated[
        int,
        Param("length in days of the activity window, ending now", low=1),
    ] = 30,
    now: datetime | None = None,
    max_messages: Annotated[
        int,
        Param("fetch at most this many messages of history, newest first", low=1),
    ] = DEFAULT_MAX_MESSAGES,
    max_inactive_channel_share: Annotated[
        float,
        Param(
            "fail when a larger share of non-archived channels had no messages in "
            "the window (-1: off)",
            off=-1,
            low=0,
            high=1,
        ),
    ] = 0.5,
    max_guest_share: Annotated[
        float,
        Param(
            "fail when a larger share of active humans are guests (-1: off)", off=-1, low=0, high=1
        ),
    ] = 0.25,
    min_channel_messages: Annotated[
        int,
        Param("fail when the window has fewer channel messages than this (0: off)", low=0),
    ] = 1,
) -> AuditResult:
    """Fetch users, channels and the last ``days`` of messages, and judge them.

    Args:
        client: a client, ideally of an administrator (others see only what they can read).
        days: the activity window, ending at ``now``.
        now: the end of the window; default the current time (UTC when naive).
        max_messages: stop fetching history after this many messages.
        max_inactive_channel_share: fail above this share of non-archived channels without
            messages in the window; ``-1`` disables the check.
        max_guest_share: fail above this share of guests among active humans; ``-1`` disables.
        min_channel_messages: fail below this many channel messages in the window.

    Tables: ``accounts_by_role``, ``channels``, ``messages_per_channel``, ``messages_per_day``.
    """
    if days < 1:
        raise ValueError(f"days must be at least 1, not {days}")
    if max_messages < 1:
        raise ValueError(f"max_messages must be at least 1, not {max_messages}")
    until = utc(now)
    since = until - timedelta(days=days)

    users = users_frame(_list_users(client))
    channels = channels_frame(_list_channels(client))
    messages, truncated = recent_messages(client, since=since, until=until, limit=max_messages)
    msgs = messages_frame(messages)

    live = channels[~channels["is_archived"].fillna(False).astype(bool)]
    per_channel = metrics.messages_per_channel(
        msgs, since=since, until=until, channels=[str(n) for n in live["name"]]
    )
    per_channel = per_channel[per_channel.index.isin([str(n) for n in live["name"]])]
    channel_msgs = msgs[msgs["channel"].notna()]
    per_day = metrics.messages_per_period(
        channel_msgs[(channel_msgs["timestamp"] >= since) & (channel_msgs["timestamp"] < until)],
        "D",
    )
    by_role = metrics.accounts_by_role(users)

    # a channel younger than the window is judged by its own age: it cannot have been idle
    # for ``days`` days
    created = dict(zip(live["name"].astype(str), live["date_created"], strict=True))
    young = {name for name, when in created.items() if pd.notna(when) and since < when <= until}
    silent = per_channel.index[per_channel["messages"] == 0]
    inactive = sorted(name for name in silent if name not in young)
    live_count = len(live)
    inactive_share = len(inactive) / live_count if live_count else 0.0
    totals = _row_counts(by_role, "total")
    active_humans = totals["active_humans"]
    guests = _row_counts(by_role, "guest")["active_humans"] if "guest" in by_role.index else 0
    guest_share = guests / active_humans if active_humans else 0.0
    window_messages = int(per_channel["messages"].sum())

    thresholds: dict[str, Any] = {
        "max_inactive_channel_share": max_inactive_channel_share,
        "max_guest_share": max_guest_share,
        "min_channel_messages": min_channel_messages,
    }
    failed: list[str] = []
    rows: list[Finding] = []
    ids = dict(zip(live["name"].astype(str), live["stream_id"], strict=True))

    if max_inactive_channel_share >= 0 and inactive_share > max_inactive_channel_share:
        failed.append("max_inactive_channel_share")
        rows.append(
            finding(
                "critical",
                "channels",
                f"{len(inactive)} of {live_count} channels ({inactive_share:.0%}) had no "
                f"messages in the last {days} days; the threshold is "
                f"{max_inactive_channel_share:.0%}",
                "Review the inactive channels below and archive those no longer needed",
                api("DELETE", "/streams/{stream_id}"),
            )
        )
    for name in inactive:
        rows.append(
            finding(
                "warning",
                f"#{name}",
                f"no messages in the last {days} days",
                "Archive the channel if it is no longer needed",
                api("DELETE", f"/streams/{ids[name]}"),
            )
        )
    if max_guest_share >= 0 and guest_share > max_guest_share:
        failed.append("max_guest_share")
        rows.append(
            finding(
                "critical",
                "guests",
                f"{guests} of {active_humans} active humans ({guest_share:.0%}) are guests; "
                f"the threshold is {max_guest_share:.0%}",
                "Check that each guest still needs access; change roles or deactivate",
                api("PATCH", "/users/{user_id}", role=400, or_=api("DELETE", "/users/{user_id}")),
            )
        )
    if window_messages < min_channel_messages:
        failed.append("min_channel_messages")
        rows.append(
            finding(
                "critical",
                "messages",
                f"{window_messages} channel messages in the last {days} days; at least "
                f"{min_channel_messages} expected",
                "Check that the account is subscribed to the channels it should see",
                api("GET", "/users/me/subscriptions"),
            )
        )
    if truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"history fetch stopped at max_messages={max_messages} before the window start",
                "Raise max_messages for complete counts",
                api("GET", "/messages", anchor="newest"),
            )
        )
    deactivated = totals["deactivated"]
    if deactivated:
        rows.append(
            finding(
                "info",
                "accounts",
                f"{deactivated} deactivated accounts",
                "None needed; reactivate only on request",
                api("POST", "/users/{user_id}/reactivate"),
            )
        )

    counts = {
        "accounts": totals["total"],
        "active_humans": active_humans,
        "active_bots": totals["active_bots"],
        "deactivated": deactivated,
        "guests": guests,
        "channels": live_count,
        "archived_channels": int(len(channels) - live_count),
        "private_channels": int(live["invite_only"].fillna(False).astype(bool).sum()),
        "inactive_channels": len(inactive),
        "channel_messages": window_messages,
        "senders": int(channel_msgs.loc[channel_msgs["timestamp"] >= since, "sender_id"].nunique()),
        "messages_fetched": len(msgs),
        "findings": len(rows),
    }
    summary = summary_of(
        "org_overview",
        # every live channel judged, and the organization-wide counts' words
        subjects=[f"#{name}" for name in live["name"].astype(str)]
        + ["channels", "guests", "messages", "coverage", "accounts"],
        failed=failed,
        counts=counts,
        ratios={"inactive_channel_share": inactive_share, "guest_share": guest_share},
        thresholds=thresholds,
        window={"days": days, "since": since.isoformat(), "until": until.isoformat()},
        truncated=truncated,
        site=client.site,
        generated_at=datetime.now(UTC).isoformat(),
    )
    channel_table = channels.set_index("name")[
        ["stream_id", "invite_only", "is_archived", "subscriber_count", "date_created"]
    ]
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "accounts_by_role": by_role,
            "channels": channel_table,
            "messages_per_channel": per_channel,
            "messages_per_day": per_day,
        },
    )


def _row_counts(table: pd.DataFrame, label: str) -> dict[str, int]:
    row = table.to_dict("index")[label]
    return {str(k): int(v) for k, v in row.items()}


def _list_users(client: Client) -> list[User]:
    return list(client.users.list())


def _list_channels(client: Client) -> list[Channel]:
    # Archived channels count in the overview, and GET /streams leaves them out unless asked:
    # Zulip (feature level 315+) reads ``exclude_archived=false``, the sandbox reads
    # ``include_archived=true``; each server ignores the other's parameter, so send both and
    # silence the warning about the one ignored.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IgnoredParametersWarning)
        result = client.get(
            "/streams",
            params={"include_all": True, "exclude_archived": False, "include_archived": True},
        )
    return msgspec.convert(result["streams"], list[Channel])
