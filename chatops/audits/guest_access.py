"""Guest access: which channels each guest is in, and whether guests may see every user.

For every active guest (role 600): the channels subscribed (how many, which are private,
web-public or default channels), the direct-message partners the acting account can see, and
the newest message the account can read. The organization's ``can_access_all_users_group``
setting is resolved to its members to tell whether guests may see all users.

Flags per guest: in more than ``max_channels`` channels, in a private channel
(``flag_private``), in a default channel (``flag_default_channels``). That guests may see all
users is one organization-wide finding, since one setting decides it for every guest.

One threshold, with a default the demo organization passes:

- ``max_flagged_guests`` (2): fail when more guests than this carry a channel flag; ``-1``
  switches the check off.

Coverage: direct messages are those the acting account can read (its own conversations), so
``dm_partners`` is a lower bound; channel membership comes from ``GET /streams/{id}/members``
and is complete for an administrator.

With ``dry_run=False`` each guest is unsubscribed from every flagged private or default channel
(``DELETE /users/me/subscriptions`` with ``principals``). A guest in too many channels is only
reported: which channels to leave is for a person to choose. Restricting
``can_access_all_users_group`` is only reported too (``PATCH /realm``): it changes what every
guest sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..types import Channel, User
from ._common import Fill, api, fill, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["guest_access", "resolve_group_setting"]

ROLE_GUEST = 600
#: Direct messages scanned for partners, newest first (the API's page limit).
DM_SCAN = 5000


def resolve_group_setting(
    value: Any, groups: Mapping[int, Mapping[str, Any]], seen: frozenset[int] = frozenset()
) -> set[int]:
    """The user ids a group-setting value reaches, following subgroups.

    ``value`` is a group id or ``{"direct_members": [...], "direct_subgroups": [...]}``;
    ``groups`` maps group id to its raw ``GET /user_groups`` record (deactivated ones too).
    A deactivated group, or an id no group has, reaches nobody.
    """
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        group = groups.get(value)
        if group is None or group.get("deactivated") or value in seen:
            return set()
        members = {int(u) for u in group.get("members", []) or []}
        for sub in group.get("direct_subgroup_ids", []) or []:
            members |= resolve_group_setting(int(sub), groups, seen | {value})
        return members
    if isinstance(value, Mapping):
        members = {int(u) for u in value.get("direct_members", []) or []}
        for sub in value.get("direct_subgroups", []) or []:
            members |= resolve_group_setting(int(sub), groups, seen)
        return members
    return set()


def guest_access(
    client: Client,
    *,
    max_channels: Annotated[
        int,
        Param("flag guests subscribed to more channels than this", low=0),
    ] = 5,
    flag_private: Annotated[
        bool,
        Param("flag guests subscribed to a private channel"),
    ] = True,
    flag_default_channels: Annotated[
        bool,
        Param("flag guests subscribed to a default channel"),
    ] = True,
    max_flagged_guests: Annotated[
        int,
        Param("fail when more guests than this carry a channel flag (-1: off)", low=-1),
    ] = 2,
    now: datetime | None = None,
    dry_run: Annotated[
        bool,
        Param(
            "when False, unsubscribe guests from the flagged private and default channels",
        ),
    ] = True,
) -> AuditResult:
    """Fetch guests, channels and their members, and judge each guest's access.

    Args:
        client: a client of an administrator.
        max_channels: flag guests subscribed to more channels than this (0 or more).
        flag_private: flag guests subscribed to a private channel.
        flag_default_channels: flag guests subscribed to a default channel.
        max_flagged_guests: fail when more guests than this carry a channel flag; ``-1``
            disables the check.
        now: when the audit is dated; default the current time.
        dry_run: when False, unsubscribe guests from the flagged private and default channels.

    Tables: ``guests`` (one row per active guest), ``subscriptions`` (one row per guest and
    channel, with the channel's kind).
    """
    if max_channels < 0:
        raise ValueError(f"max_channels must be 0 or more, not {max_channels}")
    if max_flagged_guests < -1:
        raise ValueError(f"max_flagged_guests must be -1 or more, not {max_flagged_guests}")
    generated = pd.Timestamp(now or datetime.now(UTC))
    users = {u.user_id: u for u in client.users.list()}
    guests = sorted(
        (u for u in users.values() if u.role == ROLE_GUEST and u.is_active and not u.is_bot),
        key=lambda u: u.user_id,
    )
    guest_ids = {g.user_id for g in guests}
    channels = [
        ch
        for ch in client.channels.list(include_all=True, include_default=True)
        if not ch.is_archived
    ]
    subscribed: dict[int, list[Channel]] = {g.user_id: [] for g in guests}
    if guests:
        for ch in sorted(channels, key=lambda c: c.name.lower()):
            for uid in client.channels.members(ch.stream_id):
                if uid in guest_ids:
                    subscribed[uid].append(ch)

    realm = client.server.register()
    raw_groups = client.get("/user_groups", params={"include_deactivated_groups": True})
    groups = {int(g["id"]): g for g in raw_groups.get("user_groups", [])}
    setting = realm.get("realm_can_access_all_users_group")
    see_all = resolve_group_setting(setting, groups)
    members_id = next((gid for gid, g in groups.items() if g.get("name") == "role:members"), None)
    partners = _dm_partners(client, guest_ids) if guests else {}

    table_rows: list[dict[str, Any]] = []
    sub_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
    flagged: list[int] = []
    to_remove: list[tuple[User, Channel]] = []
    for guest in guests:
        chans = subscribed[guest.user_id]
        private = [c for c in chans if c.invite_only]
        web_public = [c for c in chans if c.is_web_public]
        default = [c for c in chans if c.is_default]
        last = _last_message_ts(client, guest)
        for c in chans:
            sub_rows.append(
                {
                    "user_id": guest.user_id,
                    "guest": guest.full_name,
                    "channel": c.name,
                    "stream_id": c.stream_id,
                    "kind": _kind(c),
                    "is_default": bool(c.is_default),
                }
            )
        names = partners.get(guest.user_id, set())
        flags: list[str] = []
        subject = f"{guest.full_name} ({guest.email})"
        if len(chans) > max_channels:
            flags.append(f"in {len(chans)} channels (more than {max_channels})")
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"subscribed to {len(chans)} channels; the limit is {max_channels}",
                    "Unsubscribe the guest from the channels they do not need",
                    api(
                        "DELETE",
                        "/users/me/subscriptions",
                        subscriptions=[fill("{channel}")],
                        principals=[guest.user_id],
                    ),
                )
            )
        reasons: dict[int, list[str]] = {}
        if flag_private:
            for c in private:
                reasons.setdefault(c.stream_id, []).append("private")
        if flag_default_channels:
            for c in default:
                reasons.setdefault(c.stream_id, []).append("default")
        for c in chans:
            if c.stream_id not in reasons:
                continue
            kinds = " and ".join(reasons[c.stream_id])
            flags.append(f"in {kinds} channel #{c.name}")
            to_remove.append((guest, c))
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"subscribed to {kinds} channel #{c.name}",
                    f"Unsubscribe the guest from #{c.name} unless they need it",
                    api(
                        "DELETE",
                        "/users/me/subscriptions",
                        subscriptions=[c.name],
                        principals=[guest.user_id],
                    ),
                )
            )
        if flags:
            flagged.append(guest.user_id)
        table_rows.append(
            {
                "user_id": guest.user_id,
                "name": guest.full_name,
                "email": guest.email,
                "channels": len(chans),
                "private_channels": ", ".join(c.name for c in private),
                "web_public_channels": ", ".join(c.name for c in web_public),
                "default_channels": ", ".join(c.name for c in default),
                "dm_partners": ", ".join(sorted(users[p].full_name for p in names if p in users)),
                "last_message_at": (
                    pd.Timestamp(last, unit="s", tz="UTC") if last is not None else pd.NaT
                ),
                "may_see_all_users": guest.user_id in see_all,
                "flags": "; ".join(flags),
            }
        )

    guests_seeing_all = [g.user_id for g in guests if g.user_id in see_all]
    if guests_seeing_all:
        new: int | Fill = members_id if members_id is not None else fill("{group_id}")
        rows.append(
            finding(
                "warning",
                "organization",
                f"{len(guests_seeing_all)} of {len(guests)} guests may see all users "
                "(can_access_all_users_group reaches guests)",
                "Limit can_access_all_users_group to role:members so guests see only the "
                "users they share channels or conversations with",
                api("PATCH", "/realm", can_access_all_users_group={"new": new}),
            )
        )

    failed: list[str] = []
    if max_flagged_guests >= 0 and len(flagged) > max_flagged_guests:
        failed.append("max_flagged_guests")
        rows.append(
            finding(
                "critical",
                "guests",
                f"{len(flagged)} guests have flagged channel access; the threshold is "
                f"{max_flagged_guests}",
                "Review the flagged guests and unsubscribe them where they do not belong",
                api(
                    "DELETE",
                    "/users/me/subscriptions",
                    subscriptions=[fill("{channels}")],
                    principals=[fill("{guest_ids}")],
                ),
            )
        )

    removed: list[dict[str, Any]] = []
    if not dry_run:
        for guest, c in to_remove:
            client.channels.unsubscribe([c.name], principals=[guest.user_id])
            removed.append({"user_id": guest.user_id, "stream_id": c.stream_id})

    table = pd.DataFrame(
        table_rows,
        columns=[
            "user_id",
            "name",
            "email",
            "channels",
            "private_channels",
            "web_public_channels",
            "default_channels",
            "dm_partners",
            "last_message_at",
            "may_see_all_users",
            "flags",
        ],
    ).set_index("user_id")
    subs = pd.DataFrame(
        sub_rows, columns=["user_id", "guest", "channel", "stream_id", "kind", "is_default"]
    )
    summary = summary_of(
        "guest_access",
        # every active guest judged; the organization's setting; the threshold's "guests"
        subjects=[f"{g.full_name} ({g.email})" for g in guests] + ["organization", "guests"],
        failed=failed,
        counts={
            "guests": len(guests),
            "flagged_guests": len(flagged),
            "guests_in_private_channels": sum(
                1 for g in guests if any(c.invite_only for c in subscribed[g.user_id])
            ),
            "guests_in_default_channels": sum(
                1 for g in guests if any(c.is_default for c in subscribed[g.user_id])
            ),
            "guests_over_max_channels": sum(
                1 for g in guests if len(subscribed[g.user_id]) > max_channels
            ),
            "guests_who_may_see_all_users": len(guests_seeing_all),
            "findings": len(rows),
            "unsubscribed_now": len(removed),
        },
        thresholds={
            "max_flagged_guests": max_flagged_guests,
            "max_channels": max_channels,
            "flag_private": flag_private,
            "flag_default_channels": flag_default_channels,
        },
        can_access_all_users_group=setting,
        coverage={
            "channels": "complete: subscribers of every channel (GET /streams/{id}/members)",
            "dm_partners": "only direct messages the acting account can read (its own "
            f"conversations), the newest {DM_SCAN}; other guests' conversations are not visible",
            "last_message_at": "newest message the acting account can read",
        },
        dry_run=dry_run,
        unsubscribed=removed,
        site=client.site,
        generated_at=generated.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"guests": table, "subscriptions": subs},
    )


def _kind(channel: Channel) -> str:
    if channel.is_web_public:
        return "web-public"
    return "private" if channel.invite_only else "public"


def _dm_partners(client: Client, guest_ids: set[int]) -> dict[int, set[int]]:
    page = client.messages.get(
        anchor="newest",
        num_before=DM_SCAN,
        num_after=0,
        narrow=[{"operator": "is", "operand": "dm"}],
        apply_markdown=False,
    )
    partners: dict[int, set[int]] = {}
    for m in page.messages:
        if not isinstance(m.display_recipient, list):
            continue
        people = {r.id for r in m.display_recipient} | {m.sender_id}
        for gid in people & guest_ids:
            partners.setdefault(gid, set()).update(people - {gid})
    return partners


def _last_message_ts(client: Client, user: User) -> int | None:
    page = client.messages.get(
        anchor="newest",
        num_before=1,
        num_after=0,
        narrow=[{"operator": "sender", "operand": user.user_id}],
        apply_markdown=False,
    )
    return max((m.timestamp for m in page.messages), default=None)
