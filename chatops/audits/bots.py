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

With ``dry_run=False`` every flagged bot is deactivated (``DELETE /users/{id}``). Giving an
orphaned bot a live owner instead (``PATCH /bots/{id}`` with ``bot_owner_id``) is left to a
person, who knows who should own it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..types import User
from ._common import api, fill, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["BOT_SAMPLE", "BOT_TYPES", "bots"]

#: A bot's newest messages read to find its last message and the channels it posts to.
BOT_SAMPLE = 1000

#: ``bot_type`` -> name.
BOT_TYPES = {1: "generic", 2: "incoming webhook", 3: "outgoing webhook", 4: "embedded"}


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
    dry_run: Annotated[
        bool,
        Param("when False, deactivate every flagged bot"),
    ] = True,
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
        dry_run: when False, deactivate every flagged bot.

    Tables: ``bots`` (one row per active bot, with owner and last message).
    """
    if stale_days < 1:
        raise ValueError(f"stale_days must be at least 1, not {stale_days}")
    if max_bot_channels < -1:
        raise ValueError(f"max_bot_channels must be -1 (off) or at least 0, not {max_bot_channels}")
    at = utc(now)
    since = at.timestamp() - stale_days * 86400
    users = {u.user_id: u for u in client.users.list()}
    active_bots = sorted(
        (u for u in users.values() if u.is_bot and u.is_active and not u.is_system_bot),
        key=lambda u: u.user_id,
    )

    table_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
    orphaned: list[int] = []
    stale: list[int] = []
    flagged: list[int] = []
    spraying: list[int] = []
    for bot in active_bots:
        owner = users.get(bot.bot_owner_id) if bot.bot_owner_id is not None else None
        last, posted_to = _recent_activity(client, bot, since)
        flags: list[str] = []
        if bot.bot_owner_id is None:
            flags.append("has no owner")
        elif owner is None:
            flags.append(f"owner {bot.bot_owner_id} does not exist")
        elif not owner.is_active:
            flags.append(f"owner {owner.full_name} is deactivated")
        if flags:
            orphaned.append(bot.user_id)
        if last is None or last < since:
            stale.append(bot.user_id)
        if last is None:
            flags.append("never sent a message")
        elif last < since:
            days = (at.timestamp() - last) / 86400
            flags.append(f"no message in {days:.0f} days (more than {stale_days})")
        if 0 <= max_bot_channels < len(posted_to):
            spraying.append(bot.user_id)
            flags.append(
                f"posted to {len(posted_to)} channels in {stale_days} days (more than "
                f"{max_bot_channels})"
            )
        table_rows.append(
            {
                "user_id": bot.user_id,
                "name": bot.full_name,
                "email": bot.email,
                "bot_type": BOT_TYPES.get(bot.bot_type or 0, str(bot.bot_type)),
                "owner": owner.full_name if owner else None,
                "owner_active": bool(owner and owner.is_active),
                "last_message_at": (
                    pd.Timestamp(last, unit="s", tz="UTC") if last is not None else pd.NaT
                ),
                "days_silent": (at.timestamp() - last) / 86400 if last is not None else None,
                "channels_posted_to": len(posted_to),
                "channels": ", ".join(f"#{c}" for c in sorted(posted_to)),
                "flags": "; ".join(flags),
            }
        )
        if not flags:
            continue
        flagged.append(bot.user_id)
        if bot.user_id in orphaned:
            action = "Give the bot a live owner (PATCH /bots/{id} bot_owner_id), or deactivate it"
        else:
            action = "Deactivate the bot if it is no longer needed"
        rows.append(
            finding(
                "warning",
                f"{bot.full_name} ({bot.email})",
                "; ".join(flags),
                action,
                api("DELETE", f"/users/{bot.user_id}"),
            )
        )

    failed: list[str] = []
    if max_orphaned_bots >= 0 and len(orphaned) > max_orphaned_bots:
        failed.append("max_orphaned_bots")
        rows.append(
            finding(
                "critical",
                "bots",
                f"{len(orphaned)} active bots have no live owner; the threshold is "
                f"{max_orphaned_bots}",
                "Reassign or deactivate the orphaned bots listed",
                api(
                    "PATCH",
                    "/bots/{bot_id}",
                    bot_owner_id=fill("{user_id}"),
                    or_=api("DELETE", "/users/{bot_id}"),
                ),
            )
        )

    deactivated: list[int] = []
    if not dry_run:
        for bot_id in flagged:
            client.users.deactivate(bot_id)
            deactivated.append(bot_id)

    table = pd.DataFrame(
        table_rows,
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
    summary = summary_of(
        "bots",
        subjects=[f"{b.full_name} ({b.email})" for b in active_bots] + ["bots"],
        failed=failed,
        counts={
            "bots": sum(1 for u in users.values() if u.is_bot and not u.is_system_bot),
            "active_bots": len(active_bots),
            "orphaned": len(orphaned),
            "stale": len(stale),
            "posting_to_many_channels": len(spraying),
            "findings": len(rows),
            "deactivated_now": len(deactivated),
        },
        thresholds={
            "max_orphaned_bots": max_orphaned_bots,
            "stale_days": stale_days,
            "max_bot_channels": max_bot_channels,
        },
        dry_run=dry_run,
        deactivated_bot_ids=deactivated,
        site=client.site,
        generated_at=at.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"bots": table})


def _recent_activity(client: Client, bot: User, since: float) -> tuple[int | None, set[str]]:
    """The bot's newest message time, and the channels it posted to since ``since``."""
    page = client.messages.get(
        anchor="newest",
        num_before=BOT_SAMPLE,
        num_after=0,
        narrow=[{"operator": "sender", "operand": bot.user_id}],
        apply_markdown=False,
    )
    last = max((m.timestamp for m in page.messages), default=None)
    channels = {m.channel_name for m in page.messages if m.timestamp >= since and m.channel_name}
    return last, channels
