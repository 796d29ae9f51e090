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

Each flagged private or default channel's finding carries the call that unsubscribes the guest
(``DELETE /users/me/subscriptions`` with ``principals``), for ``chatops audit plan`` /
``chatops audit apply``; the audit itself only reads. For a guest in too many channels, which
channels to leave is a person's choice (``{channel}``). Restricting
``can_access_all_users_group`` (``PATCH /realm``) changes what every guest sees.

Three steps: :func:`fetch` reads the users, channels and their members, the organization's
setting and groups, direct messages and each guest's newest message; :func:`judge` (pure)
flags each guest; :func:`conclude` turns that into findings, tables and the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..changes.kinds import Unsubscribe, UpdateRealm
from ..types import Channel, User
from ._common import Fill, api, crossed, fill, finding, newest_messages
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding
from ._settings import resolve_group_setting

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Message

__all__ = [
    "JudgedGuest",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "guest_access",
    "judge",
    "resolve_group_setting",
]

ROLE_GUEST = 600
#: Direct messages scanned for partners, newest first (the API's page limit).
DM_SCAN = 5000


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`guest_access`, checked (ValueError naming the one out of
    range)."""

    max_channels: int = 5
    flag_private: bool = True
    flag_default_channels: bool = True
    max_flagged_guests: int = 2

    def __post_init__(self) -> None:
        if self.max_channels < 0:
            raise ValueError(f"max_channels must be 0 or more, not {self.max_channels}")
        if self.max_flagged_guests < -1:
            raise ValueError(
                f"max_flagged_guests must be -1 or more, not {self.max_flagged_guests}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: the channels that are not archived
    channels: list[Channel]
    #: stream id -> its subscribers (read only when there are guests)
    members: dict[int, list[int]]
    #: the ``POST /register`` state, and every group as raw JSON by id (deactivated ones too)
    realm: dict[str, Any]
    groups: dict[int, dict[str, Any]]
    #: the newest direct messages the account can read (read only when there are guests)
    direct_messages: list[Message]
    #: guest id -> when the newest message the account can read of the guest was sent
    last_messages: dict[int, int | None]

    @property
    def guests(self) -> list[User]:
        """The active guests, by id."""
        return _guests(self.users)


@dataclass(frozen=True)
class JudgedGuest:
    """One guest, judged."""

    guest: User
    #: the channels the guest is subscribed to, by name
    channels: list[Channel]
    #: the flagged channels, each with why (``private``, ``default``, ``private and default``)
    flagged: list[tuple[Channel, str]]
    #: user ids the guest has direct messages with (that the account can read)
    partners: set[int]
    last_message: int | None
    may_see_all_users: bool
    flags: list[str]

    @property
    def subject(self) -> str:
        """``Gus Guest (gus@example.org)``."""
        return f"{self.guest.full_name} ({self.guest.email})"


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    guests: list[JudgedGuest]
    #: the value of ``can_access_all_users_group``
    setting: Any
    #: the id of ``role:members`` (None: no such group)
    members_id: int | None

    @property
    def flagged(self) -> list[JudgedGuest]:
        """The guests with a flag."""
        return [g for g in self.guests if g.flags]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_flagged_guests", self.options.max_flagged_guests, len(self.flagged))


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

    Tables: ``guests`` (one row per active guest), ``subscriptions`` (one row per guest and
    channel, with the channel's kind).
    """
    options = Options(
        max_channels=max_channels,
        flag_private=flag_private,
        flag_default_channels=flag_default_channels,
        max_flagged_guests=max_flagged_guests,
    )
    return conclude(judge(fetch(client), options, at=pd.Timestamp(now or datetime.now(UTC))))


