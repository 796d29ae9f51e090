"""Bots: active bots without a live owner, and bots that have gone silent.

A bot is orphaned when its owner is missing (no ``bot_owner_id``, or an id no user has) or
deactivated, and stale when it sent no message in the last ``stale_days`` days (its newest
message is found with a ``sender:`` narrow, so only messages the account can read count).
System bots are left out.

A bot that posted to more than ``max_bot_channels`` channels in the last ``stale_days`` days
(among its newest ``BOT_SAMPLE`` messages) is flagged too: a bot usually serves a few channels,
and one spraying many is misconfigured or abused. ``-1`` switches that check off.

One threshold, with a default the demo organization passes:

- ``max_orphaned_bots`` (0): fail when more active bots than this are orphaned; ``-1``
  switches the check off.

Each flagged bot's finding carries the call that deactivates it (``DELETE /users/{id}``), for
``chatops audit plan`` / ``chatops audit apply``; the audit itself only reads. Giving an
orphaned bot a live owner instead (``PATCH /bots/{id}`` with ``bot_owner_id``) is left to a
person, who knows who should own it.

Three steps: :func:`fetch` reads the users and each active bot's newest messages;
:func:`judge` (pure) flags each bot; :func:`conclude` turns that into findings, the table and
the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import pandas as pd

from ..changes.kinds import DeactivateBot
from ..types import User
from ._common import api, crossed, fill, finding, newest_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Message

__all__ = [
    "BOT_SAMPLE",
    "BOT_TYPES",
    "JudgedBot",
    "Judged",
    "Options",
    "Read",
    "bots",
    "conclude",
    "fetch",
    "findings",
    "judge",
]

#: A bot's newest messages read to find its last message and the channels it posts to.
BOT_SAMPLE = 1000

#: ``bot_type`` -> name.
BOT_TYPES = {1: "generic", 2: "incoming webhook", 3: "outgoing webhook", 4: "embedded"}


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`bots`, checked (ValueError naming the one out of range)."""

    stale_days: int = 90
    max_orphaned_bots: int = 0
    max_bot_channels: int = 10

    def __post_init__(self) -> None:
        if self.stale_days < 1:
            raise ValueError(f"stale_days must be at least 1, not {self.stale_days}")
        if self.max_bot_channels < -1:
            raise ValueError(
                f"max_bot_channels must be -1 (off) or at least 0, not {self.max_bot_channels}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: bot user id -> its newest messages the account can read (at most ``BOT_SAMPLE``)
    messages: dict[int, list[Message]]

    @property
    def active_bots(self) -> list[User]:
        """The active bots that are not system bots, by user id."""
        return _active_bots(self.users)


@dataclass(frozen=True)
class JudgedBot:
    """One active bot, judged."""

    bot: User
    owner: User | None
    #: when it last sent a message the account can read (None: never)
    last: int | None
    #: the channels it posted to in the window
    posted_to: set[str]
    orphaned: bool
    stale: bool
    spraying: bool
    flags: list[str]


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    now: pd.Timestamp
    bots: list[JudgedBot]

    @property
    def orphaned(self) -> int:
        """How many active bots have no live owner."""
        return sum(b.orphaned for b in self.bots)

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_orphaned_bots", self.options.max_orphaned_bots, self.orphaned)


def bots(
    client: Client,
    *,
    stale_days: Annotated[
        int,
        Param("flag bots that sent no message in this many days", low=1),
    ] = 90,
    max_orphaned_bots: Annotated[
        int,
        Param(
            "fail when more active bots than this have a deactivated or missing owner (-1: off)",
            low=-1,
        ),
    ] = 0,
    max_bot_channels: Annotated[
        int,
        Param(
            "flag bots that posted to more channels than this in stale_days (-1: off)",
            low=-1,
        ),
    ] = 10,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch users and each active bot's newest message, and judge the bots.

    Args:
        client: a client of an administrator.
        stale_days: flag bots with no message in this many days before ``now``.
        max_orphaned_bots: fail when more active bots than this have a missing or deactivated
            owner; ``-1`` disables the check.
        max_bot_channels: flag bots that posted to more channels than this in the last
            ``stale_days`` days; ``-1`` disables the check.
        now: the end of the window; default the current time.

    Tables: ``bots`` (one row per active bot, with owner and last message).
    """
    options = Options(
        stale_days=stale_days,
        max_orphaned_bots=max_orphaned_bots,
        max_bot_channels=max_bot_channels,
    )
    return conclude(judge(fetch(client), options, now=utc(now)))


def fetch(client: Client) -> Read:
    """Read the users and the newest messages of each active bot."""
    users = {u.user_id: u for u in client.users.list()}
    messages = {
        bot.user_id: newest_messages(
            client, BOT_SAMPLE, narrow=[{"operator": "sender", "operand": bot.user_id}]
        )
        for bot in _active_bots(users)
    }
    return Read(client.site, users, messages)


def judge(read: Read, options: Options, *, now: pd.Timestamp) -> Judged:
    """Flag each active bot, as of ``now`` (an aware UTC time); no I/O."""
    since = now.timestamp() - options.stale_days * 86400
    judged: list[JudgedBot] = []
    for bot in read.active_bots:
        owner = read.users.get(bot.bot_owner_id) if bot.bot_owner_id is not None else None
        messages = read.messages.get(bot.user_id, [])
        last = max((m.timestamp for m in messages), default=None)
        posted_to = {m.channel_name for m in messages if m.timestamp >= since and m.channel_name}
        flags: list[str] = []
        if bot.bot_owner_id is None:
            flags.append("has no owner")
        elif owner is None:
            flags.append(f"owner {bot.bot_owner_id} does not exist")
        elif not owner.is_active:
            flags.append(f"owner {owner.full_name} is deactivated")
        orphaned = bool(flags)
        if last is None:
            flags.append("never sent a message")
        elif last < since:
            days = (now.timestamp() - last) / 86400
            flags.append(f"no message in {days:.0f} days (more than {options.stale_days})")
        spraying = 0 <= options.max_bot_channels < len(posted_to)
        if spraying:
            flags.append(
                f"posted to {len(posted_to)} channels in {options.stale_days} days (more than "
                f"{options.max_bot_channels})"
            )
        stale = last is None or last < since
        judged.append(JudgedBot(bot, owner, last, posted_to, orphaned, stale, spraying, flags))
    return Judged(read, options, now, judged)


def findings(judged: Judged) -> list[Finding]:
    """One finding per flagged bot, with the call that deactivates it; the threshold's."""
    rows: list[Finding] = []
    for b in judged.bots:
        if not b.flags:
            continue
        if b.orphaned:
            action = "Give the bot a live owner (PATCH /bots/{id} bot_owner_id), or deactivate it"
        else:
            action = "Deactivate the bot if it is no longer needed"
        rows.append(
            finding(
                "warning",
                f"{b.bot.full_name} ({b.bot.email})",
                "; ".join(b.flags),
                action,
                DeactivateBot(user_id=b.bot.user_id, endpoint="users"),
            )
        )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "bots",
                f"{judged.orphaned} active bots have no live owner; the "
                f"threshold is {judged.options.max_orphaned_bots}",
                "Reassign or deactivate the orphaned bots listed",
                api(
                    "PATCH",
                    "/bots/{bot_id}",
                    bot_owner_id=fill("{user_id}"),
                    or_=api("DELETE", "/users/{bot_id}"),
                ),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the table and the summary of a judgement."""
    rows = findings(judged)
    now = judged.now.timestamp()
    table = pd.DataFrame(
        [
            {
                "user_id": b.bot.user_id,
                "name": b.bot.full_name,
                "email": b.bot.email,
                "bot_type": BOT_TYPES.get(b.bot.bot_type or 0, str(b.bot.bot_type)),
                "owner": b.owner.full_name if b.owner else None,
                "owner_active": bool(b.owner and b.owner.is_active),
                "last_message_at": (
                    pd.Timestamp(b.last, unit="s", tz="UTC") if b.last is not None else pd.NaT
                ),
                "days_silent": (now - b.last) / 86400 if b.last is not None else None,
                "channels_posted_to": len(b.posted_to),
                "channels": ", ".join(f"#{c}" for c in sorted(b.posted_to)),
                "flags": "; ".join(b.flags),
            }
            for b in judged.bots
        ],
        columns=[
            "user_id",
            "name",
            "email",
            "bot_type",
            "owner",
            "owner_active",
            "last_message_at",
            "days_silent",
            "channels_posted_to",
            "channels",
            "flags",
        ],
    ).set_index("user_id")
    users = judged.read.users.values()
    summary = summary_of(
        "bots",
        subjects=[f"{b.bot.full_name} ({b.bot.email})" for b in judged.bots] + ["bots"],
        failed=judged.failed,
        counts={
            "bots": sum(1 for u in users if u.is_bot and not u.is_system_bot),
            "active_bots": len(judged.bots),
            "orphaned": judged.orphaned,
            "stale": sum(b.stale for b in judged.bots),
            "posting_to_many_channels": sum(b.spraying for b in judged.bots),
            "findings": len(rows),
        },
        thresholds={
            "max_orphaned_bots": judged.options.max_orphaned_bots,
            "stale_days": judged.options.stale_days,
            "max_bot_channels": judged.options.max_bot_channels,
        },
        site=judged.read.site,
        generated_at=judged.now.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"bots": table})


def _active_bots(users: dict[int, User]) -> list[User]:
    return sorted(
        (u for u in users.values() if u.is_bot and u.is_active and not u.is_system_bot),
        key=lambda u: u.user_id,
    )
