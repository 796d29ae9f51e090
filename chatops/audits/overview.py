"""Organization overview: accounts by role, channels, and where the talking happened lately.

The judging is three thresholds, each a parameter with a default the demo organization passes:

- ``max_inactive_channel_share`` (0.5): the share of non-archived channels with no message in
  the window. Above it the organization has more dead channels than live ones; archive some.
  A channel created within the window is judged by its own age, never as idle.
- ``max_guest_share`` (0.25): the share of active human accounts that are guests.
- ``min_channel_messages`` (1): fewer channel messages than this in the window means the
  organization is silent (or the account sees nothing; check its subscriptions).

Set a threshold to ``-1`` (``min_channel_messages`` to ``0``) to switch its check off.

Three steps: :func:`fetch` reads the users, the channels (archived ones too) and the window's
history; :func:`judge` (pure) counts and finds the inactive channels; :func:`conclude` turns
that into findings, tables and the summary.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import msgspec
import pandas as pd

from .._exceptions import IgnoredParametersWarning
from ..analytics import metrics
from ..analytics.dataset.records import channels_frame, messages_frame, users_frame
from ..changes.kinds import ArchiveChannel
from ..types import Channel, Message, User
from ._common import DEFAULT_MAX_MESSAGES, api, crossed, finding, recent_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = [
    "DEFAULT_MAX_MESSAGES",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "org_overview",
]


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`org_overview`, checked (ValueError naming the one out of
    range)."""

    days: int = 30
    max_messages: int = DEFAULT_MAX_MESSAGES
    max_inactive_channel_share: float = 0.5
    max_guest_share: float = 0.25
    min_channel_messages: int = 1

    def __post_init__(self) -> None:
        if self.days < 1:
            raise ValueError(f"days must be at least 1, not {self.days}")
        if self.max_messages < 1:
            raise ValueError(f"max_messages must be at least 1, not {self.max_messages}")


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: list[User]
    #: every channel, archived ones too
    channels: list[Channel]
    #: the messages of the window the account can read, newest first
    messages: list[Message]
    #: whether ``max_messages`` cut the window short
    truncated: bool


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` counted and decided, with what it was decided from."""

    read: Read
    options: Options
    since: pd.Timestamp
    until: pd.Timestamp
    #: the frames of the users, channels and messages read
    users: pd.DataFrame
    channels: pd.DataFrame
    messages: pd.DataFrame
    #: the channels that are not archived
    live: pd.DataFrame
    #: messages per live channel in the window, per day, accounts per role
    per_channel: pd.DataFrame
    per_day: pd.DataFrame
    by_role: pd.DataFrame
    #: the live channels with no message in the window that are older than it, by name
    inactive: list[str]
    #: the ``total`` row of ``by_role``, and the active guests
    totals: dict[str, int]
    guests: int

    @property
    def inactive_share(self) -> float:
        """The share of the live channels that is inactive."""
        return len(self.inactive) / len(self.live) if len(self.live) else 0.0

    @property
    def guest_share(self) -> float:
        """The share of the active humans who are guests."""
        humans = self.totals["active_humans"]
        return self.guests / humans if humans else 0.0

    @property
    def window_messages(self) -> int:
        """Channel messages in the window."""
        return int(self.per_channel["messages"].sum())

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        options = self.options
        return [
            *crossed(
                "max_inactive_channel_share",
                options.max_inactive_channel_share,
                self.inactive_share,
            ),
            *crossed("max_guest_share", options.max_guest_share, self.guest_share),
            # a minimum: too few messages fail, and 0 switches it off
            *(
                ["min_channel_messages"]
                if self.window_messages < options.min_channel_messages
                else []
            ),
        ]


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
    options = Options(
        days=days,
        max_messages=max_messages,
        max_inactive_channel_share=max_inactive_channel_share,
        max_guest_share=max_guest_share,
        min_channel_messages=min_channel_messages,
    )
    until = utc(now)
    return conclude(judge(fetch(client, options, until=until), options, until=until))


def fetch(client: Client, options: Options, *, until: pd.Timestamp) -> Read:
    """Read the users, every channel and the history of the window."""
    users = list(client.users.list())
    channels = _list_channels(client)
    since = until - timedelta(days=options.days)
    messages, truncated = recent_messages(
        client, since=since, until=until, limit=options.max_messages
    )
    return Read(client.site, users, channels, messages, truncated)


def judge(read: Read, options: Options, *, until: pd.Timestamp) -> Judged:
    """Count the window ending at ``until`` (an aware UTC time) and find the inactive
    channels; no I/O."""
    since = until - timedelta(days=options.days)
    users = users_frame(read.users)
    channels = channels_frame(read.channels)
    msgs = messages_frame(read.messages)
    live = channels[~channels["is_archived"].fillna(False).astype(bool)]
    names = [str(n) for n in live["name"]]
    per_channel = metrics.messages_per_channel(msgs, since=since, until=until, channels=names)
    per_channel = per_channel[per_channel.index.isin(names)]
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
    totals = _row_counts(by_role, "total")
    guests = _row_counts(by_role, "guest")["active_humans"] if "guest" in by_role.index else 0
    return Judged(
        read=read,
        options=options,
        since=since,
        until=until,
        users=users,
        channels=channels,
        messages=msgs,
        live=live,
        per_channel=per_channel,
        per_day=per_day,
        by_role=by_role,
        inactive=inactive,
        totals=totals,
        guests=guests,
    )


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes (or checks) it."""
    options, days = judged.options, judged.options.days
    failed = judged.failed
    rows: list[Finding] = []
    ids = dict(zip(judged.live["name"].astype(str), judged.live["stream_id"], strict=True))
    if "max_inactive_channel_share" in failed:
        rows.append(
            finding(
                "critical",
                "channels",
                f"{len(judged.inactive)} of {len(judged.live)} channels "
                f"({judged.inactive_share:.0%}) had no messages in the last {days} days; the "
                f"threshold is {options.max_inactive_channel_share:.0%}",
                "Review the inactive channels below and archive those no longer needed",
                api("DELETE", "/streams/{stream_id}"),
            )
        )
    for name in judged.inactive:
        rows.append(
            finding(
                "warning",
                f"#{name}",
                f"no messages in the last {days} days",
                "Archive the channel if it is no longer needed",
                ArchiveChannel(stream_id=int(ids[name])),
            )
        )
    if "max_guest_share" in failed:
        rows.append(
            finding(
                "critical",
                "guests",
                f"{judged.guests} of {judged.totals['active_humans']} active humans "
                f"({judged.guest_share:.0%}) are guests; the threshold is "
                f"{options.max_guest_share:.0%}",
                "Check that each guest still needs access; change roles or deactivate",
                api("PATCH", "/users/{user_id}", role=400, or_=api("DELETE", "/users/{user_id}")),
            )
        )
    if "min_channel_messages" in failed:
        rows.append(
            finding(
                "critical",
                "messages",
                f"{judged.window_messages} channel messages in the last {days} days; at least "
                f"{options.min_channel_messages} expected",
                "Check that the account is subscribed to the channels it should see",
                api("GET", "/users/me/subscriptions"),
            )
        )
    if judged.read.truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"history fetch stopped at max_messages={options.max_messages} before the "
                "window start",
                "Raise max_messages for complete counts",
                api("GET", "/messages", anchor="newest"),
            )
        )
    deactivated = judged.totals["deactivated"]
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
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, live, totals = judged.options, judged.live, judged.totals
    msgs = judged.messages
    channel_msgs = msgs[msgs["channel"].notna()]
    counts = {
        "accounts": totals["total"],
        "active_humans": totals["active_humans"],
        "active_bots": totals["active_bots"],
        "deactivated": totals["deactivated"],
        "guests": judged.guests,
        "channels": len(live),
        "archived_channels": int(len(judged.channels) - len(live)),
        "private_channels": int(live["invite_only"].fillna(False).astype(bool).sum()),
        "inactive_channels": len(judged.inactive),
        "channel_messages": judged.window_messages,
        "senders": int(
            channel_msgs.loc[channel_msgs["timestamp"] >= judged.since, "sender_id"].nunique()
        ),
        "messages_fetched": len(msgs),
        "findings": len(rows),
    }
    summary = summary_of(
        "org_overview",
        # every live channel judged, and the organization-wide counts' words
        subjects=[f"#{name}" for name in live["name"].astype(str)]
        + ["channels", "guests", "messages", "coverage", "accounts"],
        failed=judged.failed,
        counts=counts,
        ratios={
            "inactive_channel_share": judged.inactive_share,
            "guest_share": judged.guest_share,
        },
        thresholds={
            "max_inactive_channel_share": options.max_inactive_channel_share,
            "max_guest_share": options.max_guest_share,
            "min_channel_messages": options.min_channel_messages,
        },
        window={
            "days": options.days,
            "since": judged.since.isoformat(),
            "until": judged.until.isoformat(),
        },
        truncated=judged.read.truncated,
        site=judged.read.site,
    )
    channel_table = judged.channels.set_index("name")[
        ["stream_id", "invite_only", "is_archived", "subscriber_count", "date_created"]
    ]
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "accounts_by_role": judged.by_role,
            "channels": channel_table,
            "messages_per_channel": judged.per_channel,
            "messages_per_day": judged.per_day,
        },
    )


def _row_counts(table: pd.DataFrame, label: str) -> dict[str, int]:
    row = table.to_dict("index")[label]
    return {str(k): int(v) for k, v in row.items()}


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