def fetch(client: Client) -> Read:
    """Read the users, the channels and (with guests) their members, the organization's
    settings and groups, the direct messages and each guest's newest message."""
    users = {u.user_id: u for u in client.users.list()}
    guests = _guests(users)
    channels = [
        ch
        for ch in client.channels.list(include_all=True, include_default=True)
        if not ch.is_archived
    ]
    members: dict[int, list[int]] = {}
    if guests:
        for ch in sorted(channels, key=lambda c: c.name.lower()):
            members[ch.stream_id] = list(client.channels.members(ch.stream_id))
    realm = client.server.register()
    raw_groups = client.get("/user_groups", params={"include_deactivated_groups": True})
    groups = {int(g["id"]): g for g in raw_groups.get("user_groups", [])}
    direct: list[Message] = []
    if guests:
        direct = newest_messages(client, DM_SCAN, narrow=[{"operator": "is", "operand": "dm"}])
    last: dict[int, int | None] = {}
    for guest in guests:
        page = newest_messages(client, 1, narrow=[{"operator": "sender", "operand": guest.user_id}])
        last[guest.user_id] = max((m.timestamp for m in page), default=None)
    return Read(client.site, users, channels, members, realm, groups, direct, last)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Flag each guest's channels and see whom ``can_access_all_users_group`` reaches; no
    I/O. ``at`` dates the audit."""
    guests = read.guests
    guest_ids = {g.user_id for g in guests}
    subscribed: dict[int, list[Channel]] = {g.user_id: [] for g in guests}
    for ch in sorted(read.channels, key=lambda c: c.name.lower()):
        for uid in read.members.get(ch.stream_id, []):
            if uid in guest_ids:
                subscribed[uid].append(ch)
    setting = read.realm.get("realm_can_access_all_users_group")
    see_all = resolve_group_setting(setting, read.groups)
    members_id = next(
        (gid for gid, g in read.groups.items() if g.get("name") == "role:members"), None
    )
    partners = _dm_partners(read.direct_messages, guest_ids)
    judged: list[JudgedGuest] = []
    for guest in guests:
        chans = subscribed[guest.user_id]
        flags: list[str] = []
        if len(chans) > options.max_channels:
            flags.append(f"in {len(chans)} channels (more than {options.max_channels})")
        reasons: dict[int, list[str]] = {}
        if options.flag_private:
            for c in chans:
                if c.invite_only:
                    reasons.setdefault(c.stream_id, []).append("private")
        if options.flag_default_channels:
            for c in chans:
                if c.is_default:
                    reasons.setdefault(c.stream_id, []).append("default")
        flagged = [(c, " and ".join(reasons[c.stream_id])) for c in chans if c.stream_id in reasons]
        flags += [f"in {kinds} channel #{c.name}" for c, kinds in flagged]
        judged.append(
            JudgedGuest(
                guest=guest,
                channels=chans,
                flagged=flagged,
                partners=partners.get(guest.user_id, set()),
                last_message=read.last_messages.get(guest.user_id),
                may_see_all_users=guest.user_id in see_all,
                flags=flags,
            )
        )
    return Judged(read, options, at, judged, setting, members_id)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it."""
    limit = judged.options.max_channels
    rows: list[Finding] = []
    for g in judged.guests:
        if len(g.channels) > limit:
            rows.append(
                finding(
                    "warning",
                    g.subject,
                    f"subscribed to {len(g.channels)} channels; the limit is {limit}",
                    "Unsubscribe the guest from the channels they do not need",
                    api(
                        "DELETE",
                        "/users/me/subscriptions",
                        subscriptions=[fill("{channel}")],
                        principals=[g.guest.user_id],
                    ),
                )
            )
        for c, kinds in g.flagged:
            rows.append(
                finding(
                    "warning",
                    g.subject,
                    f"subscribed to {kinds} channel #{c.name}",
                    f"Unsubscribe the guest from #{c.name} unless they need it",
                    Unsubscribe(channels=[c.name], principals=[g.guest.user_id]),
                )
            )
    seeing_all = sum(g.may_see_all_users for g in judged.guests)
    if seeing_all:
        new: int | Fill = judged.members_id if judged.members_id is not None else fill("{group_id}")
        rows.append(
            finding(
                "warning",
                "organization",
                f"{seeing_all} of {len(judged.guests)} guests may see all users "
                "(can_access_all_users_group reaches guests)",
                "Limit can_access_all_users_group to role:members so guests see only the "
                "users they share channels or conversations with",
                UpdateRealm(settings={"can_access_all_users_group": {"new": new}})
                if isinstance(new, int)
                else api("PATCH", "/realm", can_access_all_users_group={"new": new}),
            )
        )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "guests",
                f"{len(judged.flagged)} guests have flagged channel access; the threshold is "
                f"{judged.options.max_flagged_guests}",
                "Review the flagged guests and unsubscribe them where they do not belong",
                api(
                    "DELETE",
                    "/users/me/subscriptions",
                    subscriptions=[fill("{channels}")],
                    principals=[fill("{guest_ids}")],
                ),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, users = judged.options, judged.read.users
    table = pd.DataFrame(
        [
            {
                "user_id": g.guest.user_id,
                "name": g.guest.full_name,
                "email": g.guest.email,
                "channels": len(g.channels),
                "private_channels": ", ".join(c.name for c in g.channels if c.invite_only),
                "web_public_channels": ", ".join(c.name for c in g.channels if c.is_web_public),
                "default_channels": ", ".join(c.name for c in g.channels if c.is_default),
                "dm_partners": ", ".join(
                    sorted(users[p].full_name for p in g.partners if p in users)
                ),
                "last_message_at": (
                    pd.Timestamp(g.last_message, unit="s", tz="UTC")
                    if g.last_message is not None
                    else pd.NaT
                ),
                "may_see_all_users": g.may_see_all_users,
                "flags": "; ".join(g.flags),
            }
            for g in judged.guests
        ],
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
        [
            {
                "user_id": g.guest.user_id,
                "guest": g.guest.full_name,
                "channel": c.name,
                "stream_id": c.stream_id,
                "kind": _kind(c),
                "is_default": bool(c.is_default),
            }
            for g in judged.guests
            for c in g.channels
        ],
        columns=["user_id", "guest", "channel", "stream_id", "kind", "is_default"],
    )
    guests = judged.guests
    summary = summary_of(
        "guest_access",
        # every active guest judged; the organization's setting; the threshold's "guests"
        subjects=[g.subject for g in guests] + ["organization", "guests"],
        failed=judged.failed,
        counts={
            "guests": len(guests),
            "flagged_guests": len(judged.flagged),
            "guests_in_private_channels": sum(
                1 for g in guests if any(c.invite_only for c in g.channels)
            ),
            "guests_in_default_channels": sum(
                1 for g in guests if any(c.is_default for c in g.channels)
            ),
            "guests_over_max_channels": sum(
                1 for g in guests if len(g.channels) > options.max_channels
            ),
            "guests_who_may_see_all_users": sum(g.may_see_all_users for g in guests),
            "findings": len(rows),
        },
        thresholds={
            "max_flagged_guests": options.max_flagged_guests,
            "max_channels": options.max_channels,
            "flag_private": options.flag_private,
            "flag_default_channels": options.flag_default_channels,
        },
        can_access_all_users_group=judged.setting,
        coverage={
            "channels": "complete: subscribers of every channel (GET /streams/{id}/members)",
            "dm_partners": "only direct messages the acting account can read (its own "
            f"conversations), the newest {DM_SCAN}; other guests' conversations are not visible",
            "last_message_at": "newest message the acting account can read",
        },
        site=judged.read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"guests": table, "subscriptions": subs},
    )


def _guests(users: Mapping[int, User]) -> list[User]:
    return sorted(
        (u for u in users.values() if u.role == ROLE_GUEST and u.is_active and not u.is_bot),
        key=lambda u: u.user_id,
    )


def _kind(channel: Channel) -> str:
    if channel.is_web_public:
        return "web-public"
    return "private" if channel.invite_only else "public"


def _dm_partners(messages: list[Message], guest_ids: set[int]) -> dict[int, set[int]]:
    partners: dict[int, set[int]] = {}
    for m in messages:
        if not isinstance(m.display_recipient, list):
            continue
        people = {r.id for r in m.display_recipient} | {m.sender_id}
        for gid in people & guest_ids:
            partners.setdefault(gid, set()).update(people - {gid})
    return partners
